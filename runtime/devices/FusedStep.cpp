//===- FusedStep.cpp - a tissue step in one pass over memory ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "FusedStep.h"

#include "easyml/Runtime/Devices/HostCpus.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <omp.h>

using namespace easyml::rt;

namespace {

/// Points per block at least (about 100 KB of the arrays a block touches
/// stay in the core's cache between its ionic step and its commit).
constexpr int64_t kBlockPoints = 4096;

/// Slots of a thread's scratch, each one block: Vm before the step of the
/// interior blocks in flight (a ring of 3) and their diffused Vm (a ring of
/// 2), then the same for its first and last blocks.
enum Slot { kOldRing = 0, kOutRing = 3, kOldFirst = 5, kOldLast, kOutFirst,
            kOutLast, kSlots };

/// Copies `n` new values of Vm into place and says whether one of them is
/// not finite or crosses `threshold` upwards from `old`: one loop the
/// compiler vectorises (as wide as the machine allows).
__attribute__((target_clones("avx512f", "avx2", "default"))) bool
commitChunk(double *vm, const double *v, const double *old, int64_t n,
            double threshold) {
  int hit = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = v[i];
    vm[i] = x;
    hit |= !(x - x == 0) | ((old[i] < threshold) & (x >= threshold));
  }
  return hit != 0;
}

/// One thread's share of the pass: blocks [first, last) of the range.
class ThreadPass {
public:
  ThreadPass(FusedStep &step, easyml_diffuse_fn diffuse,
             const FusedStepRunner::IonicFn &ionic, CellRange range,
             int64_t block, double *scratch)
      : step_(step), diffuse_(diffuse), ionic_(ionic), range_(range),
        block_(block), scratch_(scratch), vm_(step.diffusion.hostVm) {}

  int64_t found = 0, bad = INT64_MAX;

  void run(int64_t first, int64_t last) {
    first_ = first;
    last_ = last;
    // The blocks the neighbours' stencils read, before they diffuse.
    ionicStep(first);
    if (last - first > 1)
      ionicStep(last - 1);
#pragma omp barrier
    for (int64_t b = first; b < last; ++b) {
      if (b + 1 < last - 1)
        ionicStep(b + 1);
      diffuseBlock(b);
      // Block b's stencil was the last to read block b - 1's Vm.
      if (b - 1 > first)
        commit(b - 1);
    }
#pragma omp barrier
    commit(first);
    if (last - first > 1)
      commit(last - 1);
  }

private:
  int64_t begin(int64_t b) const { return range_.begin + b * block_; }
  int64_t end(int64_t b) const {
    return std::min(range_.end, range_.begin + (b + 1) * block_);
  }
  double *slot(int k) { return scratch_ + k * block_; }
  double *before(int64_t b) {
    return b == first_      ? slot(kOldFirst)
           : b == last_ - 1 ? slot(kOldLast)
                            : slot(kOldRing + b % 3);
  }
  double *after(int64_t b) {
    return b == first_      ? slot(kOutFirst)
           : b == last_ - 1 ? slot(kOutLast)
                            : slot(kOutRing + b % 2);
  }

  /// The kernel keeps Vm before the step, which the activation test
  /// compares with, as it reads it: no copy of its own.
  void ionicStep(int64_t b) {
    ionic_(begin(b), end(b), step_.activation ? before(b) - begin(b) : nullptr);
  }

  void diffuseBlock(int64_t b) {
    easyml_diffusion_args a = step_.diffusion.grid;
    a.begin = begin(b);
    a.end = end(b);
    a.v = vm_;
    // The operator writes out[p] for the block's points p.
    a.out = after(b) - a.begin;
    a.flags = step_.diffusion.flags;
    a.src = step_.diffusion.src;
    diffuse_(&a);
  }

  void commit(int64_t b) {
    const int64_t p0 = begin(b), n = end(b) - p0;
    const double *out = after(b);
    if (!step_.activation) {
      std::memcpy(vm_ + p0, out, n * sizeof(double));
      return;
    }
    const double *old = before(b);
    constexpr int64_t kChunk = 64;
    for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
      const int64_t e = std::min(n, i0 + kChunk);
      if (commitChunk(vm_ + p0 + i0, out + i0, old + i0, e - i0,
                      step_.threshold))
        activate(p0 + i0, e - i0, out + i0, old + i0);
    }
  }

  /// The tissue's activation pass (Tissue::updateActivation) over points
  /// whose chunk has a crossing or a non-finite value.
  void activate(int64_t p0, int64_t n, const double *v, const double *old) {
    const double thr = step_.threshold;
    for (int64_t i = 0; i < n; ++i) {
      if (!std::isfinite(v[i]))
        bad = std::min(bad, p0 + i);
      double *lat = step_.lat + p0 + i;
      if (old[i] < thr && v[i] >= thr && std::isnan(*lat)) {
        *lat = step_.t1 - step_.dt * (v[i] - thr) / (v[i] - old[i]);
        ++found;
      }
    }
  }

  FusedStep &step_;
  easyml_diffuse_fn diffuse_;
  const FusedStepRunner::IonicFn &ionic_;
  CellRange range_;
  int64_t block_;
  double *scratch_;
  double *vm_;
  int64_t first_ = 0, last_ = 0;
};

} // namespace

int64_t FusedStepRunner::blockSize(int64_t halo, int64_t width) {
  int64_t b = std::max(halo, kBlockPoints);
  return (b + width - 1) / width * width;
}

void FusedStepRunner::run(FusedStep &step, CellRange range, int64_t width,
                          int threads, easyml_diffuse_fn diffuse,
                          const IonicFn &ionic) {
  step.activated = 0;
  step.firstBad = -1;
  if (range.empty())
    return;
  const int64_t block = blockSize(std::max<int64_t>(1, step.diffusion.halo),
                                  std::max<int64_t>(1, width));
  const int64_t blocks = (range.size() + block - 1) / block;
  // Every thread at least one block: a block is as long as the stencil's
  // reach, so a stencil reads no further than the neighbours' edge blocks.
  const int nt =
      static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, blocks)));
  if (static_cast<int>(scratch_.size()) < nt)
    scratch_.resize(nt);
  for (int t = 0; t < nt; ++t)
    if (static_cast<int64_t>(scratch_[t].size()) < kSlots * block)
      scratch_[t].assign(kSlots * block, 0.0);
  int64_t found = 0, bad = INT64_MAX;
  const PoolBinding bind = PoolBinding::current();
#pragma omp parallel num_threads(nt) reduction(+ : found) reduction(min : bad)
  {
    bind.hold();
    const int t = omp_get_thread_num(), n = omp_get_num_threads();
    ThreadPass pass(step, diffuse, ionic, range, block, scratch_[t].data());
    pass.run(blocks * t / n, blocks * (t + 1) / n);
    found += pass.found;
    bad = std::min(bad, pass.bad);
  }
  step.activated = found;
  step.firstBad = bad == INT64_MAX ? -1 : bad;
}
