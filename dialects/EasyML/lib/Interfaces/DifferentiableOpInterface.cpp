//===- DifferentiableOpInterface.cpp - forward-mode derivatives -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/Interfaces/DifferentiableOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace easyml;

#include "easyml/Dialect/EasyML/Interfaces/DifferentiableOpInterface.cpp.inc"

//===----------------------------------------------------------------------===//
// Zero-aware arithmetic
//===----------------------------------------------------------------------===//

bool easyml::isConstant(Value v, double c) {
  if (!v)
    return c == 0.0;
  FloatAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  return attr.getValueAsDouble() == c;
}

Value ZeroAwareBuilder::cst(double v) {
  return b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(v));
}

Value ZeroAwareBuilder::value(Value x) { return x ? x : cst(0.0); }

Value ZeroAwareBuilder::add(Value x, Value y) {
  if (!x || isConstant(x, 0.0))
    return y;
  if (!y || isConstant(y, 0.0))
    return x;
  return b.createOrFold<arith::AddFOp>(loc, x, y);
}

Value ZeroAwareBuilder::sub(Value x, Value y) {
  if (!y || isConstant(y, 0.0))
    return x;
  if (!x || isConstant(x, 0.0))
    return neg(y);
  return b.createOrFold<arith::SubFOp>(loc, x, y);
}

Value ZeroAwareBuilder::mul(Value x, Value y) {
  if (!x || !y || isConstant(x, 0.0) || isConstant(y, 0.0))
    return Value();
  if (isConstant(x, 1.0))
    return y;
  if (isConstant(y, 1.0))
    return x;
  return b.createOrFold<arith::MulFOp>(loc, x, y);
}

Value ZeroAwareBuilder::div(Value x, Value y) {
  if (!x || isConstant(x, 0.0))
    return Value();
  if (isConstant(y, 1.0))
    return x;
  return b.createOrFold<arith::DivFOp>(loc, x, value(y));
}

Value ZeroAwareBuilder::neg(Value x) {
  if (!x || isConstant(x, 0.0))
    return Value();
  return b.createOrFold<arith::NegFOp>(loc, x);
}

//===----------------------------------------------------------------------===//
// TangentBuilder
//===----------------------------------------------------------------------===//

Tangent TangentBuilder::of(Value v) const {
  auto it = known.find(v);
  if (it == known.end())
    return zero();
  return it->second;
}

bool TangentBuilder::isZero(const Tangent &t) {
  return llvm::all_of(t, [](Value v) { return !v; });
}

Tangent TangentBuilder::scale(const Tangent &t, Value factor) {
  Tangent r = zero();
  for (unsigned i = 0; i < numSeeds; ++i)
    r[i] = z.mul(t[i], factor);
  return r;
}

Tangent TangentBuilder::combine(const Tangent &x, const Tangent &y,
                                bool subtract) {
  Tangent r = zero();
  for (unsigned i = 0; i < numSeeds; ++i)
    r[i] = subtract ? z.sub(x[i], y[i]) : z.add(x[i], y[i]);
  return r;
}

Tangent TangentBuilder::map(const Tangent &t,
                            llvm::function_ref<Value(Value)> fn) {
  Tangent r = zero();
  for (unsigned i = 0; i < numSeeds; ++i)
    r[i] = fn(t[i]);
  return r;
}
