//===- DeviceSpec.h - the devices a simulation asks for --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A device list parsed once: "cpu" (the CPU pool), "cpu:VARIANT@THREADS",
// "gpu:0,2" (GPUs the model has a variant for, CUDA ones first), "gpu:all",
// "cuda:1", "rocm:all", combinations joined by '+' ("cpu+gpu:all"), and
// "auto" (the runtime chooses: resource dimensioning). Clients (the tool,
// Python, the C API) give a string or build one with cpu() and gpu();
// selectDevices() opens what it names.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_DEVICESPEC_H
#define EASYML_RUNTIME_DEVICESPEC_H

#include "easyml/ABI/Backend.h"

#include <string>
#include <vector>

namespace easyml::rt {

struct DeviceSpec {
  struct Item {
    enum class Kind {
      Cpu,    // a CPU pool
      Auto,   // the runtime chooses
      AnyGpu, // "gpu": GPUs of either backend
      Gpu     // GPUs of `backend`
    };
    Kind kind = Kind::Cpu;
    Backend backend = Backend::Cpu;
    /// GPUs: every one, or these (indices among the GPUs meant).
    bool all = true;
    std::vector<int> indices;
    /// CPU pools: the variant ("": the options' cpuVariant) and threads
    /// (0: the options' threads).
    std::string variant;
    int threads = 0;
    std::string text; // as written
  };
  std::vector<Item> items;
  std::string text;  // the whole list as written
  std::string error; // why the text does not parse ("" when it does)

  DeviceSpec() : DeviceSpec("cpu") {}
  /// Parses `text`; a bad one keeps its error for selectDevices() to say.
  DeviceSpec(const std::string &text);
  DeviceSpec(const char *text) : DeviceSpec(std::string(text)) {}

  /// The CPU pool alone.
  static DeviceSpec cpu() { return DeviceSpec("cpu"); }
  /// GPU `index` of `backend`.
  static DeviceSpec gpu(Backend backend, int index) {
    return DeviceSpec(std::string(backendName(backend)) + ":" +
                      std::to_string(index));
  }
  bool valid() const { return error.empty(); }
  bool automatic() const;
  bool wantsGpu() const;
  const std::string &str() const { return text; }
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_DEVICESPEC_H
