//===- BenchProtocol.cpp - openCARP bench's protocol on a simulation ------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// openCARP bench's protocol over a SimulationInterface: one process, or
// the ranks of `mpirun` (each holding a block of the cells). Every rank
// runs this code; rank 0 (which always holds cell 0) writes cell 0's
// openCARP files and says what happened. The simulation writes the files
// every rank contributes to (the Vm matrix, the biomarker table).
//
//===----------------------------------------------------------------------===//

#include "BenchOutputs.h"

#include "easyml/Runtime/Apps/BenchProtocol.h"
#include "easyml/Runtime/IO/Checkpoint.h"

#include "easyml/Runtime/Core/Population.h"
#include "easyml/Runtime/Simulation/Simulation.h"
#include "easyml/Runtime/Apps/StateFile.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace easyml::rt;

namespace {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// One run's state: the simulation, what the options asked for, and the
/// output files open so far.
struct Protocol {
  SimulationInterface &sim;
  const BenchProtocol &p;
  bool root;
  Columns perCell;
  CellZeroOutputs outputs;
  std::shared_ptr<MatrixFile> vmAll;
  int vmSlot = -1;
  /// A restart: where the checkpoint left the run (else step 0).
  bool restarted = false;
  RunPosition resume;
  int64_t startStep = 0;
  double outputSeconds = 0, wall = 0, checkpointSeconds = 0,
         checkpointBytes = 0;
  int checkpoints = 0;

  Protocol(SimulationInterface &sim, const BenchProtocol &p)
      : sim(sim), p(p), root(sim.rank() == 0) {}

  /// Removes what was written and returns `error`.
  Status stop(Status error) {
    outputs.remove();
    if (vmAll)
      (void)vmAll->close(/*keep=*/false); // nothing to report: abandoned
    return error;
  }
  /// Collective: "" when `ok` on every rank, else the message.
  std::string check(bool ok, std::string msg) {
    Status all = sim.agree(ok ? Status() : Status::failed(msg));
    return all.ok() ? std::string() : all.message();
  }
  void warn(const std::string &w) {
    if (root)
      std::fprintf(stderr, "%s: warning: %s\n", p.tool.c_str(), w.c_str());
  }

