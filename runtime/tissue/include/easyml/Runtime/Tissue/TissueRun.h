//===- TissueRun.h - one tissue simulation from its setup -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What easyml-tissue and easyml.Tissue do with a TissueSetup: load (or
// compile) the model, make one cell per point of tissue on the devices
// asked for, apply the parameters, run, and write the activation map, the
// Vm snapshots and the probes' activation times. Outputs are written whole
// or not at all; a failed run leaves none of its files behind.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUERUN_H
#define EASYML_RUNTIME_TISSUERUN_H

#include "easyml/Runtime/Support/Status.h"
#include "easyml/Runtime/Tissue/TissueConfig.h"

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

class ModelHandle;
class ModelProvider;
class SimulationInterface;
class TissueComm;
struct SimulationOptions;

struct TissueResult {
  TissueReport report;
  std::string model, devices;
  /// Activation time (ms, NaN if never) at each probe, in setup order.
  std::vector<double> probeTimes;
  /// Conduction velocity along x, y, z (mm/ms; NaN where not measured).
  double velocity[3] = {NAN, NAN, NAN};
  /// Activation times and Vm at the end, per grid point (NaN outside the
  /// tissue).
  std::vector<double> activation, vm;
  /// Beats whose biomarker maps were written.
  int64_t beats = 0;
  /// The files written (with a restart, also those written before the
  /// checkpoint).
  std::vector<std::string> files;
  /// Checkpoints written, their time, and the step a restart continued
  /// from (-1: none).
  int64_t checkpoints = 0, restartStep = -1;
  double checkpointSeconds = 0;
  /// GPUs lost during the run (one process): the run went on without
  /// each on the other devices (`devices`, "cpu+cuda:0"), the step that
  /// failed run again from a host copy of its start.
  struct Recovery {
    std::string device, error, devices;
    int64_t step = 0;
  };
  std::vector<Recovery> recoveries;
  /// The run stopped on a value that is no longer finite.
  bool nonFinite = false;
  /// One process: the runtime's report of the run (devices, waves, the
  /// balancer's repartitions and decisions), as JSON.
  std::string runtimeJson;
  /// The report as JSON (with the probes and files).
  std::string json(const TissueSetup &setup) const;
};

/// A run across MPI ranks (makeMpiTissueRanks in TissueMPI.h makes one):
/// the simulation of the cells over the ranks (`counts`: each rank's cells,
/// or empty for even shares; `balance`: the ranks' balancer may move
/// them), and their communicator.
struct TissueRanks {
  std::function<std::unique_ptr<SimulationInterface>(
      const ModelHandle &, int64_t cells, const SimulationOptions &,
      const std::vector<int64_t> &counts, bool balance)>
      simulation;
  TissueComm *comm = nullptr;
};

/// Runs `setup`; `progress` (if set) gets the fraction done now and then.
/// `models` loads (or compiles) the configuration's model. Across `ranks`
/// every rank calls it; rank 0 writes the files and gets the whole result
/// (the others: the report). On an error (NonFinite where Vm or a state
/// stopped being finite) no output file is left behind.
Status runTissue(const TissueSetup &setup, TissueResult &result,
                 const std::function<void(double)> &progress,
                 ModelProvider &models, const TissueRanks *ranks = nullptr);

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_TISSUERUN_H
