//===- GridOperator.cpp - a tissue's operator on the host -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "GridOperator.h"

#include "easyml/Runtime/Devices/HostCpus.h"

#include <algorithm>

using namespace easyml::rt;

void GridOperator::apply(const double *v, double *out, const double c[3],
                         const double *src) const {
  const int64_t n = grid_.points();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  easyml_diffusion_args base{};
  base.sx = 1;
  base.sy = grid_.n[0];
  base.sz = grid_.n[0] * grid_.n[1];
  base.cx = c[0];
  base.cy = c[1];
  base.cz = c[2];
  base.v = v;
  base.out = out;
  base.flags = flags_.data();
  base.src = src;
  // num_threads takes a positive count: the default team where unset.
  const int threads = cpuThreads(options_.threads);
  const PoolBinding bind = PoolBinding::current();
#pragma omp parallel num_threads(threads) if (threads != 1 && chunks > 1)
  {
    bind.hold();
#pragma omp for schedule(static)
    for (int64_t k = 0; k < chunks; ++k) {
      easyml_diffusion_args a = base;
      a.begin = k * kChunk;
      a.end = std::min(n, a.begin + kChunk);
      diffuse_(a);
    }
  }
}

double GridOperator::dot(const double *a, const double *b) const {
  const int64_t n = grid_.points();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> part(chunks, 0.0);
  const int threads = cpuThreads(options_.threads);
  const PoolBinding bind = PoolBinding::current();
#pragma omp parallel num_threads(threads) if (threads != 1 && chunks > 1)
  {
    bind.hold();
#pragma omp for schedule(static)
    for (int64_t k = 0; k < chunks; ++k) {
      double sum = 0;
      for (int64_t i = k * kChunk, e = std::min(n, i + kChunk); i < e; ++i)
        sum += a[i] * b[i];
      part[k] = sum;
    }
  }
  double total = 0;
  for (double x : part)
    total += x;
  return total;
}
