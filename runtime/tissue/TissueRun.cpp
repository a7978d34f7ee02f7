//===- TissueRun.cpp - one tissue simulation from its setup ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Tissue/TissueRun.h"
#include "easyml/Runtime/IO/Checkpoint.h"
#include "easyml/Runtime/Core/ModelProvider.h"
#include "easyml/Runtime/Simulation/Simulation.h"
#include "easyml/Runtime/Simulation/SimulationInterface.h"
#include "easyml/Runtime/Tissue/Tissue.h"
#include "easyml/Runtime/Tissue/TissueComm.h"
#include "easyml/Runtime/Tissue/TissueFiles.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace easyml::rt;

namespace {

/// Per-point parameter files, as values of the cells (numbered as `pg`
/// says).
bool setPointParameters(const TissueSetup &setup, const ProcessGrid &pg,
                        SimulationInterface &sim, std::string &error) {
  std::vector<int64_t> cellPoints = tissueCellPoints(setup.grid, pg);
  for (auto &[name, file] : setup.pointParameters) {
    std::vector<double> all, cells;
    if (!readGridNpy(file, setup.grid, all, error))
      return false;
    for (int64_t p : cellPoints)
      cells.push_back(all[p]);
    if (Status set = sim.parameters().setPerCell(name, cells.data()); !set.ok())
      return error = "point_parameters: " + set.message(), false;
  }
  return true;
}

/// Writes a grid field in the formats asked for.
class Writer {
public:
  Writer(const TissueSetup &s, std::vector<std::string> &files)
      : s_(s), files_(files) {}
  bool write(const std::string &base, const std::string &field,
             const std::vector<double> &values, std::string &error) {
    std::string path = s_.outputs.directory + "/" + base;
    if (s_.outputs.npy && !writeGridNpy(path + ".npy", s_.grid, values, error))
      return false;
    if (s_.outputs.npy)
      files_.push_back(path + ".npy");
    if (s_.outputs.vtk &&
        !writeGridVti(path + ".vti", s_.grid, field, values, error))
      return false;
    if (s_.outputs.vtk)
      files_.push_back(path + ".vti");
    return true;
  }

private:
  const TissueSetup &s_;
  std::vector<std::string> &files_;
};

int64_t nearestPoint(const TissueGrid &g, const std::array<double, 3> &x) {
  int64_t i[3];
  for (int a = 0; a < 3; ++a)
    i[a] = std::min<int64_t>(g.n[a] - 1,
                             std::max<int64_t>(0, std::llround(x[a] / g.h[a])));
  return g.index(i[0], i[1], i[2]);
}

SimulationOptions deviceOptions(const TissueSetup &setup) {
  SimulationOptions o;
  o.devices = DeviceSpec(setup.devices);
  o.cpuVariant = setup.variant;
  o.threads = setup.threads;
  // A GPU that fails mid-run: the run goes on without it (in one process,
  // each step from a host copy of its start), or stops.
  o.recover = setup.recover;
  // Where the wave is, cells may cost a device more: the balancer weighs
  // each device's cost of cells in an action potential (Vm at least -60
  // mV, above every model's rest) and of resting ones.
  o.balance.hotVm = -60;
  return o;
}

/// The cell order a checkpoint was saved in (1 x 1 x 1: point order).
ProcessGrid savedCellOrder(const std::string &path) {
  ProcessGrid pg;
  pg.p = {{1, 1, 1}};
  RunPosition position;
  // restart() says what is wrong with the file.
  if (!readCheckpointPosition(path, position).ok())
    return pg;
  for (int a = 0; a < 3; ++a) {
    auto it = position.client.find(std::string("tissue.cell_order_") + "xyz"[a]);
    if (it != position.client.end())
      pg.p[a] = static_cast<int>(it->second);
  }
  return pg;
}

/// How the ranks cut the grid: the setup's process grid, else for a
/// restart the one its checkpoint's cells are numbered by, else the one of
/// least halo surface. Boxes diffuse on the host: they are chosen only
/// where slabs would too (Crank-Nicolson, or CPU pools alone).
bool processGrid(const TissueSetup &setup, int ranks,
                 const SimulationOptions &options, const std::string &from,
                 ProcessGrid &pg, std::string &error) {
  pg = setup.options.processGrid;
  if (!pg.automatic()) {
    error = checkProcessGrid(setup.grid, pg, ranks);
    return error.empty();
  }
  if (!from.empty()) {
    // Boxes continue as they were cut; point order on slabs.
    ProcessGrid saved = savedCellOrder(from);
    if (saved.ranks() == ranks &&
        checkProcessGrid(setup.grid, saved, ranks).empty()) {
      pg = saved;
      return true;
    }
    if (saved.ranks() == 1) {
      pg = chooseProcessGrid(setup.grid, ranks, /*boxes=*/false);
      return true;
    }
  }
  bool boxes = setup.options.scheme != TissueOptions::Explicit ||
               (!options.devices.wantsGpu() && !options.devices.automatic());
  pg = chooseProcessGrid(setup.grid, ranks, boxes);
  return true;
}

} // namespace