  Status setParameters();
  Status setUp();
  Status restart();
  Status openOutputs();
  void addCheckpoints();
  bool checkpoint(std::string &error, bool complete = false);
  /// A restart from a complete checkpoint: output files the killed run had
  /// already moved into place go back to their temporary names.
  bool reopenCommitted(std::string &error);
  /// The first step >= startStep (> when `fired`: an event at startStep
  /// ran before the checkpoint) of first + k * every.
  int64_t next(int64_t first, int64_t every, bool fired) const;
  Status runAndFinish(RunSummary &summary);
};

Status Protocol::setParameters() {
  std::vector<std::string> log;
  if (Status mods = sim.parameters().modify(p.impPar, &log); !mods.ok())
    return stop(Status::invalid(mods.message()));
  if (!p.quiet && root)
    for (auto &l : log)
      std::fprintf(stderr, "%s\n", l.c_str());
  // Per-cell parameters: every rank reads or samples the whole population
  // and keeps its block.
  if (!p.paramFile.empty() && !p.population.empty())
    return stop(Status::invalid("give one of --param-file and --population"));
  Status set;
  if (!p.paramFile.empty())
    set = sim.readPerCellParams(p.paramFile, perCell);
  else if (!p.population.empty())
    set = sim.samplePerCellParams(p.population, p.seed, p.grouped, perCell);
  if (std::string e = check(set.ok(), set.message()); !e.empty())
    return stop(Status::invalid(e));
  if (!p.quiet && root && !perCell.names.empty()) {
    std::string names;
    for (auto &n : perCell.names)
      names += (names.empty() ? "" : ", ") + n;
    std::fprintf(stderr, "Per-cell parameters: %s\n", names.c_str());
  }
  for (const std::string &w : sim.parameters().unusedSettings())
    warn(w);
  return Status::success();
}

Status Protocol::setUp() {
  std::string error;
  if (!p.caVariable.empty() && p.biomarkers.empty())
    return stop(Status::invalid("--ca-variable applies to --biomarkers"));
  if (!sim.initialize(p.dt))
    return stop(Status::failed(sim.failure()));
  for (const std::string &w : sim.figures().tableWarnings())
    warn(w);
  if (CellValues *cells = sim.cellValues(); !p.readIni.empty() && cells) {
    if (Status read = readStateFile(p.readIni, sim.desc(), *cells); !read.ok())
      return stop(read);
    cells->evaluate(0);
  }
  if (std::string e = check(sim.failure().empty(), sim.failure()); !e.empty())
    return stop(Status::failed(e));
  if (!p.biomarkers.empty()) {
    BiomarkerOptions bo;
    bo.caVariable = p.caVariable;
    if (Status st = sim.biomarkers().enable(bo); !st.ok())
      return stop(Status::invalid(st.message()));
  }
  if (p.numstim > 0) {
    Stimulus stim;
    stim.start = std::lround(p.stimStart / p.dt);
    stim.duration = p.stimLen;
    stim.strength = p.stimCurr;
    stim.period = std::lround(p.bcl / p.dt);
    stim.count = p.numstim;
    sim.addStimulus(stim);
  }
  if (Status s = restart(); !s.ok())
    return s;
  if (p.saveStep >= 0 && next(p.saveStep, 0, true) >= 0)
    sim.addEvent(
        p.saveStep, [&](SimulationInterface &s, int64_t, std::string &error) {
          if (s.rank() != 0 || !s.cellValues())
            return true;
          double o0 = now();
          Status written = writeStateFile(p.saveIni, s.desc(), *s.cellValues());
          outputSeconds += now() - o0;
          error = written.message();
          return written.ok();
        });
  return openOutputs();
}

/// Cell 0's files on rank 0; with --save-vm, every cell's Vm at every
/// output step, recorded inside the waves and written by every rank.
Status Protocol::openOutputs() {
  std::string error;
  const easyml_model_desc &d = sim.desc();
  bool ok = !root || outputs.open(d, p, error, restarted ? &resume : nullptr);
  if (std::string e = check(ok, error); !e.empty())
    return stop(Status::failed(e));
  if (!p.saveVm.empty()) {
    int64_t rows = restarted ? resume.file(p.saveVm) : 0;
    if (rows < 0)
      return stop(Status::invalid("the checkpoint has no position for output '" +
                         p.saveVm + "'"));
    auto opened = sim.outputs().openMatrix(
        p.saveVm, sampleCount(p.outFirst, p.outEvery, p.nLast + 1),
        sim.numCells(), rows);
    if (!opened.ok())
      return stop(Status::failed(opened.status().message()));
    vmAll = opened.take();
  }
  // Every rank records the same variables of the same cells, so every
  // rank cuts the same waves; each takes the samples of the cells it holds.
  std::vector<std::string> recorded = CellZeroOutputs::variablesFor(d, p);
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
        next(p.outFirst, p.outEvery, true),
        [&](SimulationInterface &, int64_t step, std::string &) {
          if (root)
            outputs.sample(step, p.dt, nullptr, 1);
          return true;
        },
        p.outEvery);
    return Status::success();
  }
  auto onSample = [&](int64_t step, CellRange part, const double *values) {
    double o0 = now();
    if (root && part.contains(int64_t{0}))
      outputs.sample(step, p.dt, values, part.size());
    // A failed write is reported when the file closes.
    if (vmAll)
      (void)vmAll->addRow((step - p.outFirst) / p.outEvery, part,
                          values + vmSlot * part.size());
    outputSeconds += now() - o0;
  };
  CellRange cells{0, vmAll ? sim.numCells() : 1};
  Status rec = sim.record(recorded, cells, p.outFirst, p.outEvery, onSample);
  if (std::string e = check(rec.ok(), rec.message()); !e.empty())
    return stop(Status::failed(e));
  return Status::success();
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
Status Protocol::restart() {
  if (p.restart.empty())
    return Status::success();
  std::string error;
  Status loaded = sim.outputs().loadCheckpoint(p.restart, resume);
  bool ok = loaded.ok();
  error = loaded.message();
  if (ok) {
    if (std::string why = resume.settingsDiffer(p.settings); !why.empty()) {
      error = p.restart + ": another run's checkpoint: " + why;
      ok = false;
    }
  }
  if (std::string e = check(ok, error); !e.empty())
    return stop(Status::invalid(e));
  ok = !resume.complete || !root || reopenCommitted(error);
  if (std::string e = check(ok, error); !e.empty())
    return stop(Status::failed(e));
  restarted = true;
  startStep = sim.step();
  if (!p.quiet && root)
    std::fprintf(stderr, "Restarted from %s at t = %.3f ms\n",
                 p.restart.c_str(), startStep * p.dt);
  return Status::success();
}

/// The run's whole state, after every event of the step has run: the
/// simulation's, and how far each output file got.
bool Protocol::checkpoint(std::string &error, bool complete) {
  double o0 = now();
  RunPosition position;
  position.settings = p.settings;
  position.complete = complete;
  if (root && !outputs.positions(position, error))
    return false;
  if (vmAll) {
    Expected<int64_t> rows = vmAll->checkpoint();
    if (!rows.ok())
      return error = rows.status().message(), false;
    position.files.emplace_back(p.saveVm, *rows);
  }
  Status saved = sim.outputs().saveCheckpoint(p.checkpoint, position);
  bool ok = saved.ok();
  if (!ok)
    error = saved.message();
  struct stat st;
  if (ok && ::stat(p.checkpoint.c_str(), &st) == 0)
    checkpointBytes = static_cast<double>(st.st_size);
  checkpointSeconds += now() - o0;
  ++checkpoints;
  return ok;
}

