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
  bool set(const std::string &name, double value, std::string &error) override;
  bool modify(const std::string &mods, std::string &error,
              std::vector<std::string> *log) override;
  bool setPerCell(const std::string &name, const double *values,
                  std::string &error) override;
  bool setShared(const std::string &name, std::string &error) override;
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
  bool enable(const BiomarkerOptions &options, std::string &error) override;
  bool closeBeat() override;
  const BiomarkerTable &table() const override;
  void clear() override;
  BiomarkerTable lastBeat(int64_t &totalRows) override;
  bool write(const std::string &path,
             const std::vector<std::string> &paramColumns,
             std::string &error) override;

private:
  Scheduler &s_;
};

class LocalOutputs : public OutputAccess {
public:
  explicit LocalOutputs(Simulation &sim, Scheduler &s) : sim_(sim), s_(s) {}
  std::shared_ptr<MatrixFile> openMatrix(const std::string &path, int64_t rows,
                                         int64_t cols, std::string &error,
                                         int64_t resumeRows) override;
  bool saveCheckpoint(const std::string &path, RunPosition position,
                      std::string &error) override;
  bool loadCheckpoint(const std::string &path, RunPosition &position,
                      std::string &error) override;

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
  DeviceName failedDevice() const override;
  std::vector<DeviceName> workingDevices() const override;
  std::string reportJson(int indent) override;
  void printReport(FILE *out) override;
  void summarize(RunSummary &summary) override;

private:
  Simulation &sim_;
  Scheduler &s_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_LOCALPARTS_H
