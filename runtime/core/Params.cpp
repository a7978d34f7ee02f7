//===- Params.cpp - a model's parameters, set and derived -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/Params.h"
#include "easyml/Runtime/Core/CellStore.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace easyml::rt;

ParamSet::ParamSet(const easyml_model_desc &d)
    : desc_(&d), set_(d.num_params + d.num_flags, 0),
      derivedSlot_(d.num_params + d.num_flags, -1) {
  values_.assign(d.param_defaults, d.param_defaults + d.num_params);
  values_.insert(values_.end(), d.flag_defaults, d.flag_defaults + d.num_flags);
  for (int64_t k = 0; k < d.num_derived_params; ++k)
    derivedSlot_[d.derived_params[k]] = k;
}

int64_t ParamSet::index(const std::string &n) const {
  for (int64_t i = 0; i < desc_->num_params; ++i)
    if (n == desc_->param_names[i])
      return i;
  for (int64_t f = 0; f < desc_->num_flags; ++f)
    if (n == desc_->flag_names[f])
      return desc_->num_params + f;
  return -1;
}

std::string ParamSet::name(int64_t p) const {
  return p < desc_->num_params ? desc_->param_names[p]
                               : desc_->flag_names[p - desc_->num_params];
}

std::string ParamSet::formula(int64_t p) const {
  return isDerived(p) ? desc_->derived_formulas[derivedSlot_[p]] : "";
}

std::vector<int64_t> ParamSet::reads(int64_t p) const {
  if (!isDerived(p))
    return {};
  int64_t k = derivedSlot_[p];
  return std::vector<int64_t>(
      desc_->derived_reads + desc_->derived_read_offsets[k],
      desc_->derived_reads + desc_->derived_read_offsets[k + 1]);
}

bool ParamSet::readByKernels(int64_t p) const {
  return desc_->param_read && desc_->param_read[p] != 0;
}

void ParamSet::set(int64_t p, double value) {
  values_[p] = value;
  set_[p] = 1;
  derive();
}

Status ParamSet::set(const std::string &n, double value) {
  int64_t p = index(n);
  if (p < 0)
    return Status::invalid("model " + std::string(desc_->name) +
                           " has no parameter '" + n + "'");
  if (!std::isfinite(value))
    return Status::invalid("parameter '" + n + "' must be finite, got " +
                           std::to_string(value));
  set(p, value);
  return Status();
}

void ParamSet::reset(int64_t p) {
  set_[p] = 0;
  if (!isDerived(p))
    values_[p] = p < desc_->num_params
                     ? desc_->param_defaults[p]
                     : desc_->flag_defaults[p - desc_->num_params];
  derive();
}

void ParamSet::derive() {
  if (desc_->derive_params)
    desc_->derive_params(values_.data(), set_.data());
}

static double applyMod(const ParamMod &m, double x) {
  double v = m.percent ? m.operand / 100 : m.operand;
  switch (m.op) {
  case '+':
    return m.percent ? x * (1 + v) : x + v;
  case '-':
    return m.percent ? x * (1 - v) : x - v;
  case '*':
    return x * v;
  case '/':
    return x / v;
  default: // '='
    return m.percent ? x * v : v;
  }
}

Status ParamSet::modify(const std::string &mods,
                        std::vector<std::string> *log) {
  std::vector<ParamMod> items;
  std::string error;
  if (!parseParamMods(*desc_, mods, items, error))
    return Status::invalid(error);
  std::vector<double> savedValues = values_;
  std::vector<int64_t> savedSet = set_;
  std::vector<std::string> lines;
  auto apply = [&](const ParamMod &m) {
    int64_t p = m.index;
    bool flag = p >= desc_->num_params;
    values_[p] = flag ? m.operand : applyMod(m, values_[p]);
    set_[p] = 1;
    if (!std::isfinite(values_[p])) {
      error = "parameter modifier '" + m.text + "' makes " + name(p) +
              " non-finite";
      return false;
    }
    std::ostringstream os;
    if (flag)
      os << name(p) << " flag: " << m.text;
    else
      os << name(p)
         << " modifier: " << m.text.substr(m.text.find_first_of("=*/+-"))
         << " value: " << values_[p];
    lines.push_back(os.str());
    return true;
  };
  // Free parameters and flags as given, then each changed derived
  // parameter from the value the changes before it give (dependency
  // order).
  bool ok = true;
  for (const ParamMod &m : items)
    if (ok && !isDerived(m.index))
      ok = apply(m);
  derive();
  for (int64_t k = 0; ok && k < desc_->num_derived_params; ++k) {
    int64_t p = desc_->derived_params[k];
    bool changed = false;
    for (const ParamMod &m : items)
      if (ok && m.index == p)
        ok = apply(m), changed = true;
    if (changed)
      derive();
  }
  if (!ok) {
    values_ = savedValues;
    set_ = savedSet;
    return Status::invalid(error);
  }
  if (log)
    log->insert(log->end(), lines.begin(), lines.end());
  return Status();
}

