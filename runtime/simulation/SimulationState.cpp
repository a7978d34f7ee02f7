//===- SimulationState.cpp - a simulation to and from state files ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include "easyml/Runtime/IO/Checkpoint.h"
#include "easyml/Runtime/IO/OutputFile.h"
#include "easyml/Runtime/Simulation/Simulation.h"
#include "easyml/Runtime/Simulation/SimulationState.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace easyml::rt;

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// The names of the per-cell parameter rows a packed cell carries (the
/// user's and the derived ones that follow them), in store order.
std::vector<std::string> packedParamNames(Scheduler &s) {
  std::vector<std::string> out;
  for (int64_t p = 0; p < s.store().numParams(); ++p)
    if (s.store().perCell(p))
      out.push_back(s.params().name(p));
  return out;
}

} // namespace

bool easyml::rt::saveState(const std::string &path, Simulation &sim,
                           std::string &error) {
  const easyml_model_desc &d = sim.desc();
  PopulationState s;
  s.model = d.name;
  s.cells = sim.numCells();
  s.sv = stateRowNames(d);
  for (int64_t e = 0; e < d.num_externals; ++e)
    s.externals.push_back(d.external_sim_names[e]);
  s.params = sim.perCellParams();
  Simulation::Clock c = sim.clock();
  s.step = c.step;
  s.beat = c.beat;
  s.beatStart = c.beatStart;
  s.dt = sim.dt();
  std::vector<double> row(s.cells);
  size_t width = s.width(), sv = s.sv.size(), ext = sv + s.externals.size();
  s.values.resize(s.cells * width);
  for (size_t v = 0; v < width; ++v) {
    if (v < sv)
      sim.getStateRow(static_cast<int64_t>(v), row.data());
    else if (v < ext)
      std::copy(sim.external(v - sv), sim.external(v - sv) + s.cells,
                row.begin());
    else
      sim.perCellParam(s.params[v - ext], row.data());
    for (int64_t cell = 0; cell < s.cells; ++cell)
      s.values[cell * width + v] = row[cell];
  }
  return writeWholeFile(path, serializeState(s), error, /*sync=*/true);
}

std::string easyml::rt::stateMismatch(const PopulationState &s, Simulation &sim,
                                      int64_t cells) {
  if (cells < 0)
    cells = sim.numCells();
  const easyml_model_desc &d = sim.desc();
  if (s.model != d.name)
    return "a state of model " + s.model + ", not " + d.name;
  if (s.cells != cells)
    return std::to_string(s.cells) + " cells, the simulation " +
           std::to_string(cells);
  std::vector<std::string> want = stateRowNames(d);
  if (s.sv.size() != want.size())
    return std::to_string(s.sv.size()) + " variables per cell, model " +
           d.name + " " + std::to_string(want.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (s.sv[i] != want[i])
      return "variable " + std::to_string(i + 1) + " is '" + s.sv[i] +
             "', model " + d.name + " has '" + want[i] + "'";
  bool sameExternals =
      static_cast<int64_t>(s.externals.size()) == d.num_externals;
  for (int64_t e = 0; sameExternals && e < d.num_externals; ++e)
    sameExternals = s.externals[e] == d.external_sim_names[e];
  if (!sameExternals)
    return "its externals differ from model " + std::string(d.name) + "'s";
  for (const std::string &p : s.params)
    if (sim.paramSet().index(p) < 0)
      return "per-cell parameter '" + p + "': model " + d.name + " has none";
  return "";
}

bool easyml::rt::loadState(const std::string &path, Simulation &sim,
                           std::string &error, bool restoreClock) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return error = "cannot read state file '" + path + "'", false;
  std::stringstream bytes;
  bytes << in.rdbuf();
  PopulationState s;
  auto bad = [&](const std::string &what) {
    error = path + ": " + what;
    return false;
  };
  if (!parseState(bytes.str(), s, error))
    return bad(error);
  if (std::string why = stateMismatch(s, sim); !why.empty())
    return bad(why);
  size_t width = s.width(), sv = s.sv.size(), ext = sv + s.externals.size();
  std::vector<double> row(s.cells);
  // A checkpoint's biomarker accumulators are not a state's.
  for (size_t v = 0; v < ext + s.params.size(); ++v) {
    for (int64_t cell = 0; cell < s.cells; ++cell)
      row[cell] = s.values[cell * width + v];
    if (v < sv)
      sim.setStateRow(static_cast<int64_t>(v), row.data());
    else if (v < ext)
      std::copy(row.begin(), row.end(), sim.external(v - sv));
    else if (!sim.setPerCellParam(s.params[v - ext], row.data(), error))
      return bad(error);
  }
  if (restoreClock)
    sim.setClock({s.step, s.beat, s.beatStart});
  return true;
}

