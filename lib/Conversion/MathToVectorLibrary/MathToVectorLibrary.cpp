//===- MathToVectorLibrary.cpp - vector math to libmvec calls -------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/MathToVectorLibrary/MathToVectorLibrary.h"
#include "easyml/Conversion/Passes.h"

namespace easyml {
#define GEN_PASS_DEF_CONVERTMATHTOVECTORLIBRARY
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {

/// A transcendental function with libmvec variants: its math operation,
/// its libm name and number of arguments.
struct MathFunction {
  StringLiteral op, name;
  unsigned arity;
};

constexpr MathFunction kTranscendentals[] = {
    {"math.exp", "exp", 1},     {"math.expm1", "expm1", 1},
    {"math.exp2", "exp2", 1},   {"math.log", "log", 1},
    {"math.log10", "log10", 1}, {"math.log1p", "log1p", 1},
    {"math.log2", "log2", 1},   {"math.powf", "pow", 2},
    {"math.sin", "sin", 1},     {"math.cos", "cos", 1},
    {"math.tan", "tan", 1},     {"math.asin", "asin", 1},
    {"math.acos", "acos", 1},   {"math.atan", "atan", 1},
    {"math.atan2", "atan2", 2}, {"math.sinh", "sinh", 1},
    {"math.cosh", "cosh", 1},   {"math.tanh", "tanh", 1},
    {"math.cbrt", "cbrt", 1},   {"math.erf", "erf", 1}};

std::optional<MathFunction> transcendental(StringRef opName) {
  for (const MathFunction &fn : kTranscendentals)
    if (fn.op == opName)
      return fn;
  return std::nullopt;
}

/// The native width (0: no libmvec call) and the vector function ABI's
/// letter of the libmvec variants `library` and `isa` give.
std::pair<int64_t, char> libmvecVariants(VectorMath library, VectorIsa isa) {
  if (library == VectorMath::Scalar)
    return {0, 0};
  switch (isa) {
  case VectorIsa::Avx512:
    return {8, 'e'};
  case VectorIsa::Avx2:
    return {4, 'd'};
  case VectorIsa::Sse2:
    return {2, 'b'};
  case VectorIsa::None:
    return {0, 0};
  }
  llvm_unreachable("unknown vector instruction set");
}

/// The libmvec function for `fn` at width `native` with the vector function
/// ABI's letter `isaLetter`: `_ZGV<isa>N<width><v...>_<fn>`.
std::string libmvecName(const MathFunction &fn, int64_t native,
                        char isaLetter) {
  return ("_ZGV" + Twine(isaLetter) + "N" + Twine(native) +
          std::string(fn.arity, 'v') + "_" + fn.name)
      .str();
}

/// The libmvec function `name` taking `arity` vectors of type `part`,
/// declared at the start of the module that holds `at` if it is not yet.
LLVM::LLVMFuncOp getOrDeclare(OpBuilder &b, Operation *at, StringRef name,
                              VectorType part, unsigned arity) {
  ModuleOp module =
      isa<ModuleOp>(at) ? cast<ModuleOp>(at) : at->getParentOfType<ModuleOp>();
  if (auto decl = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return decl;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  SmallVector<Type> args(arity, part);
  auto decl = b.create<LLVM::LLVMFuncOp>(
      at->getLoc(), name, LLVM::LLVMFunctionType::get(part, args));
  // Pure functions of their arguments, as math operations are: no memory
  // effects, no unwinding, always returning. LLVM may then move code
  // across the calls, e.g. hoist uniform work out of cell loops.
  MLIRContext *ctx = b.getContext();
  decl.setMemoryAttr(LLVM::MemoryEffectsAttr::get(
      ctx, {LLVM::ModRefInfo::NoModRef, LLVM::ModRefInfo::NoModRef,
            LLVM::ModRefInfo::NoModRef}));
  decl.setNoUnwind(true);
  decl.setWillReturn(true);
  return decl;
}

/// The function whose libmvec variant of width `native` computes `op`
/// (math on a vector of f64): a transcendental function whose vector length
/// the native width divides; none for the others.
std::optional<MathFunction> libmvecFunction(Operation *op, int64_t native) {
  std::optional<MathFunction> fn = transcendental(op->getName().getStringRef());
  int64_t n = cast<VectorType>(op->getResult(0).getType()).getNumElements();
  if (!fn || !native || n % native != 0)
    return std::nullopt;
  return fn;
}

/// A math operation on a vector to the LLVM intrinsic with the same
/// semantics.
template <typename MathOp, typename IntrinsicOp>
struct ToIntrinsic : OpConversionPattern<MathOp> {
  ToIntrinsic(MLIRContext *ctx)
      : OpConversionPattern<MathOp>(ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isVectorF64Math(op))
      return failure();
    rewriter.replaceOpWithNewOp<IntrinsicOp>(op, op.getType(),
                                             adaptor.getOperands());
    return success();
  }
};

/// A transcendental function on a vector to calls of its libmvec variant,
/// one per part of the library's width.
struct ToLibmvec : ConversionPattern {
  ToLibmvec(MLIRContext *ctx, StringRef opName, int64_t native, char isaLetter)
      : ConversionPattern(opName, /*benefit=*/2, ctx), native(native),
        isaLetter(isaLetter) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isVectorF64Math(op))
      return failure();
    std::optional<MathFunction> fn = libmvecFunction(op, native);
    if (!fn)
      return failure();
    Location loc = op->getLoc();
    auto vt = cast<VectorType>(op->getResult(0).getType());
    auto part = VectorType::get({native}, vt.getElementType());
    LLVM::LLVMFuncOp decl = getOrDeclare(
        rewriter, op, libmvecName(*fn, native, isaLetter), part, fn->arity);
    int64_t n = vt.getNumElements();
    if (n == native) {
      rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, decl, operands);
      return success();
    }
    Value result = rewriter.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(vt, rewriter.getF64FloatAttr(0.0)));
    for (int64_t k = 0; k < n; k += native) {
      SmallVector<Value> args;
      for (Value v : operands)
        args.push_back(rewriter.create<vector::ExtractStridedSliceOp>(
            loc, v, ArrayRef<int64_t>{k}, ArrayRef<int64_t>{native},
            ArrayRef<int64_t>{1}));
      Value r = rewriter.create<LLVM::CallOp>(loc, decl, args).getResult();
      result = rewriter.create<vector::InsertStridedSliceOp>(
          loc, r, result, ArrayRef<int64_t>{k}, ArrayRef<int64_t>{1});
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  int64_t native;
  char isaLetter;
};

