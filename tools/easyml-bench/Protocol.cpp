//===- Protocol.cpp - easyml-bench's run, whatever the rank count ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The protocol of one easyml-bench run over a SimulationInterface: one
// process, or the ranks of `mpirun` (each holding a block of the cells).
// Every rank runs this code; rank 0 (which always holds cell 0) writes
// cell 0's openCARP files and says what happened. The library writes the
// files every rank contributes to (--save-vm, --biomarkers).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"
#include "Outputs.h"

#include "easyml/Runtime/Population.h"
#include "easyml/Runtime/Simulation.h"
#include "easyml/Runtime/StateFile.h"

#include <cmath>
#include <unistd.h>

using namespace easyml;
using namespace easyml::bench;

namespace {

/// One run's state: the simulation, what the options asked for, and the
/// output files open so far.
struct Protocol {
  rt::SimulationInterface &sim;
  const BenchRun &run;
  const CommandLine &cl;
  bool root;
  rt::Columns perCell;
  CellZeroOutputs outputs;
  std::shared_ptr<rt::MatrixFile> vmAll;
  int vmSlot = -1;
  double outputSeconds = 0, wall = 0;

  Protocol(rt::SimulationInterface &sim, const BenchRun &run)
      : sim(sim), run(run), cl(*run.cl), root(sim.rank() == 0) {}

  /// Says `msg` once (rank 0), removes what was written, returns `code`.
  int stop(const std::string &msg, int code) {
    outputs.remove();
    if (vmAll) {
      std::string ignored;
      vmAll->close(false, ignored);
    }
    if (root)
      std::fprintf(stderr, "easyml-bench: error: %s\n", msg.c_str());
    return code;
  }
  /// Collective: "" when `ok` on every rank, else the message.
  std::string check(bool ok, std::string msg) {
    return sim.agree(ok, msg) ? std::string() : msg;
  }
  void warn(const std::string &w) {
    if (root)
      std::fprintf(stderr, "easyml-bench: warning: %s\n", w.c_str());
  }

