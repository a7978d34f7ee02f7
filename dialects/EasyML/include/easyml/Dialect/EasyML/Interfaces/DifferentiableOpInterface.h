//===- DifferentiableOpInterface.h - forward-mode derivatives -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The derivative rules the stiff integrators differentiate a model's rates
// with: an op interface (DifferentiableOpInterface.td), the tangent algebra
// its implementations build with (null values are structural zeros, so
// terms that cannot contribute are never built), and the registration of
// the rules of the arith and math operations as external models.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DIALECT_EASYML_INTERFACES_DIFFERENTIABLEOPINTERFACE_H
#define EASYML_DIALECT_EASYML_INTERFACES_DIFFERENTIABLEOPINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace easyml {

/// Tangents of a value with respect to `n` seeds; a null entry is zero.
using Tangent = llvm::SmallVector<mlir::Value>;

/// True when `v` is the constant `c` (a null value is the constant 0).
bool isConstant(mlir::Value v, double c);

/// Arithmetic helpers that treat a null value as the constant zero and fold
/// trivial cases, so structurally zero terms vanish. This is symbolic
/// sparsity, not IEEE folding: 0 * x is dropped for any x.
struct ZeroAwareBuilder {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Value cst(double v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value div(mlir::Value x, mlir::Value y);
  mlir::Value neg(mlir::Value x);
  /// Returns `x`, or a materialised zero where `x` is null.
  mlir::Value value(mlir::Value x);
};

/// What a derivative rule builds with: the tangents known so far, the
/// number of seeds, and elementwise tangent arithmetic that skips zeros.
/// New operations go to the builder's insertion point, at the
/// differentiator's location.
class TangentBuilder {
public:
  TangentBuilder(mlir::OpBuilder &builder, mlir::Location loc,
                 unsigned numSeeds,
                 const llvm::DenseMap<mlir::Value, Tangent> &known)
      : z{builder, loc}, numSeeds(numSeeds), known(known) {}

  /// The tangent of `v` (all zeros where it does not depend on a seed).
  Tangent of(mlir::Value v) const;
  /// A tangent with every entry zero.
  Tangent zero() const { return Tangent(numSeeds); }
  static bool isZero(const Tangent &t);

  /// `factor * t`, elementwise.
  Tangent scale(const Tangent &t, mlir::Value factor);
  /// `x + y` or `x - y`, elementwise.
  Tangent combine(const Tangent &x, const Tangent &y, bool subtract);
  /// `fn` applied to each entry (zero entries are passed as null).
  Tangent map(const Tangent &t,
              llvm::function_ref<mlir::Value(mlir::Value)> fn);

  mlir::OpBuilder &builder() { return z.b; }
  mlir::Location loc() const { return z.loc; }

  /// Zero-aware scalar arithmetic at the insertion point.
  ZeroAwareBuilder z;

private:
  unsigned numSeeds;
  const llvm::DenseMap<mlir::Value, Tangent> &known;
};

/// Attaches the derivative rules of the arith and math operations a model
/// uses (DifferentiableOpInterfaceImpl.cpp).
void registerDifferentiableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

} // namespace easyml

#include "easyml/Dialect/EasyML/Interfaces/DifferentiableOpInterface.h.inc"

#endif // EASYML_DIALECT_EASYML_INTERFACES_DIFFERENTIABLEOPINTERFACE_H
