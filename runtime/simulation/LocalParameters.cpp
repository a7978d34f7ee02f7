//===- LocalParameters.cpp - a one-process simulation's parameters --------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "LocalParts.h"
#include "Scheduler.h"

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

ParameterAccess::~ParameterAccess() = default;

const ParamSet &LocalParameters::paramSet() const { return s_.params(); }

Status LocalParameters::set(const std::string &name, double value) {
  if (Status set = s_.params().set(name, value); !set.ok())
    return set;
  s_.paramsChanged();
  return Status();
}

Status LocalParameters::modify(const std::string &mods,
                               std::vector<std::string> *log) {
  if (Status changed = s_.params().modify(mods, log); !changed.ok())
    return changed;
  s_.paramsChanged();
  return Status();
}

/// Why parameter `p` cannot have a row per cell on the devices in use, or
/// "" when it can. `via`: the parameter the user varies, when `p` is a
/// derived parameter computed from it.
static std::string
perCellProblem(const easyml_model_desc &d, int64_t p, const std::string &name,
               const std::string &via,
               const std::vector<std::unique_ptr<Device>> &devices) {
  std::string what = via.empty()
                         ? "parameter '" + name + "'"
                         : "parameter '" + via + "' cannot vary per cell: '" +
                               name + "', computed from it,";
  for (int64_t t = 0; t < d.num_tables; ++t)
    for (int64_t k = 0; k < d.tables[t].num_params_read; ++k)
      if (d.tables[t].params_read[k] == p)
        return what + " is read by lookup table " + d.tables[t].variable +
               ", which is built from one value: it cannot vary per cell "
               "(compile the model with --no-tables)";
  for (int64_t v = 0; v < d.num_nodal; ++v)
    if (d.nodal_param_index[v] == p)
      return what + " is nodal: it is per-cell state already (set it with "
                    "setStateRow)";
  // GPU variants read per cell only the parameters they were compiled for
  // (easyml-compile --per-cell-params): the others come from the shared
  // value, whatever the row holds.
  for (const auto &device : devices) {
    const easyml_variant &v = device->variant();
    if (v.num_row_params < 0 ||
        std::find(v.row_params, v.row_params + v.num_row_params, p) !=
            v.row_params + v.num_row_params)
      continue;
    std::string asked = via.empty() ? name : via;
    return what + (via.empty() ? " cannot vary per cell" : "") + " on " +
           device->id() + ": variant '" + v.name + "' of model " +
           std::string(d.name) +
           " reads it shared (compile the model with "
           "--per-cell-params=" +
           asked + ", or --per-cell-params=all)";
  }
  return "";
}

Status LocalParameters::setPerCell(const std::string &name,
                                   const double *values) {
  const easyml_model_desc &d = s_.params().desc();
  const ParamSet &ps = s_.params();
  int64_t p = ps.index(name);
  if (p < 0)
    return Status::invalid("model " + std::string(d.name) +
                           " has no parameter '" + name + "'");
  if (!(d.features & EASYML_FEATURE_PARAM_ROWS))
    return Status::invalid(
        "model " + std::string(d.name) +
        " was compiled without per-cell parameters (recompile it)");
  CellStore &store = s_.store();
  for (int64_t c = 0; c < store.cells(); ++c)
    if (!std::isfinite(values[c]))
      return Status::invalid("parameter '" + name + "' of cell " +
                             std::to_string(c) + " is not finite (" +
                             std::to_string(values[c]) + ")");
  std::string error = perCellProblem(d, p, name, "", s_.devices());
  // Its dependents vary with it: each must be able to.
  std::vector<bool> rows = s_.userRows();
  rows.resize(ps.size(), false);
  rows[p] = true;
  for (int64_t q : ps.perCellDependents(rows))
    if (error.empty())
      error = perCellProblem(d, q, ps.name(q), name, s_.devices());
  if (!error.empty())
    return Status::invalid(error);
  double *row = store.makePerCell(p, ps.value(p));
  std::copy(values, values + store.cells(), row);
  s_.userRows() = rows;
  s_.paramValuesWritten();
  s_.paramsChanged();
  return Status();
}

std::vector<std::string> LocalParameters::perCellNames() const {
  std::vector<std::string> out;
  const std::vector<bool> &rows = s_.userRows();
  for (size_t p = 0; p < rows.size(); ++p)
    if (rows[p])
      out.push_back(s_.params().name(p));
  return out;
}

bool LocalParameters::perCell(const std::string &name, double *values) const {
  int64_t p = s_.params().index(name);
  const std::vector<bool> &rows = s_.userRows();
  if (p < 0 || p >= static_cast<int64_t>(rows.size()) || !rows[p])
    return false;
  const double *row = s_.store().paramRow(p);
  std::copy(row, row + s_.store().cells(), values);
  return true;
}

Status LocalParameters::setShared(const std::string &name) {
  int64_t p = s_.params().index(name);
  if (p < 0)
    return Status::invalid("model " + std::string(s_.params().desc().name) +
                           " has no parameter '" + name + "'");
  s_.store().makeShared(p);
  std::vector<bool> &rows = s_.userRows();
  rows.resize(s_.params().size(), false);
  rows[p] = false;
  s_.paramValuesWritten();
  s_.paramsChanged();
  return Status();
}

std::vector<std::string> LocalParameters::unusedSettings() const {
  return s_.params().unusedSettings(s_.userRows());
}

double LocalParameters::value(int64_t p, int64_t cell) const {
  const double *row = s_.store().paramRow(p);
  return row ? row[cell] : s_.params().value(p);
}
