//===- Report.h - what a simulation did, per device and wave --*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Throughput overall and per device, time per wave and per device, the
// imbalance of every wave, repartitions and the bytes they moved, and the
// dimensioning decision. As a short table for people and as JSON for
// scripts (scripts/plot-report.py draws it).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_REPORT_H
#define EASYML_RUNTIME_REPORT_H

#include "easyml/Runtime/Devices/Device.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace easyml::rt {

struct DeviceReport {
  std::string id, description;
  /// Cells it holds at the end.
  int64_t cells = 0;
  double cellSteps = 0;
  /// Its waves' time (device events on GPUs) and the kernels' share.
  double seconds = 0, kernelSeconds = 0;
  int64_t waves = 0;
  double bytesToDevice = 0, bytesToHost = 0;
  double rate() const { return seconds > 0 ? cellSteps / seconds : 0; }
};

/// One wave: per device (in RunReport::devices order) its cells and time.
struct WaveRecord {
  int64_t step0 = 0, nsteps = 0;
  double wallSeconds = 0;
  std::vector<int64_t> cells;
  std::vector<double> seconds;
  double imbalance = 0;
  /// The cells were re-split after this wave.
  bool repartition = false;
};

struct RepartitionRecord {
  int64_t step = 0;
  double imbalance = 0;
  /// Per device (RunReport::devices order): ranges before and after,
  /// and the speeds (cell-steps/s) the split came from.
  std::vector<CellRange> from, to;
  std::vector<double> speeds;
  double bytes = 0;
  std::string reason;
  /// Made by the balancer's rule (not a phase split or a lost device):
  /// the fraction of wave time it was predicted to save, the seconds saved
  /// over its horizon against the move's predicted seconds, and the gain
  /// the next window measured (NaN until then).
  bool balancer = false;
  double predictedGain = NAN, gainSeconds = NAN, moveSeconds = NAN,
         measuredGain = NAN;
};

struct DimensionWindow {
  std::string config;
  int64_t step0 = 0, steps = 0;
  double rate = 0;
};

/// A device lost mid-run and what the others did about it.
struct RecoveryRecord {
  std::string device, error;
  /// The wave that failed: its first step and length, the lost device's
  /// cells (recomputed by `rescuer` from the host copy of the wave's
  /// start).
  int64_t step = 0, steps = 0, cells = 0;
  std::string rescuer;
  double seconds = 0;
  /// A tissue's step (RecoveryPolicy::recoverStep): every cell went back
  /// to the host copy of the step's start and the step ran again.
  bool wholeStep = false;
  /// The devices in play after it ("cpu+cuda:0").
  std::string survivors;
};

struct RunReport {
  std::string model;
  int64_t cells = 0;
  int64_t steps = 0; // steps advanced
  double dt = 0;
  double threshold = 0;
  /// Device ranges start on multiples of this many cells.
  int64_t alignment = 1;
  std::vector<DeviceReport> devices;
  /// The first `maxWaveRecords` waves.
  std::vector<WaveRecord> waves;
  int64_t totalWaves = 0;
  size_t maxWaveRecords = 20000;
  std::vector<RepartitionRecord> repartitions;
  std::vector<RecoveryRecord> recoveries;
  /// Repartitions made by the split of a wave's phase (BalanceOptions::
  /// periodic), among `repartitions`.
  int64_t phaseSplits = 0;
  /// Splits the balancer's rule wanted but did not make: the wave time
  /// they were predicted to save did not pay for the move.
  int64_t movesRefused = 0;
  /// Waves two host devices shared (SharedWave.cpp: each computed chunks
  /// from its end of their cells until they met), and the cells that
  /// changed device at those meetings.
  int64_t sharedWaves = 0, cellsHandedOver = 0;
  /// The CPUs each side of the shared waves was bound to (lower, upper;
  /// empty when the system placed their threads, HostCpus.h).
  std::vector<std::string> pairCpus;
  /// Seconds spent keeping host copies of the GPUs' cells after every wave
  /// (so a lost device's cells can be recomputed), and their bytes.
  double hostCopySeconds = 0, hostCopyBytes = 0;
  /// Bytes moved by repartitions and device changes.
  double bytesMoved = 0;
  /// Wall time of the waves (launch to join) and of the whole run.
  double waveSeconds = 0, wallSeconds = 0;
  /// Time and bytes of the output files (SimulationInterface::addOutput).
  double outputSeconds = 0, outputBytes = 0;
  struct {
    bool enabled = false, complete = false;
    std::vector<DimensionWindow> windows;
    int maxWindows = 0;
    std::string chosen, reason;
  } dimensioning;

  double cellSteps() const;
  /// cell-steps per second over the waves' wall time.
  double rate() const;
  double meanImbalance() const;

  /// The report as a JSON object (`indent` spaces before each line).
  std::string json(int indent = 0) const;
  /// The short table for people.
  void print(FILE *out) const;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_REPORT_H
