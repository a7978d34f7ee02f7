//===- GpuCompileOptions.h - how GPU variants are compiled ----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The choices of how the GPU variants' kernels become code objects that
// several layers share: easyml-compile, the compile pipeline's options and
// the passes of the GPU stage.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TARGET_GPUCOMPILEOPTIONS_H
#define EASYML_TARGET_GPUCOMPILEOPTIONS_H

#include "easyml/Support/EnumOption.h"

#include "llvm/ADT/StringRef.h"

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

} // namespace easyml

EASYML_ENUM_OPTION_PARSER(easyml::GpuFormat);

#endif // EASYML_TARGET_GPUCOMPILEOPTIONS_H
