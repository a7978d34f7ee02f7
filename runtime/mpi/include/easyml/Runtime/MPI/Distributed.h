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

#include "easyml/Runtime/MPI/ParallelIO.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

class RankParameters;
class RankBiomarkers;
class RankOutputs;
class RankFigures;

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
  /// A split that would leave a rank without cells is not adopted (a
  /// tissue's slabs need a point on every rank).
  bool keepEveryRank = false;
  /// Initial shares of the cells per rank (empty: even).
  std::vector<double> shares;
  /// Or exactly these cells per rank, in rank order (summing to the
  /// cells; a tissue's boxes): taken over shares when not empty.
  std::vector<int64_t> counts;
  /// Sample matrices go through dedicated writer ranks (serveMatrixFile):
  /// `writers` ranks of `world` from `firstWriter` on (none when < 0).
  MPI_Comm world = MPI_COMM_NULL;
  int firstWriter = -1, writers = 0;
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
class DistributedSimulation : public SimulationInterface {
public:
  DistributedSimulation(MPI_Comm comm, const ModelHandle &model,
                        int64_t cells, const SimulationOptions &local,
                        const DistributedOptions &options = {});
  ~DistributedSimulation() override;
  DistributedSimulation(const DistributedSimulation &) = delete;
  DistributedSimulation &operator=(const DistributedSimulation &) = delete;

  //===--- SimulationInterface ----------------------------------------===//
  const easyml_model_desc &desc() const override { return model_.desc(); }
  int64_t numCells() const override { return cells_; }
  int rank() const override { return rank_; }
  int ranks() const override { return size_; }
  /// This rank's cells (global numbering); may be empty.
  CellRange owned() const override { return ranges_[rank_]; }
  /// Those of the rank's simulation of its cells (null when it holds
  /// none). It is replaced when cells move.
  CellValues *cellValues() override {
    return local_ ? local_->cellValues() : nullptr;
  }
  TissueCoupling *coupling() override;
  std::string deviceDescription() const override;
  std::string variantName() const override;
  Status valid() override;
  /// After run() returned false: "rank 2: cell 2500, variable ..." (the
  /// same text on every rank).
  const std::string &failure() const override { return failure_; }
  /// The first non-finite value (cell in global numbering), on every rank.
  const NonFinite *nonFinite() const override {
    return nonFinite_.cell >= 0 ? &nonFinite_ : nullptr;
  }
  Status agree(Status mine) override;
  ParameterAccess &parameters() override;
  using SimulationInterface::parameters;
  BiomarkerAccess &biomarkers() override;
  OutputAccess &outputs() override;
  RunFigures &figures() override;

  bool initialize(double dt) override;
  double dt() const override { return dt_; }
  void addStimulus(const Stimulus &stimulus) override;
  Status record(const std::vector<std::string> &variables, CellRange cells,
                int64_t first, int64_t every, PartSampleFn fn) override;
  void stopRecording() override;
  int addEvent(int64_t step, EventFn fn, int64_t every = 0) override;
  /// After each epoch, once every rank has reached `step`.
  void onSync(std::function<bool(int64_t step, std::string &error)> fn)
      override;
  void onProgress(std::function<void(int64_t step)> fn) override;
  bool run(int64_t untilStep) override;
  int64_t step() const override { return step_; }

  //===--- Across ranks only ------------------------------------------===//
  MPI_Comm comm() const { return comm_; }
  const std::vector<CellRange> &ranges() const { return ranges_; }
  /// The rank that failed first, or -1.
  int failedRank() const { return failedRank_; }
  /// This rank's compute seconds so far (its simulations' waves). Not
  /// collective.
  double rankComputeSeconds() const;
  /// Gathers the per-rank figures (complete on rank 0).
  DistributedReport report();
  /// Whether a sample matrix went through the writer ranks.
  bool usedWriters() const { return usedWriters_; }

private:
  // The parts (RankParts.h) call the methods below.
  friend class RankParameters;
  friend class RankBiomarkers;
  friend class RankOutputs;
  friend class RankFigures;

  //===--- Biomarkers (RankBiomarkers) --------------------------------===//
  Status enableBiomarkers(const BiomarkerOptions &options);
  bool closeBeat();
  Status writeBiomarkers(const std::string &path,
                         const std::vector<std::string> &paramColumns);
  BiomarkerTable lastBeat(int64_t &totalRows);
  BiomarkerTable allBiomarkers();

  //===--- Outputs (RankOutputs) --------------------------------------===//
  Expected<std::shared_ptr<MatrixFile>> openMatrix(const std::string &path,
                                                   int64_t rows, int64_t cols,
                                                   int64_t resumeRows);
  void gatherSamples(std::vector<int64_t> &steps, std::vector<double> &values,
                     int64_t width);
  bool saveCheckpoint(const std::string &path, RunPosition position,
                      std::string &error);
  bool loadCheckpoint(const std::string &path, RunPosition &position,
                      std::string &error);

  //===--- Figures (RankFigures) --------------------------------------===//
  std::vector<int64_t> counters();
  double adaptiveSteps();
  /// The slowest rank's.
  double computeSeconds();
  double slowest(double seconds);
  std::string reportJson(int indent);
  void printReport(FILE *out);
  void summarize(RunSummary &summary);

  std::unique_ptr<Simulation> build(CellRange range, const RunClock &clock,
                                    std::string &error);
  Status applyRecording(Simulation &sim, CellRange range);
  bool migrate(const std::vector<CellRange> &next, double imbalance);
  /// Takes the rows of beats the local simulation closed.
  void drainBiomarkers();
  /// Folds the local simulation's counters and device figures into the
  /// rank's totals before it is replaced.
  void retireLocal();
  bool failWith(const std::string &error);
  /// After an epoch: the onSync callbacks, then the open sample matrices
  /// flushed.
  bool syncOutputs(std::string &error);

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
  NonFinite nonFinite_;
  std::vector<std::string> tableWarnings_;
  /// Per-cell values given by the user (every cell, on every rank), by
  /// params index.
  std::map<int64_t, std::vector<double>> perCellValues_;
  /// Sample matrices open, flushed after every epoch.
  std::vector<std::weak_ptr<MatrixFile>> matrices_;
  bool usedWriters_ = false;
  ParamSet params_;
  std::vector<std::string> perCellNames_;
  double dt_ = 0.01;
  bool initialized_ = false;
  int64_t step_ = 0;
  RunClock clock_;
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
  /// addWorkSeconds() since the last epoch.
  double workSeconds_ = 0;
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
  std::unique_ptr<RankParameters> parameters_;
  std::unique_ptr<RankBiomarkers> biomarkers_;
  std::unique_ptr<RankOutputs> outputs_;
  std::unique_ptr<RankFigures> figures_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_DISTRIBUTED_H
