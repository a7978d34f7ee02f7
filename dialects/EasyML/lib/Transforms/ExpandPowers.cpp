//===- ExpandPowers.cpp - small integer powers as products ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

namespace easyml {
#define GEN_PASS_DEF_EXPANDPOWERS
#include "easyml/Dialect/EasyML/Transforms/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {
/// x^n for n >= 1 by binary exponentiation: squarings of x multiplied
/// together, lowest power first.
Value power(OpBuilder &b, Location loc, Value x, int64_t n,
            arith::FastMathFlagsAttr fm) {
  Value result, square = x;
  while (true) {
    if (n & 1)
      result =
          result ? b.create<arith::MulFOp>(loc, result, square, fm) : square;
    n >>= 1;
    if (!n)
      return result;
    square = b.create<arith::MulFOp>(loc, square, square, fm);
  }
}

struct ExpandPowersPass
    : public easyml::impl::ExpandPowersBase<ExpandPowersPass> {
  using ExpandPowersBase::ExpandPowersBase;
  void runOnOperation() override {
    SmallVector<math::PowFOp> pows;
    getOperation().walk([&](math::PowFOp op) { pows.push_back(op); });
    for (math::PowFOp op : pows) {
      FloatAttr exponent;
      if (!matchPattern(op.getRhs(), m_Constant(&exponent)))
        continue;
      double e = exponent.getValueAsDouble();
      if (e != std::trunc(e) || e == 0 || std::fabs(e) > maxExponent)
        continue;
      OpBuilder b(op);
      auto n = static_cast<int64_t>(std::fabs(e));
      Value result =
          power(b, op.getLoc(), op.getLhs(), n, op.getFastmathAttr());
      if (e < 0) {
        Value one = b.create<arith::ConstantOp>(
            op.getLoc(), b.getFloatAttr(op.getType(), 1.0));
        result = b.create<arith::DivFOp>(op.getLoc(), one, result,
                                         op.getFastmathAttr());
      }
      op.replaceAllUsesWith(result);
      op.erase();
    }
  }
};
} // namespace
