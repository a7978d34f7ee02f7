//===- PhaseSpeeds.h - device speeds learned per phase of a cycle -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Under periodic pacing a cell's cost follows its action potential, and the
// two kinds of device follow it differently (the scalar code branches, the
// vector code runs its slowest lane's sub-steps), so the split that balances
// one wave does not balance the next. The cost pattern repeats every cycle:
// PhaseSpeeds learns each device's speed per phase bin of the cycle from the
// waves that ran there, and predicts the speeds of a wave to come from the
// bins it will cover. A policy object (pure logic, unit-tested); the
// scheduler splits a wave by the prediction when it pays (BalanceOptions::
// periodic).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_PHASESPEEDS_H
#define EASYML_RUNTIME_PHASESPEEDS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace easyml::rt {

class PhaseSpeeds {
public:
  /// A cycle of `period` steps starting at step `start` (the first
  /// stimulus), cut into at most `maxBins` bins, for `devices` devices.
  PhaseSpeeds(int64_t start, int64_t period, size_t devices,
              int64_t maxBins = 256);

  /// Devices ran the wave [step0, step0 + steps) at `speeds` (cell-steps
  /// per second; 0: the device did not run). Each bin the wave covers
  /// learns the device's time per cell-step (the newest cycle weighs half).
  void observe(int64_t step0, int64_t steps, const std::vector<double> &speeds);

  /// The speeds of the wave [step0, step0 + steps): per device the
  /// harmonic mean over the bins it covers, weighted by overlap. False
  /// while a covered bin lacks a measurement of a device in `devices`.
  bool predict(int64_t step0, int64_t steps, const std::vector<int> &devices,
               std::vector<double> &speeds) const;

  int64_t bins() const { return bins_; }
  int64_t binSteps() const { return binSteps_; }

private:
  /// The bins [first, last] a wave covers, and each one's overlap.
  void cover(int64_t step0, int64_t steps,
             std::vector<std::pair<int64_t, int64_t>> &out) const;

  int64_t start_, period_, binSteps_, bins_;
  size_t devices_;
  /// [bin * devices + d]: seconds per cell-step (0: never measured).
  std::vector<double> cost_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_PHASESPEEDS_H