bool Protocol::reopenCommitted(std::string &error) {
  for (auto &[path, at] : resume.files) {
    std::string tmp = path + ".tmp";
    struct stat st;
    if (::stat(tmp.c_str(), &st) == 0 || ::stat(path.c_str(), &st) != 0)
      continue; // still to be moved, or missing (said when it is opened)
    if (std::rename(path.c_str(), tmp.c_str()) != 0) {
      error = "cannot continue '" + path + "': " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

/// --checkpoint every --checkpoint-every ms, registered last so that the
/// step's other events have run when it is taken.
void Protocol::addCheckpoints() {
  if (p.checkpoint.empty())
    return;
  int64_t every = std::max(1L, std::lround(p.checkpointMs / p.dt));
  sim.addEvent(
      next(every, every, true),
      [this](SimulationInterface &, int64_t, std::string &error) {
        return checkpoint(error);
      },
      every);
}

/// The failure of a run that stopped, for people.
std::string whyStopped(SimulationInterface &sim) {
  if (sim.ranks() == 1 && sim.nonFinite())
    return "simulation produced a non-finite value: " +
           sim.nonFinite()->message();
  return sim.failure().empty() ? "the run stopped" : sim.failure();
}

Status Protocol::runAndFinish(RunSummary &summary) {
  bool progress =
      p.progress == BenchProtocol::Progress::Always ||
      (p.progress == BenchProtocol::Progress::Auto && root && isatty(2) &&
       static_cast<double>(p.nLast) * sim.numCells() > 5e7);
  long lastPct = -1;
  if (progress)
    sim.onProgress([&](int64_t step) {
      long pct = static_cast<long>(100.0 * step / (p.nLast + 1));
      if (pct != lastPct) {
        lastPct = pct;
        std::fprintf(stderr, "\r[%-40s] %3ld%%  t = %.1f ms",
                     std::string(pct * 40 / 100, '#').c_str(), pct,
                     step * p.dt);
      }
    });
  double wallStart = now();
  bool ok = sim.run(p.nLast + 1);
  if (progress && root)
    std::fprintf(stderr, "\n");
  if (!ok)
    return stop(Status::error(
        sim.nonFinite() ? ErrorKind::NonFinite : ErrorKind::Failed,
        whyStopped(sim)));
  bool closed = restarted && resume.complete;
  if (!p.biomarkers.empty() && !closed && !sim.biomarkers().closeBeat())
    return stop(Status::failed(whyStopped(sim)));
  wall = now() - wallStart;
  std::string error;
  // The end, saved before the files move into place: a run killed while
  // they do is completed by a restart.
  if (!p.checkpoint.empty() && !closed) {
    bool saved = checkpoint(error, /*complete=*/true);
    if (std::string e = check(saved, error); !e.empty())
      return stop(Status::failed(e));
  }
  // Output files: all or nothing.
  ok = !root || outputs.finish(error);
  if (std::string e = check(ok, error); !e.empty())
    return stop(Status::failed(e));
  if (Status closed = vmAll ? vmAll->close(/*keep=*/true) : Status();
      !closed.ok())
    return stop(closed);
  if (!p.biomarkers.empty()) {
    double o0 = now();
    if (Status st = sim.biomarkers().write(p.biomarkers, perCell.names);
        !st.ok())
      return stop(Status::failed(st.message()));
    outputSeconds += now() - o0;
    int64_t rows = 0;
    BiomarkerTable last = sim.biomarkers().lastBeat(rows);
    if (root)
      summary.biomarkersJson =
          summarizeBiomarkers(last, rows, p.quiet ? nullptr : stderr);
  }
  if (root)
    outputSeconds += outputs.seconds;
  if (vmAll) {
    outputSeconds += vmAll->seconds();
    sim.figures().addOutput(0, vmAll->bytes());
    summary.writer = vmAll->summary();
    summary.writerJson = vmAll->summaryJson();
  }
  sim.figures().addOutput(outputSeconds, 0);
  summary.checkpoints = checkpoints;
  summary.checkpointSeconds = checkpointSeconds;
  summary.checkpointBytes = checkpointBytes;
  summary.restartStep = restarted ? startStep : -1;
  summary.computeSeconds = sim.figures().computeSeconds();
  summary.outputSeconds = sim.figures().slowest(outputSeconds);
  summary.wallSeconds = wall;
  return Status::success();
}

} // namespace

Status easyml::rt::runBenchProtocol(SimulationInterface &sim,
                                    const BenchProtocol &p,
                                    RunSummary &summary) {
  Protocol run(sim, p);
  if (Status st = sim.valid(); !st.ok())
    return run.stop(Status::invalid(st.message()));
  if (!p.quiet && run.root) {
    std::fprintf(stderr, "Ionic model: %s", sim.desc().name);
    if (p.mpi)
      std::fprintf(stderr, "\nMPI: %d ranks%s", sim.ranks(), p.writers.c_str());
    std::fprintf(stderr, "\n");
  }
  if (Status s = run.setParameters(); !s.ok())
    return s;
  if (Status s = run.setUp(); !s.ok())
    return s;
  run.addCheckpoints();
  summary.steps = p.nLast + 1;
  return run.runAndFinish(summary);
}
