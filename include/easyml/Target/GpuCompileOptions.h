//===- GpuCompileOptions.h - how GPU variants are compiled ----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// One description of how the GPU variants' kernels become code objects: the
// chips and toolkit of each backend, the code object format and the device
// back ends' settings. easyml-compile fills it from its flags; the compile
// pipeline's options and the GPU stage's pass (whose options are text, for
// easyml-opt) convert to and from it, each in one place; the GPU pipelines
// are built from it.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TARGET_GPUCOMPILEOPTIONS_H
#define EASYML_TARGET_GPUCOMPILEOPTIONS_H

#include "easyml/Support/EnumOption.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace easyml {

/// The form of GPU code objects.
enum class GpuFormat {
  /// Each backend's own: fatbin for cuda, bin for rocm.
  Default,
  /// cuda: a fatbin holding the cubin and the PTX.
  Fatbin,
  /// A cubin (cuda) or an hsaco (rocm).
  Bin,
  /// PTX or GCN assembly.
  Isa,
  /// LLVM IR (gpu-module-to-binary's offload format).
  Llvm,
};

/// The format's spelling in options, gpu-module-to-binary's included.
llvm::StringRef stringifyGpuFormat(GpuFormat format);

/// The problem with the format option `option` given `value`, none of the
/// formats: "format: unknown code object format 'elf' (...)".
std::string unknownGpuFormat(llvm::StringRef option, llvm::StringRef value);

/// The spellings of the options choosing the code objects of every GPU
/// variant (default included).
inline llvm::cl::ValuesClass gpuFormatValues() {
  return llvm::cl::values(
      clEnumValN(GpuFormat::Default, "default",
                 "fatbin for cuda, bin for rocm"),
      clEnumValN(GpuFormat::Fatbin, "fatbin", "cuda: cubin + PTX"),
      clEnumValN(GpuFormat::Bin, "bin", "cubin / hsaco"),
      clEnumValN(GpuFormat::Isa, "isa", "PTX / GCN assembly"),
      clEnumValN(GpuFormat::Llvm, "llvm", "LLVM IR"));
}

/// How the GPU variants are compiled.
struct GpuCompileOptions {
  /// What one backend is built for and with.
  struct BackendOptions {
    /// Chips, in the order their code objects are embedded; empty: the
    /// backend's defaults (defaultGpuChips).
    std::vector<std::string> chips;
    /// The toolkit root; empty: looked for (findGpuToolkit).
    std::string toolkit;
  };
  BackendOptions cuda, rocm;
  GpuFormat format = GpuFormat::Default;
  /// Device code optimisation level (0-3).
  unsigned optLevel = 3;
  /// cuda: let ptxas spill registers to shared memory rather than local
  /// memory (easyml-assemble-ptx; CUDA 12.8 and later).
  bool smemSpilling = true;
  /// cuda: cap the registers of kernels that spill nothing where that
  /// raises their occupancy without spilling (easyml-assemble-ptx).
  bool registerCaps = true;
  /// cuda: keep LLVM's MachineSink on in the NVPTX back end
  /// (easyml-serialize-gpu-modules).
  bool machineSink = false;

  const BackendOptions &of(Backend backend) const;
  BackendOptions &of(Backend backend);
  /// The chips `backend` is built for: those asked for, else its defaults.
  std::vector<std::string> chipsFor(Backend backend) const;
  /// The format of `backend`'s code objects (Default resolved).
  GpuFormat formatFor(Backend backend) const;
};

/// The chips a GPU backend builds for unless told otherwise.
std::vector<std::string> defaultGpuChips(Backend backend);

/// Appends a message per chip asked of `backend` that it does not have
/// (checkGpuChip), naming the option they were given with: "cuda-chips:
/// unknown cuda chip 'sm_1x' ...".
void checkGpuChips(const GpuCompileOptions &options, Backend backend,
                   llvm::StringRef option, std::vector<std::string> &problems);

} // namespace easyml

EASYML_ENUM_OPTION_PARSER(easyml::GpuFormat);

#endif // EASYML_TARGET_GPUCOMPILEOPTIONS_H
