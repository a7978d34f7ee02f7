//===- Dimensioner.h - how many GPUs, and the CPU or not ------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Resource dimensioning (after Alba et al. 2024): measure the simulation's
// throughput on short windows of steps with candidate device sets; search
// the number of GPUs dichotomically starting from all of them (the fewest
// GPUs within `tolerance` of the best throughput measured), then decide
// whether adding the CPU pool helps. At most 2 + ceil(log2(GPUs)) windows.
// Only policy lives here: the scheduler runs the windows.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_DIMENSIONER_H
#define EASYML_RUNTIME_DIMENSIONER_H

#include <cstdint>
#include <string>
#include <vector>

namespace easyml::rt {

struct DimensionOptions {
  /// Steps per measurement window.
  int64_t windowSteps = 300;
  /// Fewer GPUs are preferred while within this fraction of the best.
  double tolerance = 0.05;
  /// The CPU pool is kept when it adds at least this fraction.
  double cpuGain = 0.02;
};

/// A candidate device set: the first `gpus` GPUs, with or without the CPU.
struct DeviceConfig {
  int gpus = 0;
  bool cpu = false;
  bool operator==(const DeviceConfig &o) const {
    return gpus == o.gpus && cpu == o.cpu;
  }
  /// "cpu+2 gpus", "1 gpu", "cpu".
  std::string str() const;
};

class Dimensioner {
public:
  /// `gpus` GPUs available; `cpu`: the CPU pool can run the model.
  Dimensioner(int gpus, bool cpu, DimensionOptions options = {});

  /// The search has chosen.
  bool done() const { return done_; }
  /// The configuration to measure next (done(): the chosen one).
  DeviceConfig next() const { return done_ ? chosen_ : next_; }
  /// The throughput (cell-steps per second) measured for next().
  void observe(double rate);

  DeviceConfig chosen() const { return chosen_; }
  struct Measurement {
    DeviceConfig config;
    double rate;
  };
  const std::vector<Measurement> &measurements() const { return log_; }
  /// Why the chosen configuration won, in a sentence.
  const std::string &reason() const { return reason_; }
  const DimensionOptions &options() const { return options_; }
  /// The most windows the search can take.
  int maxWindows() const;

private:
  double rate(DeviceConfig c) const;
  bool measured(DeviceConfig c) const;
  /// Moves to the next unmeasured configuration, or finishes.
  void advance();
  void finish(DeviceConfig c, std::string why);

  int gpus_;
  bool cpu_;
  DimensionOptions options_;
  // Dichotomy over [lo_, hi_] GPUs (GPU-only phase), then the CPU phase.
  int lo_ = 1, hi_ = 1;
  bool cpuPhase_ = false;
  bool done_ = false;
  DeviceConfig next_, chosen_;
  std::vector<Measurement> log_;
  std::string reason_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_DIMENSIONER_H
