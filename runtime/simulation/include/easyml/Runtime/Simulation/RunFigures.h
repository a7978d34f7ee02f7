//===- RunFigures.h - what a simulation did ---------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The figures of a running simulation (SimulationInterface::figures()):
// warnings, timings, the devices' speeds, the report. Under MPI every
// method is collective unless it says otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_RUNFIGURES_H
#define EASYML_RUNTIME_SIMULATION_RUNFIGURES_H

#include "easyml/Runtime/Core/RunSummary.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace easyml::rt {

class RunFigures {
public:
  virtual ~RunFigures();

  /// Lookup table entries that are NaN after initialize(): "lookup table
  /// V: column a is NaN at V = 0 (row 100)", one line per column.
  virtual std::vector<std::string> tableWarnings() const = 0;
  /// Warning counters (lookup range, clamps; desc().counter_names), summed
  /// over the ranks.
  virtual std::vector<int64_t> counters() = 0;
  /// A model compiled with `--adaptive` (each cell's own step): the
  /// sub-steps its cells have taken since they started, tried and
  /// accepted or not, summed over the cells and ranks; -1 for a model
  /// stepped by dt alone.
  virtual double adaptiveSteps() = 0;
  /// Compute seconds (in waves): the slowest rank's.
  virtual double computeSeconds() = 0;
  /// The largest of every rank's `seconds`.
  virtual double slowest(double seconds) { return seconds; }
  /// Adds output seconds and bytes to this rank's figures. Not collective.
  virtual void addOutput(double seconds, double bytes) = 0;
  /// Seconds this rank computed for the run outside run() (a tissue's
  /// diffusion), counted with its next steps when the ranks balance. Not
  /// collective.
  virtual void addWorkSeconds(double seconds) {}
  /// How many times the cells have moved between ranks (the same count on
  /// every rank; 0 in one process).
  virtual int64_t rankRepartitions() const { return 0; }
  /// The speeds this rank's devices showed (cell-steps/s by device id), to
  /// remember for the next run (SimulationOptions::speeds). Not collective.
  virtual std::map<std::string, double> speeds() const = 0;
  /// The run's report (complete on rank 0): waves per device in one
  /// process; epochs, ranks and their devices across ranks.
  virtual std::string reportJson(int indent = 0) = 0;
  /// The same as a table for people, on rank 0.
  virtual void printReport(FILE *out) = 0;
  /// Fills the simulation's part of `summary` (model, variant, devices,
  /// warnings, the report; complete on rank 0).
  virtual void summarize(RunSummary &summary) = 0;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_RUNFIGURES_H
