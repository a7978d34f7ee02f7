//===- MathToDeviceLibrary.cpp - math the GPU lowerings miss --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/MathToDeviceLibrary/MathToDeviceLibrary.h"
#include "easyml/Conversion/Passes.h"

namespace easyml {
#define GEN_PASS_DEF_CONVERTMATHTODEVICELIBRARY
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {
/// The name of the f64 function `fn` in the device library of `target`.
std::string deviceFunction(Backend target, StringRef fn) {
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

/// The device function of `target` that computes `op`; declared at the
/// start of the gpu.module holding `at` if it is not yet.
/// (math.acos -> acos -> __nv_acos / __ocml_acos_f64)
LLVM::LLVMFuncOp getOrDeclare(OpBuilder &b, Operation *at, Operation *op,
                              Backend target) {
  auto module = isa<gpu::GPUModuleOp>(at)
                    ? cast<gpu::GPUModuleOp>(at)
                    : at->getParentOfType<gpu::GPUModuleOp>();
  std::string name = deviceFunction(target, op->getName().stripDialect().str());
  if (auto decl = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return decl;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  Type f64 = b.getF64Type();
  return b.create<LLVM::LLVMFuncOp>(op->getLoc(), name,
                                    LLVM::LLVMFunctionType::get(f64, {f64}));
}

/// Whether `op` is math on f64 that the device library computes.
bool isDeviceLibraryMath(Operation *op) {
  return isa<math::AcosOp, math::AsinOp, math::AcoshOp, math::AsinhOp,
             math::AtanhOp, math::CoshOp, math::SinhOp>(op) &&
         op->getResult(0).getType().isF64();
}

/// One of those operations to a call of the device function.
template <typename MathOp> struct ToDeviceCall : OpConversionPattern<MathOp> {
  ToDeviceCall(MLIRContext *ctx, Backend target)
      : OpConversionPattern<MathOp>(ctx), target(target) {}

  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isDeviceLibraryMath(op))
      return failure();
    LLVM::LLVMFuncOp decl = getOrDeclare(rewriter, op, op, target);
    rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, decl, adaptor.getOperands());
    return success();
  }

  Backend target;
};

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
    declareDeviceLibraryFunctions(module, target);
    ConversionTarget conversion(getContext());
    configureMathToDeviceLibraryTarget(conversion);
    RewritePatternSet patterns(&getContext());
    populateMathToDeviceLibraryPatterns(patterns, target);
    if (failed(applyPartialConversion(module, conversion, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void easyml::configureMathToDeviceLibraryTarget(ConversionTarget &target) {
  target.addDynamicallyLegalOp<math::AcosOp, math::AsinOp, math::AcoshOp,
                               math::AsinhOp, math::AtanhOp, math::CoshOp,
                               math::SinhOp>(
      [](Operation *op) { return !isDeviceLibraryMath(op); });
  target.addLegalDialect<LLVM::LLVMDialect>();
}

void easyml::populateMathToDeviceLibraryPatterns(RewritePatternSet &patterns,
                                                 Backend target) {
  patterns.add<ToDeviceCall<math::AcosOp>, ToDeviceCall<math::AsinOp>,
               ToDeviceCall<math::AcoshOp>, ToDeviceCall<math::AsinhOp>,
               ToDeviceCall<math::AtanhOp>, ToDeviceCall<math::CoshOp>,
               ToDeviceCall<math::SinhOp>>(patterns.getContext(), target);
}

void easyml::declareDeviceLibraryFunctions(gpu::GPUModuleOp module,
                                           Backend target) {
  OpBuilder b(module.getContext());
  module.walk([&](Operation *op) {
    if (isDeviceLibraryMath(op))
      getOrDeclare(b, module, op, target);
  });
}
