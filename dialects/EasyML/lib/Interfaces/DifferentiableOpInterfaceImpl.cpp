//===- DifferentiableOpInterfaceImpl.cpp - rules of arith and math ops ----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The derivative rules of the arith and math operations, attached to them
// as external models. Each rule builds the operations of its derivative in
// a fixed order (named temporaries, not nested calls whose argument order
// the compiler chooses), so the Jacobian code is the same with any host
// compiler.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/Interfaces/DifferentiableOpInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

#include <cmath>

using namespace mlir;
using namespace easyml;

namespace {

//===----------------------------------------------------------------------===//
// One operand: d f(x) = f'(x) dx
//===----------------------------------------------------------------------===//

// f'(x) for each operation of one operand, built from x = op's operand and
// y = its result.
Value derivativeOf(math::ExpOp op, TangentBuilder &t) { return op; }
Value derivativeOf(math::ExpM1Op op, TangentBuilder &t) {
  Value one = t.z.cst(1.0);
  return t.z.add(op, one);
}
Value derivativeOf(math::Exp2Op op, TangentBuilder &t) {
  Value ln2 = t.z.cst(std::log(2.0));
  return t.z.mul(op, ln2);
}
Value derivativeOf(math::LogOp op, TangentBuilder &t) {
  Value one = t.z.cst(1.0);
  return t.z.div(one, op.getOperand());
}
Value derivativeOf(math::Log10Op op, TangentBuilder &t) {
  Value c = t.z.cst(1.0 / std::log(10.0));
  return t.z.div(c, op.getOperand());
}
Value derivativeOf(math::Log2Op op, TangentBuilder &t) {
  Value c = t.z.cst(1.0 / std::log(2.0));
  return t.z.div(c, op.getOperand());
}
Value derivativeOf(math::Log1pOp op, TangentBuilder &t) {
  Value one = t.z.cst(1.0);
  Value onePlusX = t.z.add(op.getOperand(), t.z.cst(1.0));
  return t.z.div(one, onePlusX);
}
Value derivativeOf(math::SqrtOp op, TangentBuilder &t) {
  Value half = t.z.cst(0.5);
  return t.z.div(half, op);
}
Value derivativeOf(math::CbrtOp op, TangentBuilder &t) {
  Value third = t.z.cst(1.0 / 3.0);
  Value y2 = t.z.mul(op, op);
  return t.z.div(third, y2);
}
Value derivativeOf(math::SinOp op, TangentBuilder &t) {
  return t.builder().create<math::CosOp>(t.loc(), op.getOperand());
}
Value derivativeOf(math::CosOp op, TangentBuilder &t) {
  Value sin = t.builder().create<math::SinOp>(t.loc(), op.getOperand());
  return t.z.neg(sin);
}
Value derivativeOf(math::TanOp op, TangentBuilder &t) {
  Value one = t.z.cst(1.0);
  Value y2 = t.z.mul(op, op);
  return t.z.add(one, y2);
}
/// asin: 1 / sqrt(1 - x^2); acos: -1 / sqrt(1 - x^2).
template <typename OpT>
Value inverseSineDerivative(OpT op, TangentBuilder &t, double sign) {
  Value num = t.z.cst(sign);
  Value one = t.z.cst(1.0);
  Value x2 = t.z.mul(op.getOperand(), op.getOperand());
  Value root = t.builder().create<math::SqrtOp>(t.loc(), t.z.sub(one, x2));
  return t.z.div(num, root);
}
Value derivativeOf(math::AsinOp op, TangentBuilder &t) {
  return inverseSineDerivative(op, t, 1.0);
}
Value derivativeOf(math::AcosOp op, TangentBuilder &t) {
  return inverseSineDerivative(op, t, -1.0);
}
Value derivativeOf(math::AtanOp op, TangentBuilder &t) {
  Value num = t.z.cst(1.0);
  Value one = t.z.cst(1.0);
  Value x2 = t.z.mul(op.getOperand(), op.getOperand());
  return t.z.div(num, t.z.add(one, x2));
}
Value derivativeOf(math::SinhOp op, TangentBuilder &t) {
  return t.builder().create<math::CoshOp>(t.loc(), op.getOperand());
}
Value derivativeOf(math::CoshOp op, TangentBuilder &t) {
  return t.builder().create<math::SinhOp>(t.loc(), op.getOperand());
}
Value derivativeOf(math::TanhOp op, TangentBuilder &t) {
  Value one = t.z.cst(1.0);
  Value y2 = t.z.mul(op, op);
  return t.z.sub(one, y2);
}
/// The sign of x, with +1 at 0 (a subgradient).
Value derivativeOf(math::AbsFOp op, TangentBuilder &t) {
  OpBuilder &b = t.builder();
  Value zero = t.z.cst(0.0);
  Value negative = b.create<arith::CmpFOp>(t.loc(), arith::CmpFPredicate::OLT,
                                           op.getOperand(), zero);
  Value minusOne = t.z.cst(-1.0);
  Value plusOne = t.z.cst(1.0);
  return b.create<arith::SelectOp>(t.loc(), negative, minusOne, plusOne);
}
/// 2/sqrt(pi) exp(-x^2).
Value derivativeOf(math::ErfOp op, TangentBuilder &t) {
  Value x2 = t.z.mul(op.getOperand(), op.getOperand());
  Value e = t.builder().create<math::ExpOp>(t.loc(), t.z.neg(x2));
  Value c = t.z.cst(2.0 / std::sqrt(M_PI));
  return t.z.mul(c, e);
}

template <typename OpT>
struct ChainRule
    : public DifferentiableOpInterface::ExternalModel<ChainRule<OpT>, OpT> {
  FailureOr<Tangent> differentiate(Operation *op, TangentBuilder &t) const {
    Tangent dx = t.of(op->getOperand(0));
    Value factor = derivativeOf(cast<OpT>(op), t);
    return t.scale(dx, factor);
  }
};

/// Floor, conversions from integers, constants: zero almost everywhere.
template <typename OpT>
struct PiecewiseConstant
    : public DifferentiableOpInterface::ExternalModel<PiecewiseConstant<OpT>,
                                                      OpT> {
  FailureOr<Tangent> differentiate(Operation *, TangentBuilder &t) const {
    return t.zero();
  }
};

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

template <typename OpT, bool Subtract>
struct SumRule
    : public DifferentiableOpInterface::ExternalModel<SumRule<OpT, Subtract>,
                                                      OpT> {
  FailureOr<Tangent> differentiate(Operation *op, TangentBuilder &t) const {
    return t.combine(t.of(op->getOperand(0)), t.of(op->getOperand(1)),
                     Subtract);
  }
};

struct NegRule
    : public DifferentiableOpInterface::ExternalModel<NegRule, arith::NegFOp> {
  FailureOr<Tangent> differentiate(Operation *op, TangentBuilder &t) const {
    return t.map(t.of(op->getOperand(0)), [&](Value v) { return t.z.neg(v); });
  }
};

/// d(a b) = b da + a db.
struct ProductRule
    : public DifferentiableOpInterface::ExternalModel<ProductRule,
                                                      arith::MulFOp> {
  FailureOr<Tangent> differentiate(Operation *op, TangentBuilder &t) const {
    Value a = op->getOperand(0), b = op->getOperand(1);
    Tangent first = t.scale(t.of(a), b);
    Tangent second = t.scale(t.of(b), a);
    return t.combine(first, second, false);
  }
};

/// d(a/b) = (da - (a/b) db) / b.
struct QuotientRule
    : public DifferentiableOpInterface::ExternalModel<QuotientRule,
                                                      arith::DivFOp> {
  FailureOr<Tangent> differentiate(Operation *op, TangentBuilder &t) const {
    Value b = op->getOperand(1);
    Tangent scaled = t.scale(t.of(b), op->getResult(0));
    Tangent num = t.combine(t.of(op->getOperand(0)), scaled, true);
    return t.map(num, [&](Value v) { return t.z.div(v, b); });
  }
};

/// The tangent of the side taken; `pick` selects the first.
Tangent selectTangents(TangentBuilder &t, Value pick, const Tangent &first,
                       const Tangent &second) {
  Tangent r = t.zero();
  for (unsigned i = 0; i < r.size(); ++i) {
    if (!first[i] && !second[i])
      continue;
    Value a = t.z.value(first[i]);
    Value c = t.z.value(second[i]);
    r[i] = t.builder().create<arith::SelectOp>(t.loc(), pick, a, c);
  }
  return r;
}

struct SelectRule
    : public DifferentiableOpInterface::ExternalModel<SelectRule,
                                                      arith::SelectOp> {
  FailureOr<Tangent> differentiate(Operation *op, TangentBuilder &t) const {
    auto select = cast<arith::SelectOp>(op);
    return selectTangents(t, select.getCondition(), t.of(select.getTrueValue()),
                          t.of(select.getFalseValue()));
  }
};

/// min/max: the tangent of the operand chosen (the first on a tie).
template <typename OpT, bool IsMin>
struct ExtremumRule
    : public DifferentiableOpInterface::ExternalModel<ExtremumRule<OpT, IsMin>,
                                                      OpT> {
  FailureOr<Tangent> differentiate(Operation *op, TangentBuilder &t) const {
    Value a = op->getOperand(0), b = op->getOperand(1);
    Value pickFirst = t.builder().create<arith::CmpFOp>(
        t.loc(), IsMin ? arith::CmpFPredicate::OLE : arith::CmpFPredicate::OGE,
        a, b);
    return selectTangents(t, pickFirst, t.of(a), t.of(b));
  }
};

/// d(a^c) = c a^(c-1) da + a^c ln(a) dc.
struct PowerRule
    : public DifferentiableOpInterface::ExternalModel<PowerRule, math::PowFOp> {
  FailureOr<Tangent> differentiate(Operation *op, TangentBuilder &t) const {
    OpBuilder &b = t.builder();
    Value a = op->getOperand(0), c = op->getOperand(1);
    Tangent da = t.of(a), dc = t.of(c);
    Tangent r = t.zero();
    if (!TangentBuilder::isZero(da)) {
      Value one = t.z.cst(1.0);
      Value pm1 = b.create<math::PowFOp>(t.loc(), a, t.z.sub(c, one));
      r = t.scale(da, t.z.mul(c, pm1));
    }
    if (!TangentBuilder::isZero(dc)) {
      Value lg = b.create<math::LogOp>(t.loc(), a);
      Tangent scaled = t.scale(dc, t.z.mul(op->getResult(0), lg));
      r = t.combine(r, scaled, false);
    }
    return r;
  }
};

/// atan2(y, x): (x dy - y dx) / (x^2 + y^2).
struct Atan2Rule
    : public DifferentiableOpInterface::ExternalModel<Atan2Rule,
                                                      math::Atan2Op> {
  FailureOr<Tangent> differentiate(Operation *op, TangentBuilder &t) const {
    Value y = op->getOperand(0), x = op->getOperand(1);
    Value y2 = t.z.mul(y, y);
    Value x2 = t.z.mul(x, x);
    Value r2 = t.z.add(y2, x2);
    Tangent xdy = t.scale(t.of(y), x);
    Tangent ydx = t.scale(t.of(x), y);
    Tangent num = t.combine(xdy, ydx, true);
    return t.map(num, [&](Value v) { return t.z.div(v, r2); });
  }
};

template <template <typename> class Model, typename... Ops>
void attach(MLIRContext *ctx) {
  (Ops::template attachInterface<Model<Ops>>(*ctx), ...);
}

} // namespace

