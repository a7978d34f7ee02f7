//===- Distributed.h - one simulation across MPI ranks --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// One simulation of N cells over the ranks of an MPI communicator. Each
// rank owns a contiguous block of cells and runs the heterogeneous runtime
// (a `Simulation`) on the devices of its node. The ranks advance in
// epochs: the steps every rank runs before they compare notes. After each
// epoch one MPI_Allgather of a few numbers per rank (its time, its
// cell-steps, whether it failed) gives every rank the same view: a
// failure anywhere stops every rank with the failing rank's message, and
// the same `Balancer` rule as within a node re-splits the cells when the
// ranks' times differ by more than the threshold. Only the cells that
// change owner move (one MPI_Alltoallv), carrying every per-cell value:
// states, externals, per-cell parameters, biomarker accumulators.
//
// Output is written by all ranks into one file with MPI-IO: sample rows of
// a (samples x cells) .npy matrix while the next epoch computes
// (non-blocking collective writes, two buffers per rank), and biomarker
// tables in the one-process formats. Files are written under a temporary
// name and renamed once every rank succeeded, so a failed run leaves no
// complete-looking output. Results do not depend on the number of ranks:
// cells are independent, so every rank count gives the same bits.
//
// Built only when MPI is found (library EasyMLRuntimeMPI); the rest of the
// runtime does not depend on it.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_DISTRIBUTED_H
#define EASYML_RUNTIME_DISTRIBUTED_H

#include "easyml/Runtime/ParallelIO.h"
#include "easyml/Runtime/Simulation.h"

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

/// How the ranks share the work.
struct DistributedOptions {
  /// The balance rule across ranks (threshold default 10%).
  BalanceOptions balance;
  /// Epochs are at most this many steps until the first balancing
  /// decision, then up to 64 times as many while the split holds.
  int64_t probeSteps = 20;
  /// At most this many steps per epoch (0: no cap beyond the above).
  int64_t maxEpochSteps = 0;
  /// For testing the balance: rank `slowRank` takes `slowFactor` times as
  /// long per epoch (it sleeps for the difference).
  int slowRank = -1;
  double slowFactor = 1;
  /// Initial shares of the cells per rank (empty: even).
  std::vector<double> shares;
};

/// One epoch as every rank saw it.
struct EpochRecord {
  int64_t step0 = 0, nsteps = 0;
  std::vector<int64_t> cells;  // per rank
  std::vector<double> seconds; // per rank: its compute time
  double imbalance = 0;
  bool repartition = false;
};

/// What the ranks did (complete on rank 0 after report()).
struct DistributedReport {
  int ranks = 0;
  int64_t cells = 0, steps = 0;
  double threshold = 0;
  std::vector<EpochRecord> epochs;
  int64_t totalEpochs = 0;
  std::vector<RepartitionRecord> repartitions; // ranges per rank
  /// Bytes that changed rank.
  double bytesMoved = 0;
  /// Per rank, as JSON objects: host, cells, cell-steps, compute and
  /// waiting seconds, output seconds, bytes sent, devices.
  std::vector<std::string> rankJson;
  /// Per rank, one line of the table for people.
  std::vector<std::string> rankLines;
  double wallSeconds = 0;
  double meanImbalance() const;
  std::string json(int indent = 0) const;
  void print(FILE *out) const;
};

/// N cells of one model over the ranks of `comm`. Every method is
/// collective (every rank calls it, in the same order) unless it says
/// otherwise.
class DistributedSimulation {
public:
  DistributedSimulation(MPI_Comm comm, const ModelHandle &model,
                        int64_t cells, const SimulationOptions &local,
                        const DistributedOptions &options = {});
  ~DistributedSimulation();
  DistributedSimulation(const DistributedSimulation &) = delete;
  DistributedSimulation &operator=(const DistributedSimulation &) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm comm() const { return comm_; }
  int64_t numCells() const { return cells_; }
  const easyml_model_desc &desc() const { return model_.desc(); }
  /// This rank's cells (global numbering); may be empty. Not collective.
  CellRange owned() const { return ranges_[rank_]; }
  const std::vector<CellRange> &ranges() const { return ranges_; }
  /// The rank's simulation of its cells (null when it holds none). It is
  /// replaced when cells move. Not collective.
  Simulation *local() { return local_.get(); }

  /// False on every rank when the devices cannot be had on some rank.
  bool valid(std::string &error);
  /// After run() returned false: "rank 2: cell 2500, variable ..." (the
  /// same text on every rank). Not collective.
  const std::string &failure() const { return failure_; }
  /// The rank that failed first, or -1.
  int failedRank() const { return failedRank_; }
  /// Set when the failure was a non-finite value (cell in global
  /// numbering; on every rank).
  bool nonFinite() const { return nonFinite_; }

