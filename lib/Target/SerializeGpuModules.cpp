//===- SerializeGpuModules.cpp - gpu-module-to-binary, easyml settings ----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/Passes.h"
#include "easyml/Target/DeviceCodegen.h"
#include "easyml/Target/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/PassManager.h"

namespace easyml {
#define GEN_PASS_DEF_SERIALIZEGPUMODULES
#include "easyml/Target/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {
struct SerializeGpuModulesPass
    : public easyml::impl::SerializeGpuModulesBase<SerializeGpuModulesPass> {
  using Base::Base;

  std::string checkOptions() const {
    std::optional<std::string> bad = unknownValue(format);
    if (!bad && format == GpuFormat::Default)
      bad = stringifyGpuFormat(format).str();
    if (bad)
      return "easyml-serialize-gpu-modules: unknown format '" + *bad +
             "' (fatbin, bin, isa or llvm)";
    return "";
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return easyml::initializeCheckedOptions(*this, options, errorHandler);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Built in C++ (not parsed), the options are checked here.
    if (std::string problem = checkOptions(); !problem.empty()) {
      module.emitError(problem);
      return signalPassFailure();
    }
    // LLVM's defaults serve AMDGPU; the settings are for NVPTX.
    bool nvvm = false, any = false;
    for (gpu::GPUModuleOp gm : module.getOps<gpu::GPUModuleOp>()) {
      any = true;
      if (ArrayAttr targets = gm.getTargetsAttr())
        nvvm |= llvm::any_of(targets, llvm::IsaPred<NVVM::NVVMTargetAttr>);
    }
    if (!any)
      return;
    GpuModuleToBinaryPassOptions binary;
    binary.toolkitPath = toolkit;
    binary.compilationTarget = stringifyGpuFormat(format).str();
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createGpuModuleToBinaryPass(binary));
    DeviceCodegenSettings settings;
    settings.machineSink = machineSink || !nvvm;
    DeviceCodegenScope scope(settings);
    if (llvm::Error e = scope.status())
      module.emitWarning(llvm::toString(std::move(e)));
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};
} // namespace