/// Any math on a vector to the scalar operation on each lane
/// (convert-math-to-libm then turns it into a libm call): what neither an
/// intrinsic nor libmvec computes.
struct PerLane : ConversionPattern {
  PerLane(MLIRContext *ctx)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isVectorF64Math(op))
      return failure();
    Location loc = op->getLoc();
    auto vt = cast<VectorType>(op->getResult(0).getType());
    Value result = rewriter.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(vt, rewriter.getF64FloatAttr(0.0)));
    for (int64_t i = 0; i < vt.getNumElements(); ++i) {
      OperationState state(loc, op->getName());
      for (Value v : operands)
        state.addOperands(
            rewriter.create<vector::ExtractOp>(loc, v, i).getResult());
      state.addAttributes(op->getAttrs());
      state.addTypes(vt.getElementType());
      Value lane = rewriter.create(state)->getResult(0);
      result = rewriter.create<vector::InsertOp>(loc, lane, result, i);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertMathToVectorLibraryPass
    : public easyml::impl::ConvertMathToVectorLibraryBase<
          ConvertMathToVectorLibraryPass> {
  using ConvertMathToVectorLibraryBase::ConvertMathToVectorLibraryBase;

  /// Checks the options; returns the problem, or an empty string.
  std::string checkOptions() const {
    if (const std::optional<std::string> &bad = unknownValue(isa))
      return "unknown isa '" + *bad + "' (expected avx512, avx2, sse2 or none)";
    if (const std::optional<std::string> &bad = unknownValue(library))
      return "unknown vector math library '" + *bad +
             "' (expected libmvec or scalar)";
    return "";
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return easyml::initializeCheckedOptions(*this, options, errorHandler);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string problem = checkOptions();
    if (!problem.empty()) {
      module.emitError(problem);
      return signalPassFailure();
    }
    declareVectorLibraryFunctions(module, library, isa);
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !isVectorF64Math(op); });
    RewritePatternSet patterns(&getContext());
    populateMathToVectorLibraryPatterns(patterns, library, isa);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

bool easyml::isVectorF64Math(Operation *op) {
  if (!op->getDialect() || op->getDialect()->getNamespace() != "math" ||
      op->getNumResults() != 1)
    return false;
  auto vt = dyn_cast<VectorType>(op->getResult(0).getType());
  return vt && vt.getRank() == 1 && vt.getElementType().isF64();
}

void easyml::populateMathToVectorLibraryPatterns(RewritePatternSet &patterns,
                                                 VectorMath library,
                                                 VectorIsa isa) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ToIntrinsic<math::AbsFOp, LLVM::FAbsOp>,
               ToIntrinsic<math::SqrtOp, LLVM::SqrtOp>,
               ToIntrinsic<math::FloorOp, LLVM::FFloorOp>,
               ToIntrinsic<math::CeilOp, LLVM::FCeilOp>,
               ToIntrinsic<math::TruncOp, LLVM::FTruncOp>,
               ToIntrinsic<math::RoundOp, LLVM::RoundOp>,
               ToIntrinsic<math::CopySignOp, LLVM::CopySignOp>,
               ToIntrinsic<math::FmaOp, LLVM::FMAOp>, PerLane>(ctx);
  auto [native, isaLetter] = libmvecVariants(library, isa);
  if (native)
    for (const MathFunction &fn : kTranscendentals)
      patterns.add<ToLibmvec>(ctx, fn.op, native, isaLetter);
}

void easyml::declareVectorLibraryFunctions(ModuleOp module, VectorMath library,
                                           VectorIsa isa) {
  int64_t native;
  char isaLetter;
  std::tie(native, isaLetter) = libmvecVariants(library, isa);
  if (!native)
    return;
  OpBuilder b(module.getContext());
  module.walk([&](Operation *op) {
    if (!isVectorF64Math(op))
      return;
    std::optional<MathFunction> fn = libmvecFunction(op, native);
    if (!fn)
      return;
    auto vt = cast<VectorType>(op->getResult(0).getType());
    getOrDeclare(b, module, libmvecName(*fn, native, isaLetter),
                 VectorType::get({native}, vt.getElementType()), fn->arity);
  });
}
