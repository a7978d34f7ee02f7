//===- Checkpoint.cpp - a whole run saved to continue it ------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include "easyml/Runtime/Checkpoint.h"
#include "easyml/Runtime/Json.h"
#include "easyml/Runtime/OutputFile.h"
#include "easyml/Runtime/Simulation.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace easyml::rt;

namespace {

std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else
      out += c;
  }
  return out + "\"";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool wholeNumber(const json::Value &v, int64_t &out) {
  if (!v.isNumber() || v.number != std::floor(v.number) ||
      std::fabs(v.number) > 9.0e15)
    return false;
  out = static_cast<int64_t>(v.number);
  return true;
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

std::string RunPosition::json() const {
  std::string out = "{\"settings\": " + quoted(settings) + ", \"files\": [";
  for (size_t i = 0; i < files.size(); ++i)
    out += std::string(i ? ", " : "") + "[" + quoted(files[i].first) + ", " +
           std::to_string(files[i].second) + "]";
  out += "], \"speeds\": {";
  bool first = true;
  for (auto &[id, speed] : speeds) {
    out += std::string(first ? "" : ", ") + quoted(id) + ": " + number(speed);
    first = false;
  }
  out += "}, \"counters\": [";
  for (size_t i = 0; i < counters.size(); ++i)
    out += std::string(i ? ", " : "") + std::to_string(counters[i]);
  out += "], \"complete\": ";
  out += complete ? "true" : "false";
  if (!client.empty()) {
    out += ", \"client\": {";
    bool first = true;
    for (auto &[name, value] : client) {
      out += std::string(first ? "" : ", ") + quoted(name) + ": " +
             number(value);
      first = false;
    }
    out += "}";
  }
  return out + "}";
}

bool RunPosition::parse(const std::string &line, std::string &error) {
  json::Value v;
  if (!json::parse(line, v, error) || !v.isObject())
    return error = "a damaged run position", false;
  const json::Value *s = v.find("settings"), *f = v.find("files"),
                    *sp = v.find("speeds"), *c = v.find("counters");
  if (!s || !s->isString() || !f || !f->isArray() || !sp || !sp->isObject() ||
      !c || !c->isArray())
    return error = "a damaged run position", false;
  *this = RunPosition();
  settings = s->string;
  if (const json::Value *c = v.find("complete")) {
    if (c->kind != json::Value::Bool)
      return error = "a damaged run position", false;
    complete = c->boolean;
  }
  for (const json::Value &item : f->items) {
    int64_t at = 0;
    if (!item.isArray() || item.items.size() != 2 ||
        !item.items[0].isString() || !wholeNumber(item.items[1], at))
      return error = "a damaged run position", false;
    files.emplace_back(item.items[0].string, at);
  }
  for (auto &[id, speed] : sp->members) {
    if (!speed.isNumber())
      return error = "a damaged run position", false;
    speeds[id] = speed.number;
  }
  for (const json::Value &item : c->items) {
    int64_t n = 0;
    if (!wholeNumber(item, n))
      return error = "a damaged run position", false;
    counters.push_back(n);
  }
  if (const json::Value *cl = v.find("client")) {
    if (!cl->isObject())
      return error = "a damaged run position", false;
    for (auto &[name, value] : cl->members) {
      if (!value.isNumber())
        return error = "a damaged run position", false;
      client[name] = value.number;
    }
  }
  return true;
}

int64_t RunPosition::file(const std::string &name) const {
  for (auto &[n, at] : files)
    if (n == name)
      return at;
  return -1;
}

std::string RunPosition::settingsDiffer(const std::string &other) const {
  auto lines = [](const std::string &text) {
    std::map<std::string, std::string> out;
    std::stringstream ss(text);
    for (std::string line; std::getline(ss, line);) {
      size_t eq = line.find('=');
      out[line.substr(0, eq)] =
          eq == std::string::npos ? "" : line.substr(eq + 1);
    }
    return out;
  };
  std::map<std::string, std::string> mine = lines(settings),
                                     theirs = lines(other);
  for (auto &[name, value] : mine) {
    auto it = theirs.find(name);
    if (it == theirs.end())
      return name + ": '" + value + "' in the checkpoint, not given here";
    if (it->second != value)
      return name + ": '" + it->second + "' here, '" + value +
             "' in the checkpoint";
  }
  for (auto &[name, value] : theirs)
    if (!mine.count(name))
      return name + ": '" + value + "' here, not given in the checkpoint";
  return "";
}

bool easyml::rt::readCheckpoint(const std::string &path, PopulationState &state,
                                RunPosition &position, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return error = "cannot read checkpoint '" + path + "'", false;
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (!parseState(bytes.str(), state, error))
    return error = path + ": " + error, false;
  if (state.run.empty())
    return error = path + ": a state file, not a checkpoint", false;
  if (!position.parse(state.run, error))
    return error = path + ": " + error, false;
  position.data = std::move(state.extra);
  return true;
}

bool easyml::rt::readCheckpointPosition(const std::string &path,
                                        RunPosition &position,
                                        std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return error = "cannot read checkpoint '" + path + "'", false;
  // The magic line, the header (which says whether a run line follows)
  // and the run line.
  std::string magic, header, run;
  std::getline(in, magic);
  std::getline(in, header);
  std::getline(in, run);
  json::Value h;
  std::string ignored;
  if (magic != "EASYML-STATE" || !in)
    return error = path + ": not an EasyML checkpoint", false;
  const json::Value *isRun = nullptr;
  if (json::parse(header, h, ignored))
    isRun = h.find("run");
  if (!isRun || !isRun->isNumber() || isRun->number == 0)
    return error = path + ": a state file, not a checkpoint", false;
  if (!position.parse(run, error))
    return error = path + ": " + error, false;
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
  st.accumulators = s.bio.on ? EASYML_BIO_NUM_ROWS + 2 : 0;
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
  st.rows = s.bio.table.values;
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
  int64_t acc = s.bio.on ? EASYML_BIO_NUM_ROWS + 2 : 0;
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
  position.counters = scheduler_->counters;
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
  scheduler_->bio.table.values = st.rows;
  if (position.counters.size() == scheduler_->counters.size())
    scheduler_->counters = position.counters;
  return true;
}
