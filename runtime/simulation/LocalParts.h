//===- LocalParts.h - the parts of a one-process simulation -----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// How a Simulation (one process) provides the parts of SimulationInterface
// a client reaches through parameters(), biomarkers(), outputs() and
// figures(): each works on the simulation's Scheduler.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_LOCALPARTS_H
#define EASYML_RUNTIME_SIMULATION_LOCALPARTS_H

#include "easyml/Runtime/Simulation/BiomarkerAccess.h"
#include "easyml/Runtime/Simulation/OutputAccess.h"
#include "easyml/Runtime/Simulation/ParameterAccess.h"
#include "easyml/Runtime/Simulation/RunFigures.h"

namespace easyml::rt {

class Scheduler;
class Simulation;

class LocalParameters : public ParameterAccess {
public:
  explicit LocalParameters(Scheduler &s) : s_(s) {}
  const ParamSet &paramSet() const override;
  Status set(const std::string &name, double value) override;
  Status modify(const std::string &mods,
                std::vector<std::string> *log) override;
  Status setPerCell(const std::string &name, const double *values) override;
  Status setShared(const std::string &name) override;
  std::vector<std::string> perCellNames() const override;
  bool perCell(const std::string &name, double *values) const override;
  double value(int64_t p, int64_t cell) const override;
  std::vector<std::string> unusedSettings() const override;

private:
  Scheduler &s_;
};

class LocalBiomarkers : public BiomarkerAccess {
public:
  explicit LocalBiomarkers(Scheduler &s) : s_(s) {}
  Status enable(const BiomarkerOptions &options) override;
  bool closeBeat() override;
  const BiomarkerTable &table() const override;
  void clear() override;
  BiomarkerTable lastBeat(int64_t &totalRows) override;
  Status write(const std::string &path,
               const std::vector<std::string> &paramColumns) override;

private:
  Scheduler &s_;
};

class LocalOutputs : public OutputAccess {
public:
  explicit LocalOutputs(Simulation &sim, Scheduler &s) : sim_(sim), s_(s) {}
  Expected<std::shared_ptr<MatrixFile>> openMatrix(const std::string &path,
                                                   int64_t rows, int64_t cols,
                                                   int64_t resumeRows) override;
  Status saveCheckpoint(const std::string &path, RunPosition position) override;
  Status loadCheckpoint(const std::string &path,
                        RunPosition &position) override;

private:
  Simulation &sim_;
  Scheduler &s_;
};

class LocalFigures : public RunFigures {
public:
  explicit LocalFigures(Simulation &sim, Scheduler &s) : sim_(sim), s_(s) {}
  std::vector<std::string> tableWarnings() const override;
  std::vector<int64_t> counters() override;
  double adaptiveSteps() override;
  double computeSeconds() override;
  void addOutput(double seconds, double bytes) override;
  std::map<std::string, double> speeds() const override;
  std::string reportJson(int indent) override;
  void printReport(FILE *out) override;
  void summarize(RunSummary &summary) override;

private:
  Simulation &sim_;
  Scheduler &s_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_LOCALPARTS_H