  /// Shared parameter values (descriptor order), derived ones up to date;
  /// the same on every rank.
  const std::vector<double> &params() const { return params_.values(); }
  const ParamSet &paramSet() const { return params_; }
  /// Simulation::setParam and modifyParams; not collective (every rank
  /// makes the same change).
  bool setParam(const std::string &name, double value, std::string &error);
  bool modifyParams(const std::string &mods, std::string &error,
                    std::vector<std::string> *log = nullptr);
  /// Simulation::unusedParamSettings.
  std::vector<std::string> unusedParamSettings() const;
  /// Makes `name` per-cell; `values` holds numCells() values, the same on
  /// every rank. Not collective; false with `error` on a bad name.
  bool setPerCellParam(const std::string &name, const double *values,
                       std::string &error);
  bool initialize(double dt);
  double dt() const { return dt_; }
  /// Table warnings of rank 0's (or the first holding) simulation.
  std::vector<std::string> tableWarnings;

  /// Not collective (every rank adds the same).
  void addStimulus(const Stimulus &stimulus);
  /// Receives the samples of the recorded cells this rank holds: `part`
  /// (global numbering), values[slot * part.size() + c].
  using PartSampleFn =
      std::function<void(int64_t step, CellRange part, const double *values)>;
  /// Records `variables` of the global cells `cells` at steps first +
  /// k*every. Not collective; false with `error` as Simulation::record.
  bool record(const std::vector<std::string> &variables, CellRange cells,
              int64_t first, int64_t every, PartSampleFn fn,
              std::string &error);
  /// Called on every rank when the run reaches `step`, before the epoch
  /// that starts there (and every `every` steps after when every > 0).
  /// A false return fails the run on every rank with `error`.
  /// Not collective (every rank stops alike).
  void stopRecording();
  using RankEventFn = std::function<bool(DistributedSimulation &sim,
                                         int64_t step, std::string &error)>;
  void addEvent(int64_t step, RankEventFn fn, int64_t every = 0);
  /// Called on every rank after each epoch, once every rank has reached
  /// `step`: collective output goes here. A false return fails the run.
  void onEpoch(std::function<bool(int64_t step, std::string &error)> fn);
  /// Called on rank 0 after each epoch with the step reached. Not
  /// collective.
  void onProgress(std::function<void(int64_t step)> fn);
  bool enableBiomarkers(const BiomarkerOptions &options, std::string &error);
  /// Ends the current beat at step() on every rank.
  bool closeBeat();
  /// This rank's rows of the closed beats (cell column in global
  /// numbering), beat by beat, cells in order. Not collective.
  const BiomarkerTable &biomarkers() const { return bio_; }

  /// Runs every rank from step() to `untilStep`.
  bool run(int64_t untilStep);
  int64_t step() const { return step_; }
  /// Warning counters summed over the ranks.
  std::vector<int64_t> counters();
  /// This rank's compute seconds so far (its simulations' waves). Not
  /// collective.
  double computeSeconds() const;
  /// Gathers the per-rank figures (complete on rank 0).
  DistributedReport report();
  /// Adds output seconds and bytes to this rank's report. Not collective.
  void addOutput(double seconds, double bytes) {
    outputSeconds_ += seconds;
    outputBytes_ += bytes;
  }

private:
  std::unique_ptr<Simulation> build(CellRange range,
                                    const Simulation::Clock &clock,
                                    std::string &error);
  bool applyRecording(Simulation &sim, CellRange range, std::string &error);
  bool migrate(const std::vector<CellRange> &next, double imbalance);
  /// Takes the rows of beats the local simulation closed.
  void drainBiomarkers();
  /// Folds the local simulation's counters and device figures into the
  /// rank's totals before it is replaced.
  void retireLocal();
  bool failWith(const std::string &error);

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  const ModelHandle &model_;
  int64_t cells_;
  SimulationOptions localOptions_;
  DistributedOptions options_;
  std::vector<CellRange> ranges_;
  std::unique_ptr<Simulation> local_;
  std::string setupError_, failure_;
  int failedRank_ = -1;
  bool nonFinite_ = false;
  ParamSet params_;
  std::vector<std::string> perCellNames_;
  double dt_ = 0.01;
  bool initialized_ = false;
  int64_t step_ = 0;
  Simulation::Clock clock_;
  /// Stimuli (for the local simulations built as cells move), events and
  /// when to sample; what to record and where samples go.
  Timeline timeline_;
  struct {
    std::vector<std::string> variables;
    CellRange cells;
    PartSampleFn fn;
  } recording_;
  std::vector<std::function<bool(int64_t, std::string &)>> epochFns_;
  std::function<void(int64_t)> progress_;
  bool bioOn_ = false;
  BiomarkerOptions bioOptions_;
  BiomarkerTable bio_;
  std::unique_ptr<Balancer> balancer_;
  bool settling_ = true;
  int64_t settleSteps_ = 20;
  // This rank's totals over its successive local simulations.
  std::vector<int64_t> counters_;
  std::vector<DeviceReport> devices_;
  double retiredCompute_ = 0;
  double cellSteps_ = 0, runSeconds_ = 0, syncSeconds_ = 0;
  double outputSeconds_ = 0, outputBytes_ = 0;
  double bytesSent_ = 0, bytesReceived_ = 0, migrateSeconds_ = 0;
  double wallSeconds_ = 0;
  DistributedReport report_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_DISTRIBUTED_H
