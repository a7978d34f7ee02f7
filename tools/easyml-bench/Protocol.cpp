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

#include <algorithm>
#include <cmath>
#include <sys/stat.h>
#include <unistd.h>

using namespace easyml;
using namespace easyml::bench;

namespace {

/// The options that fix what a run computes and writes, one "--name=value"
/// line each: a restart must give the same (devices, threads, balancing,
/// reports and the checkpoint options may change).
std::string runSettings(const CommandLine &cl) {
  static const char *free[] = {
      "checkpoint",   "checkpoint-every", "restart",        "devices",
      "variant",      "threads",          "device",         "max-wave-steps",
      "lb-threshold", "lb-min-window",    "lb-shares",      "no-lb",
      "lb-memory",    "dim-window",       "dim-tolerance",  "cache-dir",
      "report-json",  "progress",         "no-progress",    "quiet",
      "mpi-slow",     "mpi-writer",       "mpi-epoch-steps"};
  std::string out;
  for (const OptionSpec &o : cl.specs()) {
    if (!cl.has(o.name) ||
        std::find(std::begin(free), std::end(free), o.name) != std::end(free))
      continue;
    out += "--" + o.name + "=" + cl.get(o.name) + "\n";
  }
  return out;
}

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
  /// A restart: where the checkpoint left the run (else step 0).
  bool restarted = false;
  rt::RunPosition resume;
  int64_t startStep = 0;
  double outputSeconds = 0, wall = 0, checkpointSeconds = 0,
         checkpointBytes = 0;
  int checkpoints = 0;

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
  int restart();
  int openOutputs();
  void addCheckpoints();
  bool checkpoint(std::string &error);
  /// The first step >= startStep (> when `fired`: an event at startStep
  /// ran before the checkpoint) of first + k * every.
  int64_t next(int64_t first, int64_t every, bool fired) const;
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
  if (int code = restart())
    return code;
  if (run.saveStep >= 0 && next(run.saveStep, 0, true) >= 0)
    sim.addEvent(run.saveStep, [&](rt::SimulationInterface &s, int64_t,
                                   std::string &error) {
      if (s.rank() != 0 || !s.local())
        return true;
      double o0 = now();
      bool ok = rt::writeStateFile(cl.get("save-ini-file"), *s.local(), error);
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
  bool ok = !root || outputs.open(d, cl, run.traceNo, error,
                                  restarted ? &resume : nullptr);
  if (std::string e = check(ok, error); !e.empty())
    return stop(e, 1);
  if (cl.has("save-vm")) {
    int64_t rows = restarted ? resume.file(cl.get("save-vm")) : 0;
    if (rows < 0)
      return stop("the checkpoint has no position for output '" +
                      cl.get("save-vm") + "'",
                  1);
    vmAll =
        sim.openMatrix(cl.get("save-vm"),
                       sampleCount(run.outFirst, run.outEvery, run.nLast + 1),
                       sim.numCells(), error, rows);
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
        next(run.outFirst, run.outEvery, true),
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

int64_t Protocol::next(int64_t first, int64_t every, bool fired) const {
  if (first > startStep || (first == startStep && !fired))
    return first;
  if (every <= 0)
    return -1;
  return first + ((startStep - first) / every + 1) * every;
}

/// --restart: the cells, clock and biomarker rows of the checkpoint, whose
/// settings must be this run's.
int Protocol::restart() {
  if (!cl.has("restart"))
    return 0;
  std::string error;
  bool ok = sim.loadCheckpoint(cl.get("restart"), resume, error);
  if (ok) {
    if (std::string why = resume.settingsDiffer(runSettings(cl));
        !why.empty()) {
      error = cl.get("restart") + ": another run's checkpoint: " + why;
      ok = false;
    }
  }
  if (std::string e = check(ok, error); !e.empty())
    return stop(e, 1);
  restarted = true;
  startStep = sim.step();
  if (!run.quiet && root)
    std::fprintf(stderr, "Restarted from %s at t = %.3f ms\n",
                 cl.get("restart").c_str(), startStep * run.dt);
  return 0;
}

/// The run's whole state, after every event of the step has run: the
/// simulation's, and how far each output file got.
bool Protocol::checkpoint(std::string &error) {
  double o0 = now();
  rt::RunPosition position;
  position.settings = runSettings(cl);
  if (root && !outputs.positions(position, error))
    return false;
  if (vmAll) {
    int64_t rows = 0;
    if (!vmAll->checkpoint(rows, error))
      return false;
    position.files.emplace_back(cl.get("save-vm"), rows);
  }
  bool ok = sim.saveCheckpoint(cl.get("checkpoint"), position, error);
  struct stat st;
  if (ok && ::stat(cl.get("checkpoint").c_str(), &st) == 0)
    checkpointBytes = static_cast<double>(st.st_size);
  checkpointSeconds += now() - o0;
  ++checkpoints;
  return ok;
}

/// --checkpoint every --checkpoint-every ms, registered last so that the
/// step's other events have run when it is taken.
void Protocol::addCheckpoints() {
  if (!cl.has("checkpoint"))
    return;
  int64_t every = std::max(1L, std::lround(run.checkpointMs / run.dt));
  sim.addEvent(
      next(every, every, true),
      [this](rt::SimulationInterface &, int64_t, std::string &error) {
        return checkpoint(error);
      },
      every);
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
  summary.checkpoints = checkpoints;
  summary.checkpointSeconds = checkpointSeconds;
  summary.checkpointBytes = checkpointBytes;
  summary.restartStep = restarted ? startStep : -1;
  summary.computeSeconds = sim.computeSeconds();
  summary.outputSeconds = sim.slowest(outputSeconds);
  summary.wallSeconds = wall;
  return 0;
}

} // namespace

int easyml::bench::runProtocol(rt::SimulationInterface &sim,
                               const BenchRun &run, rt::RunSummary &summary) {
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
  p.addCheckpoints();
  return p.runAndFinish(summary);
}
