//===- FusedStep.h - a tissue step in one pass over memory ------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The CPU pool's way to run a FusedStep (Device.h): the grid's points are
// cut into blocks of at least one stencil reach; the ionic step of block
// b+1 runs just before the diffusion of block b, whose result is committed
// to Vm once block b+1 has been diffused (it no longer needs block b's Vm
// after the ionic step), so each block's Vm is still in cache when the
// stencil reads it. Each thread owns contiguous blocks: it computes the
// ionic step of its first and last blocks, which its neighbours' stencils
// read, before the others start, and commits them after every thread has
// diffused.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_FUSEDSTEP_H
#define EASYML_RUNTIME_LIB_FUSEDSTEP_H

#include "easyml/Runtime/Devices/Device.h"

#include <functional>
#include <vector>

namespace easyml::rt {

class FusedStepRunner {
public:
  /// The ionic step of cells [begin, end) on the calling thread, storing
  /// each cell's Vm before it at vmBefore[cell] when vmBefore is not null
  /// (ABI `vm_before`).
  using IonicFn =
      std::function<void(int64_t begin, int64_t end, double *vmBefore)>;

  /// Runs `step` over `range` on up to `threads` OpenMP threads with the
  /// diffusion operator `diffuse`; blocks start on multiples of `width`
  /// cells from range.begin. Fills step.activated and step.firstBad.
  void run(FusedStep &step, CellRange range, int64_t width, int threads,
           easyml_diffuse_fn diffuse, const IonicFn &ionic);

  /// Points per block for a stencil reaching `halo` points either side.
  static int64_t blockSize(int64_t halo, int64_t width);

private:
  /// Per thread: Vm before the step and the diffused Vm of the blocks in
  /// flight (three and two ring slots) and of its two edge blocks.
  std::vector<AlignedVector> scratch_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_FUSEDSTEP_H
