//===- GpuResources.h - What GPU kernels use, from their code objects -----===//
//
// Registers and local memory of the kernels in a CUDA fatbin/cubin or an
// AMDGPU code object (hsaco), read from the code object itself: the cubin's
// `.nv.info` attributes, the hsaco's AMDGPU metadata note. No GPU and no
// toolkit needed. easyml-compile records the compute kernel's figures and
// the block size chosen from them in the model descriptor.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TARGET_GPURESOURCES_H
#define EASYML_TARGET_GPURESOURCES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace easyml {

struct KernelResources {
  std::string name;
  /// Registers per thread (CUDA) or vector registers per lane (AMDGPU).
  int64_t registers = 0;
  /// Local (CUDA stack frame) or private (AMDGPU scratch) memory per
  /// thread, bytes: where spilled registers go.
  int64_t localBytes = 0;
  /// Registers spilled (AMDGPU metadata: vector + scalar; CUDA code objects
  /// do not record it, -1).
  int64_t spilledRegisters = -1;
  /// The launch bound the kernel was compiled for (0: none recorded).
  int64_t maxThreads = 0;
  /// Static shared memory per block, bytes (CUDA: ptxas puts spilled
  /// registers there with enable_smem_spilling; AMDGPU: LDS).
  int64_t sharedBytes = 0;
};

/// The kernels of a code object: `format` "fatbin" or "cubin" (CUDA) or
/// "hsaco" (AMDGPU). Fails with a message on anything it cannot read.
llvm::Expected<std::vector<KernelResources>>
readKernelResources(llvm::StringRef format, llvm::StringRef data);

struct GpuImage;

/// Records in `image` what its compute kernel `kernel` uses (registers,
/// local memory) and the block size with the highest theoretical occupancy
/// within the kernels' launch bound (EASYML_GPU_MAX_BLOCK_SIZE).
llvm::Error recordKernelResources(GpuImage &image, llvm::StringRef kernel);

} // namespace easyml

#endif // EASYML_TARGET_GPURESOURCES_H