namespace {

/// Whether `status` succeeded; its message in `error` where it did not.
bool succeeded(const Status &status, std::string &error) {
  if (!status.ok())
    error = status.message();
  return status.ok();
}

/// False on every rank when `ok` is false on one, with that rank's message.
bool agreeOn(SimulationInterface &sim, bool ok, std::string &error) {
  Status all = sim.agree(ok ? Status() : Status::failed(error));
  if (!all.ok())
    error = all.message();
  return all.ok();
}

/// A grid field written by rank 0 (every rank takes part in gathering it
/// and learns whether the write worked).
bool writeField(SimulationInterface &sim, Writer &writer,
                const std::string &base, const std::string &field,
                const std::vector<double> &values, std::string &error) {
  bool ok = sim.rank() != 0 || writer.write(base, field, values, error);
  return sim.ranks() == 1 ? ok : agreeOn(sim, ok, error);
}

/// The time loop with its snapshots, checkpoints (after the step's
/// snapshot, which they count as written), stop and progress.
bool runSteps(const TissueSetup &setup, SimulationInterface &sim,
              Tissue &tissue, Writer &writer, const Tissue::StepFn &checkpoint,
              const std::function<void(double)> &progress, std::string &error) {
  int64_t steps = std::llround(setup.duration / setup.options.dt);
  int64_t every =
      setup.outputs.snapshotEvery > 0
          ? std::max<int64_t>(
                1, std::llround(setup.outputs.snapshotEvery / setup.options.dt))
          : 0;
  auto snapshot = [&](int64_t step, std::string &e) {
    char name[64];
    std::snprintf(name, sizeof name, "vm_%09.3f", step * setup.options.dt);
    return succeeded(tissue.syncHost(), e) &&
           writeField(sim, writer, name, "Vm", tissue.vm(), e);
  };
  if (every)
    tissue.onStep([&](int64_t step, std::string &e) {
      return step % every != 0 || snapshot(step, e);
    });
  if (checkpoint)
    tissue.onStep(checkpoint);
  if (setup.untilActivated)
    tissue.onStep([&](int64_t, std::string &) {
      // A stop, not a failure: run() returns with the step reached.
      return tissue.activated() < tissue.report().tissuePoints;
    });
  if (progress && sim.rank() == 0)
    tissue.onStep([&](int64_t step, std::string &) {
      if (step % std::max<int64_t>(1, steps / 100) == 0)
        progress(double(step) / steps);
      return true;
    });
  bool ok = (!every || tissue.step() > 0 || snapshot(0, error)) &&
            succeeded(tissue.run(steps), error);
  if (!ok && setup.untilActivated && error.empty())
    ok = true; // every point activated
  return ok;
}

/// Biomarker maps, <column>_beat<k>, for every beat closed.
bool writeBiomarkers(const TissueSetup &setup, SimulationInterface &sim,
                     Tissue &tissue, Writer &writer, TissueResult &result,
                     std::string &error) {
  if (setup.outputs.biomarkers.empty())
    return true;
  if (!succeeded(tissue.finishBeats(), error))
    return false;
  result.beats = tissue.beats();
  for (int64_t beat = 0; beat < tissue.beats(); ++beat)
    for (int column : setup.outputs.biomarkers) {
      std::string name = std::string(biomarkerColumnName(column)) + "_beat" +
                         std::to_string(beat);
      if (!writeField(sim, writer, name, biomarkerColumnName(column),
                      tissue.biomarkerMap(column, beat), error))
        return false;
    }
  return true;
}

/// Activation map, biomarker maps, probes and conduction velocities (on
/// rank 0).
bool finish(const TissueSetup &setup, SimulationInterface &sim, Tissue &tissue,
            Writer &writer, TissueResult &result, std::string &error) {
  if (!succeeded(tissue.syncHost(), error) ||
      !writeBiomarkers(setup, sim, tissue, writer, result, error))
    return false;
  std::vector<double> lat = tissue.activationTimes();
  if (!setup.outputs.activation.empty() &&
      !writeField(sim, writer, setup.outputs.activation, "activation_time", lat,
                  error))
    return false;
  result.vm = tissue.vm();
  result.report = tissue.report();
  result.model = sim.desc().name;
  result.devices = sim.deviceDescription();
  if (sim.ranks() == 1 && sim.coupling())
    result.runtimeJson = sim.figures().reportJson(2);
  if (sim.rank() != 0)
    return true;
  for (const auto &x : setup.outputs.probes)
    result.probeTimes.push_back(lat[nearestPoint(setup.grid, x)]);
  for (int a = 0; a < 3; ++a)
    if (setup.grid.n[a] > 2)
      result.velocity[a] = conductionVelocity(setup.grid, lat, a);
  result.activation = std::move(lat);
  return true;
}

int64_t fileSize(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

/// The whole run to setup.checkpoint: the simulation's cells, the tissue's
/// position and the files written so far with their sizes. Collective.
bool saveCheckpoint(const TissueSetup &setup, SimulationInterface &sim,
                    Tissue &tissue, TissueResult &result, std::string &error) {
  auto t0 = std::chrono::steady_clock::now();
  RunPosition position;
  position.settings = setup.settings;
  for (const std::string &f : result.files)
    position.files.emplace_back(f, fileSize(f));
  if (!succeeded(tissue.syncHost(), error))
    return false;
  tissue.savePosition(position);
  if (Status saved = sim.outputs().saveCheckpoint(setup.checkpoint, position);
      !saved.ok())
    return error = saved.message(), false;
  ++result.checkpoints;
  result.checkpointSeconds += std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - t0)
                                  .count();
  return true;
}

/// Continues the run saved in setup.restart: the same settings, its cells
/// and tissue position, and the files it had written still there as they
/// were. Collective; nothing changed on failure.
bool restart(const TissueSetup &setup, SimulationInterface &sim,
             Tissue &tissue, TissueResult &result, std::string &error) {
  RunPosition position;
  if (Status loaded = sim.outputs().loadCheckpoint(setup.restart, position);
      !loaded.ok())
    return error = loaded.message(), false;
  if (std::string d = position.settingsDiffer(setup.settings); !d.empty())
    return error = setup.restart + ": another run's checkpoint: " + d, false;
  bool ok = succeeded(tissue.restorePosition(position), error);
  if (!ok)
    error = setup.restart + ": " + error;
  for (auto &[file, size] : position.files) {
    if (!ok || sim.rank() != 0)
      break;
    int64_t now = fileSize(file);
    if (now != size) {
      error = "cannot continue: '" + file + "', written before the "
              "checkpoint, is " +
              (now < 0 ? std::string("missing")
                       : "another file now (" + std::to_string(now) +
                             " bytes, " + std::to_string(size) + " then)");
      ok = false;
    }
    result.files.push_back(file);
  }
  if (sim.ranks() > 1 && !agreeOn(sim, ok, error))
    return false;
  result.restartStep = tissue.step();
  return ok;
}

} // namespace

