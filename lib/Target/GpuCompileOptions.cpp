//===- GpuCompileOptions.cpp - how GPU variants are compiled --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Target/GpuCompileOptions.h"

#include "easyml/Target/Toolkit.h"

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

std::string easyml::unknownGpuFormat(llvm::StringRef option,
                                     llvm::StringRef value) {
  return option.str() + ": unknown code object format '" + value.str() +
         "' (fatbin, bin, isa or llvm)";
}

const GpuCompileOptions::BackendOptions &
GpuCompileOptions::of(Backend backend) const {
  switch (backend) {
  case Backend::Cuda:
    return cuda;
  case Backend::Rocm:
    return rocm;
  case Backend::Cpu:
    break;
  }
  llvm_unreachable("GPU compile options of the cpu backend");
}

GpuCompileOptions::BackendOptions &GpuCompileOptions::of(Backend backend) {
  return const_cast<BackendOptions &>(
      static_cast<const GpuCompileOptions *>(this)->of(backend));
}

std::vector<std::string> GpuCompileOptions::chipsFor(Backend backend) const {
  const std::vector<std::string> &chips = of(backend).chips;
  return chips.empty() ? defaultGpuChips(backend) : chips;
}

GpuFormat GpuCompileOptions::formatFor(Backend backend) const {
  if (format != GpuFormat::Default)
    return format;
  return backend == Backend::Rocm ? GpuFormat::Bin : GpuFormat::Fatbin;
}

std::vector<std::string> easyml::defaultGpuChips(Backend backend) {
  switch (backend) {
  case Backend::Cuda:
    return {"sm_80", "sm_90"};
  case Backend::Rocm:
    return {"gfx90a", "gfx942"};
  case Backend::Cpu:
    break;
  }
  llvm_unreachable("GPU chips of the cpu backend");
}

void easyml::checkGpuChips(const GpuCompileOptions &options, Backend backend,
                           llvm::StringRef option,
                           std::vector<std::string> &problems) {
  for (const std::string &chip : options.of(backend).chips)
    if (llvm::Error e = checkGpuChip(backend, chip))
      problems.push_back(option.str() + ": " + llvm::toString(std::move(e)));
}
