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

#include "LocalParts.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace easyml::rt;

Status easyml::rt::saveState(const std::string &path, Simulation &sim) {
  const easyml_model_desc &d = sim.desc();
  PopulationState s;
  s.model = d.name;
  s.cells = sim.numCells();
  s.sv = stateRowNames(d);
  for (int64_t e = 0; e < d.num_externals; ++e)
    s.externals.push_back(d.external_sim_names[e]);
  s.params = sim.parameters().perCellNames();
  RunClock c = sim.transfer().clock();
  s.step = c.step;
  s.beat = c.beat;
  s.beatStart = c.beatStart;
  s.dt = sim.dt();
  std::vector<double> row(s.cells);
  size_t width = s.width(), sv = s.sv.size(), ext = sv + s.externals.size();
  s.values.resize(s.cells * width);
  for (size_t v = 0; v < width; ++v) {
    if (v < sv)
      sim.values().getStateRow(static_cast<int64_t>(v), row.data());
    else if (v < ext)
      std::copy(sim.values().external(v - sv),
                sim.values().external(v - sv) + s.cells, row.begin());
    else
      sim.parameters().perCell(s.params[v - ext], row.data());
    for (int64_t cell = 0; cell < s.cells; ++cell)
      s.values[cell * width + v] = row[cell];
  }
  return writeWholeFile(path, serializeState(s), /*sync=*/true);
}

std::string easyml::rt::stateMismatch(const PopulationState &s,
                                      const ParamSet &params, int64_t cells) {
  const easyml_model_desc &d = params.desc();
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
    if (params.index(p) < 0)
      return "per-cell parameter '" + p + "': model " + d.name + " has none";
  return "";
}

Status easyml::rt::loadState(const std::string &path, Simulation &sim,
                             bool restoreClock) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::invalid("cannot read state file '" + path + "'");
  std::stringstream bytes;
  bytes << in.rdbuf();
  PopulationState s;
  auto bad = [&](const std::string &what) {
    return Status::invalid(path + ": " + what);
  };
  if (Status parsed = parseState(bytes.str(), s); !parsed.ok())
    return bad(parsed.message());
  if (std::string why =
          stateMismatch(s, sim.parameters().paramSet(), sim.numCells());
      !why.empty())
    return bad(why);
  size_t width = s.width(), sv = s.sv.size(), ext = sv + s.externals.size();
  std::vector<double> row(s.cells);
  // A checkpoint's biomarker accumulators are not a state's.
  for (size_t v = 0; v < ext + s.params.size(); ++v) {
    for (int64_t cell = 0; cell < s.cells; ++cell)
      row[cell] = s.values[cell * width + v];
    if (v < sv)
      sim.values().setStateRow(static_cast<int64_t>(v), row.data());
    else if (v < ext)
      std::copy(row.begin(), row.end(), sim.values().external(v - sv));
    else if (Status set =
                 sim.parameters().setPerCell(s.params[v - ext], row.data());
             !set.ok())
      return bad(set.message());
  }
  if (restoreClock)
    sim.transfer().setClock({s.step, s.beat, s.beatStart});
  return Status();
}

//===----------------------------------------------------------------------===//
// Simulation
//===----------------------------------------------------------------------===//

Status LocalOutputs::saveCheckpoint(const std::string &path,
                                    RunPosition position) {
  PopulationState st;
  if (Status taken = sim_.transfer().checkpointState(st, /*values=*/false);
      !taken.ok())
    return taken;
  position.speeds = s_.speeds();
  position.counters = s_.counters();
  st.run = position.json();
  st.extra = std::move(position.data);
  // Packed and written a block of cells at a time: no copy of the whole
  // population is made.
  StateFileWriter file(path, st);
  const int64_t block = 16384, width = static_cast<int64_t>(st.width());
  std::vector<double> buffer(std::min(block, st.cells) * width);
  for (int64_t c0 = 0; c0 < st.cells; c0 += block) {
    int64_t c1 = std::min(st.cells, c0 + block);
    if (!s_.packCells({c0, c1}, buffer.data()))
      return Status::failed(s_.failure());
    if (!file.add(buffer.data(), (c1 - c0) * width * sizeof(double)))
      break; // commit() says why
  }
  file.add(st.rows.data(), st.rows.size() * sizeof(double));
  file.add(st.extra.data(), st.extra.size() * sizeof(double));
  return file.commit();
}

Status LocalOutputs::loadCheckpoint(const std::string &path,
                                    RunPosition &position) {
  PopulationState st;
  if (Status read = readCheckpoint(path, st, position); !read.ok())
    return read;
  if (Status restored = sim_.transfer().restoreState(st, 0, s_.store().cells());
      !restored.ok())
    return restored.withContext(path + ": ");
  s_.beats().table().values = st.rows;
  if (position.counters.size() == s_.counters().size())
    s_.setCounters(position.counters);
  return Status();
}
