//===- LowerOpaque.cpp - easyml.opaque to inline assembly -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/EasyMLToKernel/LowerOpaque.h"
#include "easyml/Conversion/Passes.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace easyml {
#define GEN_PASS_DEF_LOWEROPAQUE
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

/// A register of the value's size on `target`, the result tied to the
/// operand.
static StringRef tiedRegisterConstraints(Backend target) {
  switch (target) {
  case Backend::Cpu:
    return "=r,0";
  case Backend::Cuda:
    return "=l,0";
  case Backend::Rocm:
    return "=v,0";
  }
  llvm_unreachable("unknown backend");
}

namespace {
/// easyml.opaque to `llvm.inline_asm has_side_effects ""` tying its result
/// to its operand.
struct OpaqueToInlineAsm : OpConversionPattern<OpaqueOp> {
  OpaqueToInlineAsm(MLIRContext *ctx, Backend target)
      : OpConversionPattern(ctx), constraints(tiedRegisterConstraints(target)) {
  }

  LogicalResult
  matchAndRewrite(OpaqueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::InlineAsmOp>(
        op, op.getType(), ValueRange{adaptor.getInput()},
        /*asm_string=*/"", constraints, /*has_side_effects=*/true,
        /*is_align_stack=*/false, /*asm_dialect=*/nullptr,
        /*operand_attrs=*/ArrayAttr());
    return success();
  }

  StringRef constraints;
};

struct LowerOpaquePass : public easyml::impl::LowerOpaqueBase<LowerOpaquePass> {
  using LowerOpaqueBase::LowerOpaqueBase;

  std::string checkOptions() const {
    if (const std::optional<std::string> &bad = unknownValue(target))
      return "unknown target '" + *bad + "' (expected host, cuda or rocm)";
    return "";
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return easyml::initializeCheckedOptions(*this, options, errorHandler);
  }

  void runOnOperation() override {
    ConversionTarget conversion(getContext());
    conversion.addIllegalOp<OpaqueOp>();
    conversion.addLegalDialect<LLVM::LLVMDialect>();
    RewritePatternSet patterns(&getContext());
    populateLowerOpaquePatterns(patterns, target);
    if (failed(applyPartialConversion(getOperation(), conversion,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void easyml::populateLowerOpaquePatterns(RewritePatternSet &patterns,
                                         Backend target) {
  patterns.add<OpaqueToInlineAsm>(patterns.getContext(), target);
}