void easyml::registerDifferentiableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    arith::AddFOp::attachInterface<SumRule<arith::AddFOp, false>>(*ctx);
    arith::SubFOp::attachInterface<SumRule<arith::SubFOp, true>>(*ctx);
    arith::NegFOp::attachInterface<NegRule>(*ctx);
    arith::MulFOp::attachInterface<ProductRule>(*ctx);
    arith::DivFOp::attachInterface<QuotientRule>(*ctx);
    arith::SelectOp::attachInterface<SelectRule>(*ctx);
    arith::MinNumFOp::attachInterface<ExtremumRule<arith::MinNumFOp, true>>(
        *ctx);
    arith::MinimumFOp::attachInterface<ExtremumRule<arith::MinimumFOp, true>>(
        *ctx);
    arith::MaxNumFOp::attachInterface<ExtremumRule<arith::MaxNumFOp, false>>(
        *ctx);
    arith::MaximumFOp::attachInterface<ExtremumRule<arith::MaximumFOp, false>>(
        *ctx);
    attach<PiecewiseConstant, arith::UIToFPOp, arith::SIToFPOp,
           arith::ConstantOp>(ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attach<ChainRule, math::ExpOp, math::ExpM1Op, math::Exp2Op, math::LogOp,
           math::Log10Op, math::Log2Op, math::Log1pOp, math::SqrtOp,
           math::CbrtOp, math::SinOp, math::CosOp, math::TanOp, math::AsinOp,
           math::AcosOp, math::AtanOp, math::SinhOp, math::CoshOp, math::TanhOp,
           math::AbsFOp, math::ErfOp>(ctx);
    math::PowFOp::attachInterface<PowerRule>(*ctx);
    math::Atan2Op::attachInterface<Atan2Rule>(*ctx);
    attach<PiecewiseConstant, math::FloorOp, math::CeilOp, math::RoundOp,
           math::TruncOp>(ctx);
  });
}
