//===- Utils.h - helpers shared by easyml transforms ----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Building blocks of the integrator expansion: re-evaluating part of a
// compute region at other state values, forward-mode differentiation of
// straight-line arith/math code, and dense linear solves unrolled at compile
// time.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DIALECT_EASYML_TRANSFORMS_UTILS_H
#define EASYML_DIALECT_EASYML_TRANSFORMS_UTILS_H

#include "easyml/Dialect/EasyML/Interfaces/DifferentiableOpInterface.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace easyml {

/// Re-evaluates values of one block with some of their inputs replaced.
/// `overrides` maps values of the block (old state reads, time) to the
/// values to use instead; `clone` copies, at the builder's insertion point,
/// every operation between the overridden values and the requested outputs
/// and returns the outputs' new values. Values that do not depend on an
/// overridden value are reused as they are.
class SliceCloner {
public:
  explicit SliceCloner(mlir::Block &block) : block(block) {}

  llvm::SmallVector<mlir::Value>
  clone(mlir::OpBuilder &builder, mlir::ArrayRef<mlir::Value> outputs,
        const llvm::DenseMap<mlir::Value, mlir::Value> &overrides);

private:
  mlir::Block &block;
};

/// Forward-mode differentiation of the straight-line code of one block,
/// by the rules of DifferentiableOpInterface. Returns, for each output, its
/// derivatives with respect to each seed (null where structurally zero), or
/// failure with a diagnostic on the first operation it cannot
/// differentiate (one without the interface, or with regions).
mlir::FailureOr<std::vector<Tangent>>
differentiate(mlir::OpBuilder &builder, mlir::Location loc,
              mlir::ArrayRef<mlir::Value> outputs,
              mlir::ArrayRef<mlir::Value> seeds);

/// A dense square matrix of f64 values; null entries are zero.
using DenseMatrix = std::vector<llvm::SmallVector<mlir::Value>>;

/// LU factorisation of a matrix built in IR, unrolled at compile time and
/// skipping structurally zero entries. With `pivoting`, partial pivoting is
/// done at run time with selects among the rows that can hold a nonzero in
/// the pivot column; without it (Markov chains, whose `I - dt*Q` is an
/// M-matrix) the pivots stay on the diagonal. Rows and columns are first
/// permuted alike into an order that limits fill-in (Markowitz counts on
/// the structure), which keeps fewer factors live and computes fewer.
class UnrolledLU {
public:
  UnrolledLU(mlir::OpBuilder &builder, mlir::Location loc, DenseMatrix a,
             bool pivoting = true);
  /// Solves A x = b.
  llvm::SmallVector<mlir::Value> solve(mlir::ArrayRef<mlir::Value> b);
  /// The smallest magnitude among the pivots (NaN-propagating).
  mlir::Value smallestPivot();
  /// Entries of the factors that are not structurally zero (the values a
  /// solve reads).
  unsigned nonZeros() const;
  /// The values a solve reads that are not constants: L below the
  /// diagonal, U above it and the pivots' reciprocals, in a fixed order
  /// (the same for every matrix of the same structure). Only without
  /// pivoting.
  llvm::SmallVector<mlir::Value> factors() const;
  /// Makes the solves read `values` in place of factors() (same order and
  /// count), e.g. factors kept from an earlier step or yielded by a region
  /// the factorisation was built in; the constants among the factors are
  /// re-created at the builder's insertion point.
  void setFactors(mlir::ArrayRef<mlir::Value> values);

private:
  mlir::OpBuilder &builder;
  mlir::Location loc;
  /// Row/column k of the factorised matrix is row/column order[k] of A.
  llvm::SmallVector<unsigned> order;
  DenseMatrix lu; // L below the diagonal (unit diagonal), U on and above.
  /// 1 / U[k][k]: the solves multiply by them (no division per solve).
  llvm::SmallVector<mlir::Value> invPivots;
  /// Row exchanges: at step k, row k was exchanged with candidate row r
  /// where the condition holds.
  struct Swap {
    unsigned k;
    llvm::SmallVector<std::pair<unsigned, mlir::Value>> candidates;
  };
  std::vector<Swap> swaps;
};

} // namespace easyml

#endif // EASYML_DIALECT_EASYML_TRANSFORMS_UTILS_H
