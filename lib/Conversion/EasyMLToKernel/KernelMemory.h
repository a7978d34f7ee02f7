//===- KernelMemory.h - how kernels address host-given memory --*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// CPU entry functions address the memory the host passes them through
// generic pointers; GPU kernels (gpu.func) in the global address space,
// and they keep cheap values out of their step loops with easyml.opaque.
// KernelMemory is that difference, shared by the kernel lowering
// (through its EntryStrategy) and the passes that lower its markers
// (easyml-lower-recording, easyml-lower-biomarkers), which tell the two
// apart by the function they are in.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_LIB_CONVERSION_EASYMLTOKERNEL_KERNELMEMORY_H
#define EASYML_LIB_CONVERSION_EASYMLTOKERNEL_KERNELMEMORY_H

#include "mlir/IR/Builders.h"

namespace easyml::kernel {

/// How one kind of entry function addresses host-given memory.
class KernelMemory {
public:
  explicit KernelMemory(bool gpu) : gpu(gpu) {}

  /// The memory of the entry function `op` is in: a GPU kernel's when it
  /// is in a gpu.func, else a CPU function's.
  static KernelMemory of(mlir::Operation *op);

  /// `pointer`, a pointer the host passed in, as the kernels address it
  /// (GPU: cast to the global address space).
  mlir::Value hostGiven(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value pointer) const;

  /// The memory space of views of host-given memory (null: the default).
  mlir::Attribute memorySpace(mlir::OpBuilder &b) const;

  /// A copy of `v` the optimisers cannot see through in a GPU kernel
  /// (easyml.opaque), so what is computed from it stays where it is used;
  /// `v` itself on the CPU.
  mlir::Value keepLocal(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value v) const;

private:
  bool gpu;
};

/// A memref view of f64 storage at the host-given `ptr` (already as the
/// kernels address it): sizes `sizes`, row-major with the given leading
/// strides and a unit innermost stride, in memory space `space`. Loads and
/// stores through it are lowered by the upstream memref and vector
/// conversions; the sizes are only metadata.
mlir::Value memoryView(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                       llvm::ArrayRef<mlir::Value> sizes,
                       llvm::ArrayRef<mlir::Value> strides,
                       mlir::Attribute space);

} // namespace easyml::kernel

#endif // EASYML_LIB_CONVERSION_EASYMLTOKERNEL_KERNELMEMORY_H
