//===- ConjugateGradient.h - a matrix-free conjugate gradient --*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The tissue's Crank-Nicolson solve, in one process or over the block of
// one MPI rank: the caller applies the matrix (exchanging halos first
// where it must) and forms dot products (summed over the ranks where
// there are several).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_CONJUGATEGRADIENT_H
#define EASYML_RUNTIME_LIB_CONJUGATEGRADIENT_H

#include <cstdint>
#include <functional>

namespace easyml::rt {

/// What a solve did: its iterations and squared residual norms.
struct CgResult {
  bool applied = true, converged = false;
  int64_t iterations = 0;
  double rr = 0, bb = 0;
};

struct ConjugateGradient {
  /// out = M in (symmetric positive definite) over the n points; false
  /// (with the caller's error) when it cannot be applied.
  std::function<bool(const double *in, double *out)> apply;
  /// The dot product of two vectors of n points.
  std::function<double(const double *, const double *)> dot;
  /// Points that take part (a non-zero byte and'ed with `maskBit`), or
  /// null: all.
  const uint8_t *mask = nullptr;
  uint8_t maskBit = 0;
  double tolerance = 1e-10;
  int64_t maxIterations = 1000;

  /// Solves M x = b from x's value; r, q and p are n-point workspaces
  /// (p where `apply` can read its neighbours: a halo'd buffer).
  CgResult solve(int64_t n, double *x, const double *b, double *r, double *q,
               double *p) const;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_CONJUGATEGRADIENT_H
