//===- RunSummary.h - what one run did, for people and scripts --*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The end of a run as one value: the client fills what its protocol knows
// (steps, compile and output times, the biomarker summary) and
// SimulationInterface::summarize() what the simulation knows (model,
// variant, devices, warnings, the runtime's report). The same value prints
// the table for people and writes the JSON report, whatever the rank count.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_RUNSUMMARY_H
#define EASYML_RUNTIME_RUNSUMMARY_H

#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

struct easyml_model_desc;

namespace easyml {
namespace rt {

struct RunSummary {
  //===--- The client's figures ---------------------------------------===//
  int64_t steps = 0;
  /// The devices as asked (--devices), and the CPU pool's wave limit.
  std::string devicesAsked;
  int64_t maxWaveSteps = 0;
  /// Whether the model was compiled for this run (a compile row), and
  /// whether that compile came from the cache.
  bool compiled = false, compileCached = false;
  double compileSeconds = 0, loadSeconds = 0, computeSeconds = 0,
         outputSeconds = 0, wallSeconds = 0;
  /// summarizeBiomarkers()'s JSON, and MatrixFile::summary()/summaryJson()
  /// of a sample matrix written through writer ranks ("" when none).
  std::string biomarkersJson, writer, writerJson;
  /// Checkpoints written (their seconds and the last one's bytes), and the
  /// step a restart continued from (-1: not a restart).
  int checkpoints = 0;
  double checkpointSeconds = 0, checkpointBytes = 0;
  int64_t restartStep = -1;

  //===--- The simulation's (SimulationInterface::summarize) ----------===//
  std::string model, variant, device;
  int64_t numStates = 0, cells = 0;
  double dt = 0;
  /// The warning counters that fired, summed over the ranks.
  std::vector<std::pair<std::string, int64_t>> warnings;
  /// SimulationInterface::adaptiveSteps(): -1 unless the model takes its
  /// own steps.
  double adaptiveSteps = -1;
  /// A DistributedSimulation (ranks and epochs), or one process (threads
  /// and waves).
  bool acrossRanks = false;
  int ranks = 1, threads = 0;
  int64_t waves = 0, epochs = 0;
  /// One process: table and init times; GPU kernel time (events) and
  /// whether one device ran everything; whether only the CPU ran.
  double tablesSeconds = 0, initSeconds = 0, kernelSeconds = 0;
  bool oneDevice = true, cpuOnly = true;
  /// The runtime's report: JSON (under "runtime", or "mpi" across ranks)
  /// and its table for people.
  std::string reportJson, reportTable;

  double totalSeconds() const {
    return wallSeconds + loadSeconds + compileSeconds;
  }
  double cellStepsPerSecond() const;
  /// The table for people (model, devices, times, the runtime's report).
  void print(FILE *out) const;
  /// The JSON report.
  std::string json() const;
  /// Writes json() to `path` (whole or not at all).
  Status writeJson(const std::string &path) const;
};

/// What `print` writes to a FILE, as a string.
std::string printedBy(const std::function<void(FILE *)> &print);

/// The per-cell rows (sv rows) of `desc` that count a whole-cell adaptive
/// model's sub-steps (hidden values `cvode.steps.*`); empty for others.
std::vector<int64_t> adaptiveRows(const easyml_model_desc &desc);

/// The warning counters of `desc` that fired, by name.
std::vector<std::pair<std::string, int64_t>>
firedWarnings(const easyml_model_desc &desc,
              const std::vector<int64_t> &counters);

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_RUNSUMMARY_H
