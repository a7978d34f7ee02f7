//===- PtxAssembler.h - PTX to cubin/fatbin with the CUDA toolkit -*- C++
//-*-===//
//
// Part of the EasyML toolchain.
//
// LLVM writes the PTX of the cuda variant; this assembles it with the
// toolkit's ptxas (and fatbinary), after giving it what LLVM 19 cannot
// write but the toolkit can use: `.pragma "enable_smem_spilling"` in every
// kernel (PTX ISA 8.7, CUDA 12.8 and later), which lets ptxas spill
// registers to shared memory rather than to local memory.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TARGET_PTXASSEMBLER_H
#define EASYML_TARGET_PTXASSEMBLER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace easyml {

/// The CUDA release of a toolkit's ptxas ("release 13.0" -> {13, 0}).
struct CudaRelease {
  unsigned major = 0, minor = 0;
  bool atLeast(unsigned ma, unsigned mi) const {
    return major > ma || (major == ma && minor >= mi);
  }
};

/// Runs `<toolkit>/bin/ptxas --version` once per toolkit (cached).
llvm::Expected<CudaRelease> ptxasRelease(llvm::StringRef toolkit);

/// Whether a toolkit's ptxas can spill to shared memory (CUDA >= 12.8).
bool supportsSharedMemorySpilling(const CudaRelease &release);

/// PTX as handed to ptxas: NUL bytes dropped, call sites numbered from 0
/// in order (LLVM numbers them across the process, which made the text
/// differ from run to run when chips compile in parallel); with
/// `sharedMemorySpilling`,
/// `.version` raised to 8.7 where lower and `.pragma
/// "enable_smem_spilling";` at the top of every `.entry` body (kernels
/// without it are left as they are: ptxas needs launch bounds, which
/// every EasyML kernel has). Fails on text that is not PTX.
llvm::Expected<std::string> preparePtx(llvm::StringRef ptx,
                                       bool sharedMemorySpilling);

struct PtxAssembleOptions {
  std::string toolkit; // CUDA root: bin/ptxas, bin/fatbinary
  std::string chip;    // "sm_90"
  bool fatbin = true;  // cubin + PTX in a fatbin, else the cubin alone
  unsigned optLevel = 3;
  /// Register caps for occupancy: see assemblePtx.
  bool registerCaps = true;
};

/// `ptx` with `.maxnreg registers` among the performance directives of
/// kernel `kernel` (replacing one it has). Fails when there is no such
/// kernel.
llvm::Expected<std::string> capKernelRegisters(llvm::StringRef ptx,
                                               llvm::StringRef kernel,
                                               unsigned registers);

/// PTX with the register caps assemblePtx keeps (registerCaps; else the
/// PTX given) and its cubin.
struct AssembledPtx {
  std::string ptx, cubin;
};
llvm::Expected<AssembledPtx>
assembleWithRegisterCaps(llvm::StringRef ptx,
                         const PtxAssembleOptions &options);

/// Assembles prepared PTX for one chip: the cubin, or a fatbin with the
/// cubin and the PTX (for chips of later generations, through the
/// driver's JIT). Errors carry ptxas's own message.
///
/// With `registerCaps`, the compute kernel (the `.entry` named
/// `*_compute`), if it spills nothing (no local memory, no shared memory)
/// and would reach a higher occupancy with at most 1/8 fewer registers
/// (rt::gpuRegistersForHigherOccupancy, within its launch bound), is
/// assembled alone (ptxas --entry) with `.maxnreg` at that count; the cap
/// is kept if it still spills nothing, and the module assembled with it.
/// No kernel trades spills for occupancy. The PTX in the fatbin carries
/// the cap kept.
llvm::Expected<std::string> assemblePtx(llvm::StringRef ptx,
                                        const PtxAssembleOptions &options);

} // namespace easyml

#endif // EASYML_TARGET_PTXASSEMBLER_H
