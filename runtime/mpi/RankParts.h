//===- RankParts.h - the parts of a simulation across ranks -----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// How a DistributedSimulation provides the parts of SimulationInterface a
// client reaches through parameters(), biomarkers(), outputs() and
// figures(): each part keeps the interface's contract and leaves the work
// across ranks (collectives, the local simulation of each rank's cells)
// to the simulation it belongs to.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MPI_RANKPARTS_H
#define EASYML_RUNTIME_MPI_RANKPARTS_H

#include "easyml/Runtime/MPI/Distributed.h"

namespace easyml::rt {

/// Every rank keeps the shared values and every cell's per-cell values;
/// its local simulation gets those of its cells.
class RankParameters : public ParameterAccess {
public:
  explicit RankParameters(DistributedSimulation &d) : d_(d) {}
  const ParamSet &paramSet() const override { return d_.params_; }
  Status set(const std::string &name, double value) override;
  Status modify(const std::string &mods,
                std::vector<std::string> *log) override;
  Status setPerCell(const std::string &name, const double *values) override;
  Status setShared(const std::string &name) override;
  std::vector<std::string> perCellNames() const override {
    return d_.perCellNames_;
  }
  bool perCell(const std::string &name, double *values) const override;
  /// Derived ones recomputed from the cell's own values.
  double value(int64_t p, int64_t cell) const override;
  std::vector<std::string> unusedSettings() const override;

private:
  DistributedSimulation &d_;
};

class RankBiomarkers : public BiomarkerAccess {
public:
  explicit RankBiomarkers(DistributedSimulation &d) : d_(d) {}
  Status enable(const BiomarkerOptions &options) override {
    return d_.enableBiomarkers(options);
  }
  bool closeBeat() override { return d_.closeBeat(); }
  const BiomarkerTable &table() const override { return d_.bio_; }
  void clear() override { BiomarkerTable().values.swap(d_.bio_.values); }
  BiomarkerTable lastBeat(int64_t &totalRows) override {
    return d_.lastBeat(totalRows);
  }
  BiomarkerTable all() override { return d_.allBiomarkers(); }
  Status write(const std::string &path,
               const std::vector<std::string> &paramColumns) override {
    return d_.writeBiomarkers(path, paramColumns);
  }

private:
  DistributedSimulation &d_;
};

class RankOutputs : public OutputAccess {
public:
  explicit RankOutputs(DistributedSimulation &d) : d_(d) {}
  Expected<std::shared_ptr<MatrixFile>>
  openMatrix(const std::string &path, int64_t rows, int64_t cols,
             int64_t resumeRows) override {
    return d_.openMatrix(path, rows, cols, resumeRows);
  }
  void gatherSamples(std::vector<int64_t> &steps, std::vector<double> &values,
                     int64_t width) override {
    d_.gatherSamples(steps, values, width);
  }
  /// Failed when it cannot be written.
  Status saveCheckpoint(const std::string &path, RunPosition position) override;
  /// Invalid, naming the file and what differs.
  Status loadCheckpoint(const std::string &path,
                        RunPosition &position) override;

private:
  DistributedSimulation &d_;
};

class RankFigures : public RunFigures {
public:
  explicit RankFigures(DistributedSimulation &d) : d_(d) {}
  /// Those of rank 0's (or the first holding) simulation.
  std::vector<std::string> tableWarnings() const override {
    return d_.tableWarnings_;
  }
  std::vector<int64_t> counters() override { return d_.counters(); }
  double adaptiveSteps() override { return d_.adaptiveSteps(); }
  double computeSeconds() override { return d_.computeSeconds(); }
  double slowest(double seconds) override { return d_.slowest(seconds); }
  void addOutput(double seconds, double bytes) override {
    d_.outputSeconds_ += seconds;
    d_.outputBytes_ += bytes;
  }
  void addWorkSeconds(double seconds) override { d_.workSeconds_ += seconds; }
  int64_t rankRepartitions() const override {
    return static_cast<int64_t>(d_.report_.repartitions.size());
  }
  std::map<std::string, double> speeds() const override;
  std::string reportJson(int indent) override { return d_.reportJson(indent); }
  void printReport(FILE *out) override { d_.printReport(out); }
  void summarize(RunSummary &summary) override { d_.summarize(summary); }

private:
  DistributedSimulation &d_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_MPI_RANKPARTS_H
