//===- MathToVectorLibrary.cpp - vector math to libmvec calls -------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace easyml {
#define GEN_PASS_DEF_CONVERTMATHTOVECTORLIBRARY
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {

/// A transcendental function: its libm name and number of arguments.
struct MathFunction {
  StringRef name;
  unsigned arity;
};

std::optional<MathFunction> transcendental(Operation *op) {
  return llvm::StringSwitch<std::optional<MathFunction>>(
             op->getName().getStringRef())
      .Case("math.exp", MathFunction{"exp", 1})
      .Case("math.expm1", MathFunction{"expm1", 1})
      .Case("math.exp2", MathFunction{"exp2", 1})
      .Case("math.log", MathFunction{"log", 1})
      .Case("math.log10", MathFunction{"log10", 1})
      .Case("math.log1p", MathFunction{"log1p", 1})
      .Case("math.log2", MathFunction{"log2", 1})
      .Case("math.powf", MathFunction{"pow", 2})
      .Case("math.sin", MathFunction{"sin", 1})
      .Case("math.cos", MathFunction{"cos", 1})
      .Case("math.tan", MathFunction{"tan", 1})
      .Case("math.asin", MathFunction{"asin", 1})
      .Case("math.acos", MathFunction{"acos", 1})
      .Case("math.atan", MathFunction{"atan", 1})
      .Case("math.atan2", MathFunction{"atan2", 2})
      .Case("math.sinh", MathFunction{"sinh", 1})
      .Case("math.cosh", MathFunction{"cosh", 1})
      .Case("math.tanh", MathFunction{"tanh", 1})
      .Case("math.cbrt", MathFunction{"cbrt", 1})
      .Case("math.erf", MathFunction{"erf", 1})
      .Default(std::nullopt);
}

/// Rewrites `op` (vector operands) into the LLVM intrinsic with the same
/// semantics, or returns null when it has none.
Operation *toIntrinsic(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  Type t = op->getResult(0).getType();
  ValueRange in = op->getOperands();
  return llvm::TypeSwitch<Operation *, Operation *>(op)
      .Case([&](math::AbsFOp) { return b.create<LLVM::FAbsOp>(loc, t, in); })
      .Case([&](math::SqrtOp) { return b.create<LLVM::SqrtOp>(loc, t, in); })
      .Case([&](math::FloorOp) { return b.create<LLVM::FFloorOp>(loc, t, in); })
      .Case([&](math::CeilOp) { return b.create<LLVM::FCeilOp>(loc, t, in); })
      .Case([&](math::TruncOp) { return b.create<LLVM::FTruncOp>(loc, t, in); })
      .Case([&](math::RoundOp) { return b.create<LLVM::RoundOp>(loc, t, in); })
      .Case([&](math::CopySignOp) {
        return b.create<LLVM::CopySignOp>(loc, t, in);
      })
      .Case([&](math::FmaOp) { return b.create<LLVM::FMAOp>(loc, t, in); })
      .Default([](Operation *) { return nullptr; });
}

/// The native width (0: no libmvec call) and the vector function ABI's
/// letter of the libmvec variants `library` and `isa` give.
static std::pair<int64_t, char> libmvecVariants(VectorMath library,
                                                VectorIsa isa) {
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
    auto [native, isaLetter] = libmvecVariants(library, isa);

    SmallVector<Operation *> work;
    module.walk([&](Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "math" &&
          op->getNumResults() == 1)
        if (auto vt = dyn_cast<VectorType>(op->getResult(0).getType()))
          if (vt.getRank() == 1 && vt.getElementType().isF64())
            work.push_back(op);
    });
    OpBuilder b(module.getContext());
    for (Operation *op : work) {
      b.setInsertionPoint(op);
      if (Operation *intrinsic = toIntrinsic(b, op)) {
        op->replaceAllUsesWith(intrinsic);
        op->erase();
        continue;
      }
      auto vt = cast<VectorType>(op->getResult(0).getType());
      int64_t n = vt.getNumElements();
      std::optional<MathFunction> fn = transcendental(op);
      Value result;
      if (fn && native && n % native == 0)
        result = callLibmvec(b, op, *fn, native, isaLetter);
      else
        result = perLane(b, op);
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
  }

  /// Splits the operands into vectors of the library's width and calls
  /// `_ZGV<isa>N<width><v...>_<fn>` on each.
  Value callLibmvec(OpBuilder &b, Operation *op, const MathFunction &fn,
                    int64_t native, char isaLetter) {
    Location loc = op->getLoc();
    auto vt = cast<VectorType>(op->getResult(0).getType());
    auto part = VectorType::get({native}, vt.getElementType());
    std::string name = ("_ZGV" + Twine(isaLetter) + "N" + Twine(native) +
                        std::string(fn.arity, 'v') + "_" + fn.name)
                           .str();
    ModuleOp module = getOperation();
    auto decl = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
    if (!decl) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      SmallVector<Type> args(fn.arity, part);
      decl = b.create<LLVM::LLVMFuncOp>(
          loc, name, LLVM::LLVMFunctionType::get(part, args));
      // Pure functions of their arguments, as math operations are: no
      // memory effects, no unwinding, always returning. LLVM may then move
      // code across the calls, e.g. hoist uniform work out of cell loops.
      MLIRContext *ctx = b.getContext();
      decl.setMemoryAttr(LLVM::MemoryEffectsAttr::get(
          ctx, {LLVM::ModRefInfo::NoModRef, LLVM::ModRefInfo::NoModRef,
                LLVM::ModRefInfo::NoModRef}));
      decl.setNoUnwind(true);
      decl.setWillReturn(true);
    }
    int64_t n = vt.getNumElements();
    if (n == native)
      return b.create<LLVM::CallOp>(loc, decl, op->getOperands()).getResult();
    Value result = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(vt, b.getF64FloatAttr(0.0)));
    for (int64_t k = 0; k < n; k += native) {
      SmallVector<Value> args;
      for (Value v : op->getOperands())
        args.push_back(b.create<vector::ExtractStridedSliceOp>(
            loc, v, ArrayRef<int64_t>{k}, ArrayRef<int64_t>{native},
            ArrayRef<int64_t>{1}));
      Value r = b.create<LLVM::CallOp>(loc, decl, args).getResult();
      result = b.create<vector::InsertStridedSliceOp>(
          loc, r, result, ArrayRef<int64_t>{k}, ArrayRef<int64_t>{1});
    }
    return result;
  }

  /// Applies the scalar operation to each lane (convert-math-to-libm then
  /// turns it into a libm call).
  Value perLane(OpBuilder &b, Operation *op) {
    Location loc = op->getLoc();
    auto vt = cast<VectorType>(op->getResult(0).getType());
    Value result = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(vt, b.getF64FloatAttr(0.0)));
    for (int64_t i = 0; i < vt.getNumElements(); ++i) {
      OperationState state(loc, op->getName());
      for (Value v : op->getOperands())
        state.addOperands(b.create<vector::ExtractOp>(loc, v, i).getResult());
      state.addAttributes(op->getAttrs());
      state.addTypes(vt.getElementType());
      Value lane = b.create(state)->getResult(0);
      result = b.create<vector::InsertOp>(loc, lane, result, i);
    }
    return result;
  }
};

} // namespace
