//===- GpuCompileOptions.cpp - how GPU variants are compiled --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Target/GpuCompileOptions.h"

#include "llvm/Support/ErrorHandling.h"

using namespace easyml;

llvm::StringRef easyml::stringifyGpuFormat(GpuFormat format) {
  switch (format) {
  case GpuFormat::Default:
    return "default";
  case GpuFormat::Fatbin:
    return "fatbin";
  case GpuFormat::Bin:
    return "bin";
  case GpuFormat::Isa:
    return "isa";
  case GpuFormat::Llvm:
    return "llvm";
  }
  llvm_unreachable("unknown GPU code object format");
}
