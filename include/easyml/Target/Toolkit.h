//===- Toolkit.h - where GPU toolkits are ---------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Finds the toolkit each GPU variant is compiled with: the CUDA toolkit
// (ptxas, fatbinary, libdevice) or a ROCm root as MLIR's ROCDL target
// expects it (amdgcn/bitcode, llvm/bin/ld.lld). Shared by easyml-compile
// and the easyml-gpu-modules-to-binary pass.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TARGET_TOOLKIT_H
#define EASYML_TARGET_TOOLKIT_H

#include "easyml/ABI/Backend.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace easyml {

/// The toolkit root of GPU backend `backend` (cuda or rocm). With a
/// non-empty `explicitPath` only that path is considered; otherwise
/// $CUDA_PATH, $CUDA_HOME, /usr/local/cuda (cuda) or $ROCM_PATH, /opt/rocm
/// and, failing those, Debian's rocm-device-libs with ld.lld-19 linked into
/// a temporary root removed at exit (rocm). The error says what is missing
/// and how to point at it. Thread-safe; results are remembered.
llvm::Expected<std::string> findGpuToolkit(Backend backend,
                                           llvm::StringRef explicitPath = "");

/// Succeeds when `name` names a chip of GPU backend `backend`: one LLVM's
/// back end knows (cuda: NVPTX, rocm: AMDGPU), or for cuda any
/// `sm_<number>[a|f]` (PTX for the generic processor, which ptxas takes or
/// rejects: LLVM 19 does not know sm_100, CUDA 13 does). Otherwise the
/// error names the chip, the known ones one edit away, and how to list them
/// all, instead of a generic-processor build that fails late in ptxas or
/// the linker. It registers the NVPTX and AMDGPU targets' MC layers on its
/// first call, which must not run while another thread initialises LLVM
/// targets: the tools call it while checking their options, before any
/// compilation thread starts.
llvm::Error checkGpuChip(Backend backend, llvm::StringRef name);

} // namespace easyml

#endif // EASYML_TARGET_TOOLKIT_H