//===----------------------------------------------------------------------===//
// Simulation
//===----------------------------------------------------------------------===//

bool Simulation::checkpointState(PopulationState &st, std::string &error,
                                 bool values) {
  Scheduler &s = *scheduler_;
  const easyml_model_desc &d = desc();
  st = PopulationState();
  st.model = d.name;
  st.cells = numCells();
  st.sv = stateRowNames(d);
  for (int64_t e = 0; e < d.num_externals; ++e)
    st.externals.push_back(d.external_sim_names[e]);
  st.params = packedParamNames(s);
  st.accumulators = s.beats().on() ? EASYML_BIO_NUM_ROWS + 2 : 0;
  Clock c = clock();
  st.step = c.step;
  st.beat = c.beat;
  st.beatStart = c.beatStart;
  st.dt = dt();
  if (static_cast<int64_t>(st.width()) != s.packedCellSize())
    return error = "internal error: a packed cell has " +
                   std::to_string(s.packedCellSize()) + " values, not " +
                   std::to_string(st.width()),
           false;
  st.rows = s.beats().table().values;
  if (!values)
    return true;
  st.values.resize(st.cells * st.width());
  if (!s.packCells({0, st.cells}, st.values.data()))
    return error = s.failure(), false;
  return true;
}

bool Simulation::restoreState(const PopulationState &st, int64_t firstCell,
                              int64_t totalCells, std::string &error) {
  Scheduler &s = *scheduler_;
  if (std::string why = stateMismatch(st, *this, totalCells); !why.empty())
    return error = why, false;
  if (st.dt != dt())
    return error = "dt " + number(st.dt) + " ms, this run " + number(dt()),
           false;
  std::vector<std::string> params = packedParamNames(s);
  if (st.params != params) {
    auto join = [](const std::vector<std::string> &v) {
      std::string out;
      for (auto &n : v)
        out += (out.empty() ? "" : ", ") + n;
      return out.empty() ? std::string("none") : out;
    };
    return error = "per-cell parameters " + join(st.params) + ", this run " +
                   join(params),
           false;
  }
  int64_t acc = s.beats().on() ? EASYML_BIO_NUM_ROWS + 2 : 0;
  if (st.accumulators != acc)
    return error = std::string(st.accumulators ? "with" : "without") +
                   " biomarkers, this run " + (acc ? "with" : "without"),
           false;
  if (firstCell < 0 || firstCell + numCells() > st.cells)
    return error = "internal error: cells out of range", false;
  if (!s.unpackCells({0, numCells()},
                     st.values.data() + firstCell * st.width()))
    return error = s.failure(), false;
  setClock({st.step, st.beat, st.beatStart});
  return true;
}

bool Simulation::saveCheckpoint(const std::string &path, RunPosition position,
                                std::string &error) {
  PopulationState st;
  if (!checkpointState(st, error, /*values=*/false))
    return false;
  position.speeds = speeds();
  position.counters = scheduler_->counters();
  st.run = position.json();
  st.extra = std::move(position.data);
  // Packed and written a block of cells at a time: no copy of the whole
  // population is made.
  StateFileWriter file(path, st);
  const int64_t block = 16384, width = static_cast<int64_t>(st.width());
  std::vector<double> buffer(std::min(block, st.cells) * width);
  for (int64_t c0 = 0; c0 < st.cells; c0 += block) {
    int64_t c1 = std::min(st.cells, c0 + block);
    if (!scheduler_->packCells({c0, c1}, buffer.data()))
      return error = scheduler_->failure(), false;
    if (!file.add(buffer.data(), (c1 - c0) * width * sizeof(double)))
      break; // commit() says why
  }
  file.add(st.rows.data(), st.rows.size() * sizeof(double));
  file.add(st.extra.data(), st.extra.size() * sizeof(double));
  return file.commit(error);
}

bool Simulation::loadCheckpoint(const std::string &path, RunPosition &position,
                                std::string &error) {
  PopulationState st;
  if (!readCheckpoint(path, st, position, error))
    return false;
  if (!restoreState(st, 0, numCells(), error))
    return error = path + ": " + error, false;
  scheduler_->beats().table().values = st.rows;
  if (position.counters.size() == scheduler_->counters().size())
    scheduler_->setCounters(position.counters);
  return true;
}
