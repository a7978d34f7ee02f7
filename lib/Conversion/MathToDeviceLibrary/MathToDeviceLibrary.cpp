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

namespace {
struct ConvertMathToDeviceLibraryPass
    : public easyml::impl::ConvertMathToDeviceLibraryBase<
          ConvertMathToDeviceLibraryPass> {
  using ConvertMathToDeviceLibraryBase::ConvertMathToDeviceLibraryBase;

  /// Checks the options; returns the problem, or an empty string.
  std::string checkOptions() const {
    if (target != "cuda" && target != "rocm")
      return "unknown target '" + target + "' (expected cuda or rocm)";
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
      std::string name =
          target == "cuda" ? "__nv_" + fn : "__ocml_" + fn + "_f64";
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
