//===- StateFile.cpp - openCARP's single-cell state files -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Apps/StateFile.h"
#include "easyml/Runtime/IO/OutputFile.h"
#include "easyml/Runtime/Simulation/CellValues.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

using namespace easyml::rt;

namespace {

const char *kSimExternals[] = {
    "Vm",  "Lambda", "delLambda", "Tension",           "Ke",
    "Nae", "Cae",    "Iion",      "tension_component", "illum"};
const size_t kNumExternals = sizeof kSimExternals / sizeof *kSimExternals;

int64_t externalIndex(const easyml_model_desc &d, const char *name) {
  for (int64_t e = 0; e < d.num_externals; ++e)
    if (std::strcmp(d.external_sim_names[e], name) == 0)
      return e;
  return -1;
}

/// The file's lines and its numbers, each number checked where it is read.
struct StateLines {
  std::string path;
  std::vector<std::string> lines;
  std::string error;

  bool number(size_t line, double &out) {
    const std::string &s = lines[line];
    char *end = nullptr;
    out = std::strtod(s.c_str(), &end);
    if (end != s.c_str())
      return true;
    error = path + ":" + std::to_string(line + 1) +
            ": expected a number, got '" + s + "'";
    return false;
  }
  /// A '-' line: the model has no such external.
  bool absent(size_t line) const {
    return lines[line].rfind("-", 0) == 0 &&
           lines[line].find_first_of("0123456789") == std::string::npos;
  }
};

/// Checks the layout against the model: its name and enough state lines.
bool checkLayout(StateLines &f, const easyml_model_desc &d) {
  if (f.lines.size() < kNumExternals + 1) {
    f.error = "state file '" + f.path +
              "' is truncated: " + std::to_string(f.lines.size()) + " lines";
    return false;
  }
  std::string name = f.lines[kNumExternals];
  name.erase(name.find_last_not_of(" \t\r") + 1);
  if (name != d.name) {
    f.error = "state file '" + f.path + "' is for model '" + name +
              "', not '" + d.name + "'";
    return false;
  }
  if (f.lines.size() < kNumExternals + 1 + d.sv_size) {
    f.error = "state file '" + f.path + "' has " +
              std::to_string(f.lines.size() - kNumExternals - 1) +
              " state lines, model " + d.name + " needs " +
              std::to_string(d.sv_size);
    return false;
  }
  return true;
}

} // namespace

Status easyml::rt::writeStateFile(const std::string &path,
                                  const easyml_model_desc &d,
                                  CellValues &cells) {
  OutputFile out(path);
  if (!out.ok())
    return Status::failed(out.error());
  FILE *f = out.get();
  for (const char *name : kSimExternals) {
    int64_t e = externalIndex(d, name);
    if (e < 0)
      std::fprintf(f, "-\n");
    else
      std::fprintf(f, "%-20.17g# %s\n", cells.external(e)[0], name);
  }
  std::fprintf(f, "%s\n", d.name);
  for (int64_t v = 0; v < d.sv_size; ++v) {
    const char *name =
        v < d.num_states ? d.state_names[v]
                         : d.param_names[d.nodal_param_index[v - d.num_states]];
    std::fprintf(f, "%-20.17g# %s\n", cells.getState(0, v), name);
  }
  if (out.commit())
    return Status::success();
  return Status::failed(out.error());
}

Status easyml::rt::readStateFile(const std::string &path,
                                 const easyml_model_desc &d,
                                 CellValues &cells) {
  std::ifstream in(path);
  if (!in)
    return Status::invalid("cannot open state file '" + path +
                           "': " + std::strerror(errno));
  StateLines f{path, {}, {}};
  for (std::string l; std::getline(in, l);)
    f.lines.push_back(l);
  // Everything is read and checked before the simulation is touched.
  std::vector<std::pair<int64_t, double>> externals;
  std::vector<double> states(d.sv_size);
  bool ok = checkLayout(f, d);
  for (size_t i = 0; ok && i < kNumExternals; ++i) {
    int64_t e = externalIndex(d, kSimExternals[i]);
    double v;
    if (e >= 0 && !f.absent(i) && (ok = f.number(i, v)))
      externals.push_back({e, v});
  }
  for (int64_t v = 0; ok && v < d.sv_size; ++v)
    ok = f.number(kNumExternals + 1 + v, states[v]);
  if (!ok)
    return Status::invalid(f.error);
  for (auto [e, v] : externals)
    for (int64_t c = 0; c < cells.cells(); ++c)
      cells.external(e)[c] = v;
  for (int64_t v = 0; v < d.sv_size; ++v) {
    std::vector<double> row(cells.cells(), states[v]);
    cells.setStateRow(v, row.data());
  }
  return Status::success();
}