  int setParameters();
  int setUp();
  int openOutputs();
  int runAndFinish(rt::RunSummary &summary);
};

int Protocol::setParameters() {
  std::string error;
  std::vector<std::string> log;
  if (!sim.modifyParams(cl.get("imp-par"), error, &log))
    return stop(error, 1);
  if (!run.quiet && root)
    for (auto &l : log)
      std::fprintf(stderr, "%s\n", l.c_str());
  // Per-cell parameters: every rank reads or samples the whole population
  // and keeps its block.
  if (cl.has("param-file") && cl.has("population"))
    return stop("give one of --param-file and --population", 1);
  bool ok = true;
  if (cl.has("param-file")) {
    ok = sim.readPerCellParams(cl.get("param-file"), perCell, error);
  } else if (cl.has("population")) {
    std::string order = cl.get("population-order");
    if (order != "grouped" && order != "drawn")
      return stop("--population-order: expected grouped or drawn, got '" +
                      order + "'",
                  1);
    ok = sim.samplePerCellParams(cl.get("population"), run.seed,
                                 order == "grouped", perCell, error);
  }
  if (std::string e = check(ok, error); !e.empty())
    return stop(e, 1);
  if (!run.quiet && root && !perCell.names.empty()) {
    std::string names;
    for (auto &n : perCell.names)
      names += (names.empty() ? "" : ", ") + n;
    std::fprintf(stderr, "Per-cell parameters: %s\n", names.c_str());
  }
  for (const std::string &w : sim.unusedParamSettings())
    warn(w);
  return 0;
}

int Protocol::setUp() {
  std::string error;
  if (cl.has("ca-variable") && !cl.has("biomarkers"))
    return stop("--ca-variable applies to --biomarkers", 1);
  if (!sim.initialize(run.dt))
    return stop(sim.failure(), 1);
  for (const std::string &w : sim.tableWarnings())
    warn(w);
  if (cl.has("read-ini-file") && sim.local()) {
    std::string error;
    if (!rt::readStateFile(cl.get("read-ini-file"), *sim.local(), error))
      return stop(error, 1);
    sim.local()->evaluate(0);
  }
  if (std::string e = check(sim.failure().empty(), sim.failure()); !e.empty())
    return stop(e, 1);
  if (cl.has("biomarkers")) {
    rt::BiomarkerOptions bo;
    bo.caVariable = cl.get("ca-variable");
    if (!sim.enableBiomarkers(bo, error))
      return stop(error, 1);
  }
  if (run.numstim > 0) {
    rt::Stimulus stim;
    stim.start = std::lround(run.stimStart / run.dt);
    stim.duration = run.stimLen;
    stim.strength = run.stimCurr;
    stim.period = std::lround(run.bcl / run.dt);
    stim.count = run.numstim;
    sim.addStimulus(stim);
  }
  if (run.saveStep >= 0)
    sim.addEvent(run.saveStep,
                 [&](rt::SimulationInterface &s, int64_t, std::string &error) {
                   if (s.rank() != 0 || !s.local())
                     return true;
                   double o0 = now();
                   bool ok = rt::writeStateFile(cl.get("save-ini-file"),
                                                *s.local(), error);
                   outputSeconds += now() - o0;
                   return ok;
                 });
  return openOutputs();
}

/// Cell 0's files on rank 0; with --save-vm, every cell's Vm at every
/// output step, recorded inside the waves and written by every rank.
int Protocol::openOutputs() {
  std::string error;
  const easyml_model_desc &d = sim.desc();
  bool ok = !root || outputs.open(d, cl, run.traceNo, error);
  if (std::string e = check(ok, error); !e.empty())
    return stop(e, 1);
  if (cl.has("save-vm")) {
    vmAll =
        sim.openMatrix(cl.get("save-vm"),
                       sampleCount(run.outFirst, run.outEvery, run.nLast + 1),
                       sim.numCells(), error);
    if (!vmAll)
      return stop(error, 1);
  }
  // Every rank records the same variables of the same cells, so every
  // rank cuts the same waves; each takes the samples of the cells it holds.
  std::vector<std::string> recorded = CellZeroOutputs::variablesFor(d, cl);
  if (vmAll) {
    std::string vm = d.external_names[d.vm_index];
    for (size_t i = 0; i < recorded.size(); ++i)
      if (recorded[i] == vm)
        vmSlot = static_cast<int>(i);
    if (vmSlot < 0) {
      vmSlot = static_cast<int>(recorded.size());
      recorded.push_back(vm);
    }
  }
  if (recorded.empty()) {
    // Nothing to record (no Vm, Iion or states): the output steps still
    // print their (zero) lines.
    sim.addEvent(
        run.outFirst,
        [&](rt::SimulationInterface &, int64_t step, std::string &) {
          if (root)
            outputs.sample(step, run.dt, nullptr, 1);
          return true;
        },
        run.outEvery);
    return 0;
  }
  auto onSample = [&](int64_t step, rt::CellRange part, const double *values) {
    double o0 = now();
    if (root && part.contains(int64_t{0}))
      outputs.sample(step, run.dt, values, part.size());
    std::string err; // a failed write is reported when the file closes
    if (vmAll)
      vmAll->addRow((step - run.outFirst) / run.outEvery, part,
                    values + vmSlot * part.size(), err);
    outputSeconds += now() - o0;
  };
  rt::CellRange cells{0, vmAll ? sim.numCells() : 1};
  ok = sim.record(recorded, cells, run.outFirst, run.outEvery, onSample, error);
  if (std::string e = check(ok, error); !e.empty())
    return stop(e, 1);
  return 0;
}

/// The failure of a run that stopped, for people.
std::string whyStopped(rt::SimulationInterface &sim) {
  if (sim.ranks() == 1 && sim.nonFinite())
    return "simulation produced a non-finite value: " +
           sim.nonFinite()->message();
  return sim.failure().empty() ? "the run stopped" : sim.failure();
}

int Protocol::runAndFinish(rt::RunSummary &summary) {
  bool progress = cl.has("progress") ||
                  (!cl.has("no-progress") && root && isatty(2) &&
                   static_cast<double>(run.nLast) * sim.numCells() > 5e7);
  long lastPct = -1;
  if (progress)
    sim.onProgress([&](int64_t step) {
      long pct = static_cast<long>(100.0 * step / (run.nLast + 1));
      if (pct != lastPct) {
        lastPct = pct;
        std::fprintf(stderr, "\r[%-40s] %3ld%%  t = %.1f ms",
                     std::string(pct * 40 / 100, '#').c_str(), pct,
                     step * run.dt);
      }
    });
  double wallStart = now();
  bool ok = sim.run(run.nLast + 1);
  if (progress && root)
    std::fprintf(stderr, "\n");
  if (!ok)
    return stop(whyStopped(sim), sim.nonFinite() ? 3 : 1);
  if (cl.has("biomarkers") && !sim.closeBeat())
    return stop(whyStopped(sim), 1);
  wall = now() - wallStart;
  // Output files: all or nothing.
  std::string error;
  ok = !root || outputs.finish(error);
  if (std::string e = check(ok, error); !e.empty())
    return stop(e, 1);
  if (vmAll && !vmAll->close(true, error))
    return stop(error, 1);
  if (cl.has("biomarkers")) {
    double o0 = now();
    if (!sim.writeBiomarkers(cl.get("biomarkers"), perCell.names, error))
      return stop(error, 1);
    outputSeconds += now() - o0;
    int64_t rows = 0;
    rt::BiomarkerTable last = sim.lastBeat(rows);
    if (root)
      summary.biomarkersJson =
          rt::summarizeBiomarkers(last, rows, run.quiet ? nullptr : stderr);
  }
  if (root)
    outputSeconds += outputs.seconds;
  if (vmAll) {
    outputSeconds += vmAll->seconds();
    sim.addOutput(0, vmAll->bytes());
    summary.writer = vmAll->summary();
    summary.writerJson = vmAll->summaryJson();
  }
  sim.addOutput(outputSeconds, 0);
  summary.computeSeconds = sim.computeSeconds();
  summary.outputSeconds = sim.slowest(outputSeconds);
  summary.wallSeconds = wall;
  return 0;
}

} // namespace

int easyml::bench::runProtocol(rt::SimulationInterface &sim,
                               const BenchRun &run,
                               rt::RunSummary &summary) {
  Protocol p(sim, run);
  std::string error;
  if (!sim.valid(error))
    return p.stop(error, 1);
  if (!run.quiet && p.root) {
    std::fprintf(stderr, "Ionic model: %s", sim.desc().name);
    if (run.mpi)
      std::fprintf(stderr, "\nMPI: %d ranks%s", sim.ranks(),
                   run.writers.c_str());
    std::fprintf(stderr, "\n");
  }
  if (int code = p.setParameters())
    return code;
  if (int code = p.setUp())
    return code;
  return p.runAndFinish(summary);
}
