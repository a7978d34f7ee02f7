//===- LocalFigures.cpp - what a one-process simulation did ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "LocalParts.h"
#include "Scheduler.h"

#include "easyml/Runtime/Core/Population.h"
#include "easyml/Runtime/Simulation/Simulation.h"

using namespace easyml::rt;

RunFigures::~RunFigures() = default;

std::vector<std::string> LocalFigures::tableWarnings() const {
  return s_.tableWarnings();
}

double LocalFigures::computeSeconds() { return s_.computeSeconds(); }

std::vector<int64_t> LocalFigures::counters() { return s_.counters(); }

std::map<std::string, double> LocalFigures::speeds() const {
  return s_.speeds();
}

void LocalFigures::addOutput(double seconds, double bytes) {
  s_.report().outputSeconds += seconds;
  s_.report().outputBytes += bytes;
}

std::string LocalFigures::reportJson(int indent) {
  return s_.report().json(indent);
}

void LocalFigures::printReport(FILE *out) { s_.report().print(out); }

double LocalFigures::adaptiveSteps() {
  std::vector<int64_t> rows = adaptiveRows(sim_.desc());
  if (rows.empty())
    return -1;
  std::vector<double> values(sim_.numCells());
  double total = 0;
  for (int64_t row : rows) {
    sim_.values().getStateRow(row, values.data());
    for (double v : values)
      total += v;
  }
  return total;
}

void LocalFigures::summarize(RunSummary &s) {
  const easyml_model_desc &d = sim_.desc();
  s.model = d.name;
  s.numStates = d.num_states;
  s.cells = sim_.numCells();
  s.dt = sim_.dt();
  s.variant = sim_.variant().name;
  s.device = sim_.deviceDescription();
  s.warnings = firedWarnings(d, counters());
  s.adaptiveSteps = adaptiveSteps();
  s.acrossRanks = false;
  s.ranks = 1;
  s.threads = s_.threads();
  s.waves = s_.report().totalWaves;
  s.tablesSeconds = s_.tablesSeconds();
  s.initSeconds = s_.initSeconds();
  s.kernelSeconds = s_.gpuKernelMs() / 1e3;
  std::vector<int> active = s_.active();
  s.oneDevice = active.size() == 1;
  s.cpuOnly = s.oneDevice && s_.devices()[active[0]]->id() == "cpu";
  s.reportJson = reportJson(2);
  s.reportTable = printedBy([&](FILE *f) { printReport(f); });
}