std::vector<int64_t>
ParamSet::keepMask(const std::vector<bool> &perCell) const {
  std::vector<int64_t> keep = set_;
  for (size_t p = 0; p < perCell.size(); ++p)
    keep[p] |= perCell[p] ? 1 : 0;
  return keep;
}

std::vector<int64_t>
ParamSet::perCellDependents(const std::vector<bool> &perCell) const {
  std::vector<bool> varies = perCell;
  varies.resize(values_.size(), false);
  std::vector<int64_t> out;
  for (int64_t k = 0; k < desc_->num_derived_params; ++k) {
    int64_t p = desc_->derived_params[k];
    if (set_[p] || varies[p])
      continue;
    for (int64_t r : reads(p))
      if (varies[r]) {
        varies[p] = true;
        out.push_back(p);
        break;
      }
  }
  return out;
}

void ParamSet::deriveCell(double *values,
                          const std::vector<int64_t> &keep) const {
  if (desc_->derive_params)
    desc_->derive_params(values, keep.data());
}

std::vector<std::string>
ParamSet::unusedSettings(const std::vector<bool> &perCell) const {
  std::vector<int64_t> keep = keepMask(perCell);
  // Whether a change of p reaches a kernel: it is read there, or a derived
  // parameter that follows its definition reads it and matters itself.
  // Derived parameters come after what they read: decide them last first.
  std::vector<bool> matters(values_.size());
  for (size_t p = 0; p < values_.size(); ++p)
    matters[p] = readByKernels(p);
  for (int64_t k = desc_->num_derived_params - 1; k >= 0; --k) {
    int64_t p = desc_->derived_params[k];
    if (keep[p] || !matters[p])
      continue;
    for (int64_t r : reads(p))
      matters[r] = true;
  }
  std::vector<std::string> warnings;
  for (size_t p = 0; p < values_.size(); ++p) {
    if (!keep[p] || matters[p])
      continue;
    std::string users;
    for (int64_t k = 0; k < desc_->num_derived_params; ++k) {
      int64_t d = desc_->derived_params[k];
      for (int64_t r : reads(d))
        if (r == static_cast<int64_t>(p))
          users += (users.empty() ? "'" : ", '") + name(d) + "'";
    }
    warnings.push_back(
        "parameter '" + name(p) + "' is set but changes nothing: " +
        (users.empty()
             ? std::string("nothing in the model reads it")
             : "no kernel reads it and " + users + ", computed from it, " +
                   (users.find(',') == std::string::npos ? "is set too"
                                                         : "are set too")));
  }
  return warnings;
}

bool easyml::rt::updateDerivedRows(const ParamSet &params, CellStore &store,
                                   const std::vector<bool> &userRows,
                                   std::vector<int64_t> &derivedRows) {
  std::vector<int64_t> rows = params.perCellDependents(userRows);
  bool changed = rows != derivedRows;
  for (int64_t p : derivedRows)
    if (std::find(rows.begin(), rows.end(), p) == rows.end())
      store.makeShared(p);
  derivedRows = rows;
  if (rows.empty())
    return changed;
  std::vector<double *> out;
  for (int64_t p : rows)
    out.push_back(store.perCell(p) ? store.paramRow(p)
                                   : store.makePerCell(p, params.value(p)));
  std::vector<std::pair<int64_t, const double *>> given;
  for (size_t p = 0; p < userRows.size(); ++p)
    if (userRows[p] && store.perCell(p))
      given.push_back({static_cast<int64_t>(p), store.paramRow(p)});
  // One cell at a time: its own values over the shared ones; every derived
  // value that is not kept is recomputed from scratch in each call.
  std::vector<double> cell = params.values();
  std::vector<int64_t> keep = params.keepMask(userRows);
  for (int64_t c = 0; c < store.cells(); ++c) {
    for (auto &[p, row] : given)
      cell[p] = row[c];
    params.deriveCell(cell.data(), keep);
    for (size_t k = 0; k < rows.size(); ++k)
      out[k][c] = cell[rows[k]];
  }
  return true;
}
