//===- MathToDeviceLibrary.cpp - math the GPU lowerings miss --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSwitch.h"

namespace easyml {
#define GEN_PASS_DEF_CONVERTMATHTODEVICELIBRARY
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {
/// The name of the f64 function `fn` in the device library of `target`.
static std::string deviceFunction(Backend target, StringRef fn) {
  switch (target) {
  case Backend::Cuda:
    return ("__nv_" + fn).str();
  case Backend::Rocm:
    return ("__ocml_" + fn + "_f64").str();
  case Backend::Cpu:
    break;
  }
  llvm_unreachable("device math for the host");
}

struct ConvertMathToDeviceLibraryPass
    : public easyml::impl::ConvertMathToDeviceLibraryBase<
          ConvertMathToDeviceLibraryPass> {
  using ConvertMathToDeviceLibraryBase::ConvertMathToDeviceLibraryBase;

  /// Checks the options; returns the problem, or an empty string.
  std::string checkOptions() const {
    std::optional<std::string> bad = unknownValue(target);
    if (!bad && target == Backend::Cpu)
      bad = backendName(Backend::Cpu);
    if (bad)
      return "unknown target '" + *bad + "' (expected cuda or rocm)";
    return "";
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return easyml::initializeCheckedOptions(*this, options, errorHandler);
  }

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (std::string problem = checkOptions(); !problem.empty()) {
      module.emitError(problem);
      return signalPassFailure();
    }
    SmallVector<Operation *> work;
    module.walk([&](Operation *op) {
      if (!isa<math::AcosOp, math::AsinOp, math::AcoshOp, math::AsinhOp,
               math::AtanhOp, math::CoshOp, math::SinhOp>(op))
        return;
      if (op->getResult(0).getType().isF64())
        work.push_back(op);
    });
    OpBuilder b(module.getContext());
    Type f64 = b.getF64Type();
    for (Operation *op : work) {
      // math.acos -> acos -> __nv_acos / __ocml_acos_f64
      std::string fn = op->getName().stripDialect().str();
      std::string name = deviceFunction(target, fn);
      auto decl = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!decl) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(module.getBody());
        decl = b.create<LLVM::LLVMFuncOp>(
            op->getLoc(), name, LLVM::LLVMFunctionType::get(f64, {f64}));
      }
      b.setInsertionPoint(op);
      Value r = b.create<LLVM::CallOp>(op->getLoc(), decl, op->getOperands())
                    .getResult();
      op->getResult(0).replaceAllUsesWith(r);
      op->erase();
    }
  }
};
} // namespace