namespace {

/// The devices the run went on without (one process).
void recordLosses(SimulationInterface &sim, TissueResult &result) {
  if (sim.ranks() != 1 || !sim.coupling())
    return;
  for (const DeviceLoss &d : sim.coupling()->lostDevices())
    result.recoveries.push_back({d.device, d.error, d.survivors, d.step});
}

/// The run: the simulation on the setup's devices, continued from the
/// checkpoint setup.restart when one is given.
bool runOnce(const TissueSetup &setup, const ModelHandle &model,
             TissueResult &result, std::string &error, ErrorKind &kind,
             const std::function<void(double)> &progress,
             const TissueRanks *ranks) {
  // Until the run starts, an error is in what the configuration asks.
  kind = ErrorKind::Invalid;
  const std::string &from = setup.restart;
  SimulationOptions options = deviceOptions(setup);
  if (!options.devices.valid())
    return error = "devices: " + options.devices.error, false;
  int64_t cells = 0;
  for (int64_t p = 0; p < setup.grid.points(); ++p)
    cells += setup.grid.isTissue(p);
  TissueOptions tissueOptions = setup.options;
  ProcessGrid &pg = tissueOptions.processGrid;
  if (!processGrid(setup, ranks ? ranks->comm->size() : 1, options, from, pg,
                   error))
    return false;
  bool boxes = ranks && !pg.slabs(setup.grid);
  std::unique_ptr<SimulationInterface> sim =
      ranks ? ranks->simulation(model, cells, options,
                                boxes ? tissueCellCounts(setup.grid, pg)
                                      : std::vector<int64_t>(),
                                !boxes && tissueOptions.balanceRanks &&
                                    tissueOptions.scheme ==
                                        TissueOptions::Explicit)
            : std::make_unique<Simulation>(model, cells, options);
  if (Status valid = sim->valid(); !valid.ok())
    return error = valid.message(), false;
  if (Status set = setup.parameters.empty()
                       ? Status()
                       : sim->parameters().modify(setup.parameters);
      !set.ok())
    return error = "parameters: " + set.message(), false;
  if (!setPointParameters(setup, pg, *sim, error))
    return false;
  Tissue tissue(*sim, setup.grid, setup.conductivity, tissueOptions,
                ranks ? ranks->comm : nullptr);
  for (const TissueStimulus &s : setup.stimuli)
    tissue.addStimulus(s);
  if (!succeeded(tissue.initialize(), error))
    return false;
  if (!from.empty() && !restart(setup, *sim, tissue, result, error)) {
    // A refused restart leaves the files of the run it would continue.
    result.files.clear();
    return false;
  }
  kind = ErrorKind::Failed;
  if (sim->rank() == 0)
    mkdir(setup.outputs.directory.c_str(), 0777);
  Writer writer(setup, result.files);
  int64_t every =
      setup.checkpoint.empty()
          ? 0
          : std::max<int64_t>(1, std::llround(setup.checkpointEvery /
                                              setup.options.dt));
  Tissue::StepFn checkpoint;
  if (every)
    checkpoint = [&](int64_t step, std::string &e) {
      return step % every != 0 ||
             saveCheckpoint(setup, *sim, tissue, result, e);
    };
  bool ok =
      runSteps(setup, *sim, tissue, writer, checkpoint, progress, error) &&
      finish(setup, *sim, tissue, writer, result, error);
  recordLosses(*sim, result);
  if (ok)
    return true;
  result.nonFinite = tissue.stoppedNonFinite();
  if (result.nonFinite)
    kind = ErrorKind::NonFinite;
  return false;
}

} // namespace

