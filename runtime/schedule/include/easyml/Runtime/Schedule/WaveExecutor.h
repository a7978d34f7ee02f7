//===- WaveExecutor.h - one wave on every device at once --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Runs one wave (init, eval or compute steps) on every device of a
// DeviceTeam at once: the GPUs' work is queued first, the host's devices
// compute while it runs (two host pools side by side may share the wave,
// SharedWave), then every device is joined. A device that fails the wave
// goes to the recovery policy; a compute wave is then counted in the
// report, checked for non-finite values and handed to the partitioner.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SCHEDULE_WAVEEXECUTOR_H
#define EASYML_RUNTIME_SCHEDULE_WAVEEXECUTOR_H

#include "easyml/Runtime/Schedule/DeviceTeam.h"

#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

class Partitioner;
class RecoveryPolicy;
class SharedWave;

class WaveExecutor {
public:
  WaveExecutor(DeviceTeam &team, Partitioner &partitioner,
               RecoveryPolicy &recovery);
  ~WaveExecutor();

  /// One wave on every active device. False with the team's failure, or
  /// with nonFinite() set when the model blew up.
  bool run(const WaveTask &task);

  /// Where the model first produced a non-finite value (null: nowhere).
  const NonFinite *nonFinite() const { return bad_.get(); }
  void clearNonFinite() { bad_.reset(); }
  /// Milliseconds the GPUs spent in compute kernels; seconds of compute
  /// waves.
  double gpuKernelMs() const { return gpuKernelMs_; }
  double computeSeconds() const { return computeSeconds_; }

private:
  bool joinAll(const WaveTask &task, const std::vector<int> &act,
               std::vector<WaveTiming> &timing, std::vector<std::string> &errs,
               std::vector<char> &failed);
  bool finish(const WaveTask &task, const std::vector<int> &act, double wall,
              std::vector<WaveTiming> &timing);
  bool checkFinite(const WaveTask &task, const std::vector<int> &act,
                   const std::vector<WaveTiming> &timing);

  DeviceTeam &team_;
  Partitioner &partitioner_;
  RecoveryPolicy &recovery_;
  std::unique_ptr<SharedWave> shared_;
  /// The wave running now is shared by two host devices.
  bool waveShared_ = false;
  std::unique_ptr<NonFinite> bad_;
  double gpuKernelMs_ = 0, computeSeconds_ = 0;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SCHEDULE_WAVEEXECUTOR_H
