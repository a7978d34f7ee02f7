//===- ConjugateGradient.cpp - a matrix-free conjugate gradient -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "ConjugateGradient.h"

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

CgResult ConjugateGradient::solve(int64_t n, double *x, const double *b,
                                  double *r, double *q, double *p) const {
  CgResult res;
  auto on = [&](int64_t i) { return !mask || (mask[i] & maskBit); };
  // Start from x: r = b - M x.
  if (!apply(x, q))
    return res.applied = false, res;
  for (int64_t i = 0; i < n; ++i)
    p[i] = r[i] = b[i] - q[i];
  res.rr = dot(r, r);
  res.bb = std::max(dot(b, b), 1e-300);
  const double stop = tolerance * tolerance * res.bb;
  for (; res.rr > stop && res.iterations < maxIterations; ++res.iterations) {
    if (!apply(p, q))
      return res.applied = false, res;
    double alpha = res.rr / dot(p, q);
    for (int64_t i = 0; i < n; ++i)
      if (on(i)) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
      }
    double next = dot(r, r);
    double beta = next / res.rr;
    res.rr = next;
    for (int64_t i = 0; i < n; ++i)
      if (on(i))
        p[i] = r[i] + beta * p[i];
  }
  res.converged = res.rr <= stop && std::isfinite(res.rr);
  return res;
}