Status easyml::rt::runTissue(const TissueSetup &setup, TissueResult &result,
                             const std::function<void(double)> &progress,
                             ModelProvider &models, const TissueRanks *ranks) {
  // Across ranks, rank 0 first (the others then find the compiler's
  // cache filled), and every rank learns whether all loaded it.
  TissueComm *comm = ranks ? ranks->comm : nullptr;
  Expected<std::unique_ptr<ModelHandle>> loaded =
      Status::failed("the model was not loaded");
  for (int turn = 0; turn < (comm ? 2 : 1); ++turn) {
    if (!comm || (comm->rank() == 0) == (turn == 0))
      loaded = models.load({setup.model, {}});
    if (comm && turn == 0)
      comm->minimum(0); // rank 0 is done
  }
  if (comm && comm->minimum(loaded.ok() ? 1 : 0) == 0)
    return loaded.ok() ? Status::invalid("another rank could not load model '" +
                                         setup.model + "'")
                       : loaded.status();
  if (!loaded.ok())
    return loaded.status();
  std::unique_ptr<ModelHandle> model = loaded.take();
  std::string error;
  ErrorKind kind = ErrorKind::Failed;
  if (runOnce(setup, *model, result, error, kind, progress, ranks))
    return Status::success();
  for (const std::string &f : result.files)
    std::remove(f.c_str());
  result.files.clear();
  return Status::error(kind, error);
}

std::string TissueResult::json(const TissueSetup &setup) const {
  std::string out =
      "{\n  \"model\": \"" + model + "\",\n  \"devices\": \"" + devices +
      "\",\n  \"grid\": [" + std::to_string(setup.grid.n[0]) + ", " +
      std::to_string(setup.grid.n[1]) + ", " + std::to_string(setup.grid.n[2]) +
      "],\n  \"run\": " + report.json(2) + ",\n  \"activation_ms\": {";
  for (size_t i = 0; i < probeTimes.size(); ++i) {
    char v[48];
    std::snprintf(v, sizeof v, "%.6f", probeTimes[i]);
    out += (i ? ", \"" : "\"") + setup.outputs.probeNames[i] +
           "\": " + (std::isnan(probeTimes[i]) ? "null" : v);
  }
  out += "},\n  \"conduction_velocity_mm_per_ms\": {";
  for (int a = 0; a < 3; ++a) {
    char v[48];
    std::snprintf(v, sizeof v, "%.6f", velocity[a]);
    out += std::string(a ? ", \"" : "\"") + "xyz"[a] +
           "\": " + (std::isnan(velocity[a]) ? "null" : v);
  }
  char seconds[48];
  std::snprintf(seconds, sizeof seconds, "%.6f", checkpointSeconds);
  out += "},\n  \"recoveries\": [";
  for (size_t i = 0; i < recoveries.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"device\": \"" +
           recoveries[i].device +
           "\", \"step\": " + std::to_string(recoveries[i].step) +
           ", \"continued_on\": \"" + recoveries[i].devices + "\"}";
  out += "],\n  \"beats\": " + std::to_string(beats) +
         ",\n  \"checkpoints\": {\"count\": " + std::to_string(checkpoints) +
         ", \"seconds\": " + seconds +
         ", \"restart_step\": " + std::to_string(restartStep) +
         "},\n  \"files\": [";
  for (size_t i = 0; i < files.size(); ++i)
    out += (i ? ", \"" : "\"") + files[i] + "\"";
  out += "]";
  if (!runtimeJson.empty())
    out += ",\n  \"runtime\": " + runtimeJson;
  return out + "\n}\n";
}
