//===- Backend.h - what a variant's code runs on ---------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// One enumeration of the backends, shared by the compiler (which variant
// runs where, the descriptor's easyml_variant.device), the ABI (its C
// mirror, enum easyml_device_kind) and the runtime (devices and GPU
// drivers). Header only and free of LLVM, MLIR and the runtime library.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_BACKEND_H
#define EASYML_RUNTIME_BACKEND_H

#include "easyml/ABI/ABI.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace easyml {

enum class Backend : int64_t { Cpu = 0, Cuda = 1, Rocm = 2 };

// The C mirror must agree: compiled descriptors store these numbers.
static_assert(static_cast<int64_t>(Backend::Cpu) == EASYML_DEVICE_CPU &&
                  static_cast<int64_t>(Backend::Cuda) == EASYML_DEVICE_CUDA &&
                  static_cast<int64_t>(Backend::Rocm) == EASYML_DEVICE_ROCM,
              "Backend and enum easyml_device_kind differ");

/// "cpu", "cuda", "rocm".
constexpr const char *backendName(Backend b) {
  switch (b) {
  case Backend::Cpu:
    return "cpu";
  case Backend::Cuda:
    return "cuda";
  case Backend::Rocm:
    return "rocm";
  }
  return "?";
}

/// The backend called `name`, if any.
inline std::optional<Backend> parseBackend(std::string_view name) {
  for (Backend b : {Backend::Cpu, Backend::Cuda, Backend::Rocm})
    if (name == backendName(b))
      return b;
  return std::nullopt;
}

/// The GPU backends, in the order the runtime tries them.
constexpr Backend kGpuBackends[] = {Backend::Cuda, Backend::Rocm};

/// The backend a compiled variant runs on.
inline Backend backendOf(const easyml_variant &v) {
  return static_cast<Backend>(v.device);
}

namespace rt {
using easyml::Backend;
using easyml::backendName;
using easyml::backendOf;
using easyml::kGpuBackends;
using easyml::parseBackend;
} // namespace rt

} // namespace easyml

#endif // EASYML_RUNTIME_BACKEND_H
