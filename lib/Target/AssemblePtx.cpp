//===- AssemblePtx.cpp - PTX objects to cubin/fatbin ----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/Passes.h"
#include "easyml/Target/Passes.h"
#include "easyml/Target/PtxAssembler.h"
#include "easyml/Target/Toolkit.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace easyml {
#define GEN_PASS_DEF_ASSEMBLEPTX
#include "easyml/Target/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

/// The objects the pass leaves for `format` (checked: fatbin, bin or isa).
static gpu::CompilationTarget compilationTarget(GpuFormat format) {
  switch (format) {
  case GpuFormat::Fatbin:
    return gpu::CompilationTarget::Fatbin;
  case GpuFormat::Bin:
    return gpu::CompilationTarget::Binary;
  case GpuFormat::Isa:
    return gpu::CompilationTarget::Assembly;
  case GpuFormat::Default:
  case GpuFormat::Llvm:
    break;
  }
  llvm_unreachable("easyml-assemble-ptx writes fatbin, bin or isa");
}

namespace {
struct AssemblePtxPass : public easyml::impl::AssemblePtxBase<AssemblePtxPass> {
  using Base::Base;

  std::string checkOptions() const {
    std::optional<std::string> bad = unknownValue(format);
    if (!bad && format != GpuFormat::Fatbin && format != GpuFormat::Bin &&
        format != GpuFormat::Isa)
      bad = stringifyGpuFormat(format).str();
    if (bad)
      return "easyml-assemble-ptx: unknown format '" + *bad +
             "' (fatbin, bin or isa)";
    return "";
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return easyml::initializeCheckedOptions(*this, options, errorHandler);
  }

  void runOnOperation() override;
};
} // namespace

void AssemblePtxPass::runOnOperation() {
  ModuleOp module = getOperation();
  // Built in C++ (not parsed), the options are checked here.
  if (std::string problem = checkOptions(); !problem.empty()) {
    module.emitError(problem);
    return signalPassFailure();
  }
  gpu::CompilationTarget target = compilationTarget(format);
  auto isPtx = [](Attribute a) {
    auto object = dyn_cast<gpu::ObjectAttr>(a);
    return object && isa<NVVM::NVVMTargetAttr>(object.getTarget()) &&
           object.getFormat() == gpu::CompilationTarget::Assembly;
  };
  SmallVector<gpu::BinaryOp> binaries;
  module.walk([&](gpu::BinaryOp binary) {
    if (llvm::any_of(binary.getObjects(), isPtx))
      binaries.push_back(binary);
  });
  if (binaries.empty())
    return;
  llvm::Expected<std::string> toolkit = findGpuToolkit(Backend::Cuda, cudaPath);
  if (!toolkit) {
    binaries.front().emitError() << llvm::toString(toolkit.takeError());
    return signalPassFailure();
  }
  bool spilling = false;
  if (smemSpilling) {
    llvm::Expected<CudaRelease> release = ptxasRelease(*toolkit);
    if (!release) {
      binaries.front().emitError() << llvm::toString(release.takeError());
      return signalPassFailure();
    }
    spilling = supportsSharedMemorySpilling(*release);
  }
  bool failed = false;
  for (gpu::BinaryOp binary : binaries) {
    SmallVector<Attribute> objects;
    for (Attribute a : binary.getObjects()) {
      if (!isPtx(a)) {
        objects.push_back(a);
        continue;
      }
      auto object = cast<gpu::ObjectAttr>(a);
      auto nvvm = cast<NVVM::NVVMTargetAttr>(object.getTarget());
      llvm::Expected<std::string> ptx =
          preparePtx(object.getObject().getValue(), spilling);
      std::string data;
      PtxAssembleOptions options;
      options.toolkit = *toolkit;
      options.chip = nvvm.getChip().str();
      options.fatbin = target == gpu::CompilationTarget::Fatbin;
      options.optLevel = optLevel;
      options.registerCaps = registerCaps;
      if (ptx && target == gpu::CompilationTarget::Assembly && registerCaps) {
        // The PTX that a binary build would embed: with its register caps
        // (which take ptxas to choose).
        llvm::Expected<AssembledPtx> capped =
            assembleWithRegisterCaps(*ptx, options);
        if (!capped) {
          binary.emitError("'")
              << binary.getSymName() << "' for " << nvvm.getChip() << ": "
              << llvm::toString(capped.takeError());
          failed = true;
          continue;
        }
        data = std::move(capped->ptx);
      } else if (ptx && target != gpu::CompilationTarget::Assembly) {
        llvm::Expected<std::string> code = assemblePtx(*ptx, options);
        if (!code) {
          binary.emitError("'")
              << binary.getSymName() << "' for " << nvvm.getChip() << ": "
              << llvm::toString(code.takeError());
          failed = true;
          continue;
        }
        data = std::move(*code);
      } else if (ptx) {
        data = std::move(*ptx);
      } else {
        binary.emitError("'")
            << binary.getSymName() << "' for " << nvvm.getChip() << ": "
            << llvm::toString(ptx.takeError());
        failed = true;
        continue;
      }
      objects.push_back(gpu::ObjectAttr::get(
          &getContext(), nvvm, target, StringAttr::get(&getContext(), data),
          object.getProperties()));
    }
    binary.setObjectsAttr(ArrayAttr::get(&getContext(), objects));
  }
  if (failed)
    signalPassFailure();
}
