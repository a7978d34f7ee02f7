//===- DeviceCodegen.h - LLVM back-end settings for GPU kernels -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
// Some back-end settings that suit the GPU kernels, and no other code, are
// only reachable in LLVM 19 as process-wide command-line options (the
// serialisers of gpu-module-to-binary build their own TargetMachine and
// pass pipeline). A DeviceCodegenScope sets them while a device back end
// runs and restores them after, so the host code compiled later in the
// same process is not affected.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TARGET_DEVICECODEGEN_H
#define EASYML_TARGET_DEVICECODEGEN_H

#include "llvm/Support/Error.h"

namespace easyml {

struct DeviceCodegenSettings {
  /// LLVM's MachineSink moves a value computed before a loop to the loop's
  /// exit when only the exit uses it. In a kernel, that loop is the stiff
  /// integrator's sub-step loop and the value one factor of a state update:
  /// its operands then live through the loop instead of the value, which
  /// costs registers where the kernel has none to spare (ptxas spills).
  bool machineSink = false;

  bool operator==(const DeviceCodegenSettings &o) const {
    return machineSink == o.machineSink;
  }
};

/// Holds `settings` in LLVM's options for its lifetime. Scopes with equal
/// settings may be held at once (one per serialisation thread); a scope
/// with other settings waits until those are released. Settings equal to
/// LLVM's defaults change nothing (an option given on the command line,
/// such as `--disable-machine-sink`, is left as given).
class DeviceCodegenScope {
public:
  explicit DeviceCodegenScope(const DeviceCodegenSettings &settings);
  ~DeviceCodegenScope();
  DeviceCodegenScope(const DeviceCodegenScope &) = delete;
  DeviceCodegenScope &operator=(const DeviceCodegenScope &) = delete;

  /// Whether LLVM has the options the settings need (LLVM 19 has); when it
  /// has not, the scope changes nothing and says why.
  llvm::Error status() const;

private:
  bool held = false;
  std::string missing;
};

/// Whether LLVM's MachineSink is off now (for tests).
bool machineSinkDisabled();

} // namespace easyml

#endif // EASYML_TARGET_DEVICECODEGEN_H
