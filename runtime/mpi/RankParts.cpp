//===- RankParts.cpp - the parts of a simulation across ranks -------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "RankParts.h"

using namespace easyml::rt;

ParameterAccess &DistributedSimulation::parameters() { return *parameters_; }
BiomarkerAccess &DistributedSimulation::biomarkers() { return *biomarkers_; }
OutputAccess &DistributedSimulation::outputs() { return *outputs_; }
RunFigures &DistributedSimulation::figures() { return *figures_; }

Status RankParameters::set(const std::string &name, double value) {
  if (Status set = d_.params_.set(name, value); !set.ok())
    return set;
  if (d_.local_)
    d_.local_->setParamSet(d_.params_);
  return Status();
}

Status RankParameters::modify(const std::string &mods,
                              std::vector<std::string> *log) {
  if (Status changed = d_.params_.modify(mods, log); !changed.ok())
    return changed;
  if (d_.local_)
    d_.local_->setParamSet(d_.params_);
  return Status();
}

std::vector<std::string> RankParameters::unusedSettings() const {
  std::vector<bool> rows(d_.params_.size(), false);
  for (const std::string &name : d_.perCellNames_)
    rows[d_.params_.index(name)] = true;
  return d_.params_.unusedSettings(rows);
}

Status RankParameters::setPerCell(const std::string &name,
                                  const double *values) {
  const easyml_model_desc &d = d_.desc();
  if (d_.params_.index(name) < 0)
    return Status::invalid("model " + std::string(d.name) +
                           " has no parameter '" + name + "'");
  // Checked over every cell, so every rank gives the same answer.
  for (int64_t c = 0; c < d_.cells_; ++c)
    if (!std::isfinite(values[c]))
      return Status::invalid("parameter '" + name + "' of cell " +
                             std::to_string(c) + " is not finite (" +
                             std::to_string(values[c]) + ")");
  if (d_.local_)
    if (Status s =
            d_.local_->parameters().setPerCell(name, values + d_.owned().begin);
        !s.ok())
      return s;
  if (std::find(d_.perCellNames_.begin(), d_.perCellNames_.end(), name) ==
      d_.perCellNames_.end())
    d_.perCellNames_.push_back(name);
  d_.perCellValues_[d_.params_.index(name)].assign(values, values + d_.cells_);
  return Status();
}

Status RankParameters::setShared(const std::string &name) {
  int64_t p = d_.params_.index(name);
  if (p < 0)
    return Status::invalid("model " + std::string(d_.desc().name) +
                           " has no parameter '" + name + "'");
  if (d_.local_)
    if (Status s = d_.local_->parameters().setShared(name); !s.ok())
      return s;
  d_.perCellNames_.erase(
      std::remove(d_.perCellNames_.begin(), d_.perCellNames_.end(), name),
      d_.perCellNames_.end());
  d_.perCellValues_.erase(p);
  return Status();
}

bool RankParameters::perCell(const std::string &name, double *values) const {
  auto it = d_.perCellValues_.find(d_.params_.index(name));
  if (it == d_.perCellValues_.end())
    return false;
  std::copy(it->second.begin(), it->second.end(), values);
  return true;
}

double RankParameters::value(int64_t p, int64_t cell) const {
  if (d_.perCellValues_.empty() || d_.params_.isDerived(p) == false) {
    auto it = d_.perCellValues_.find(p);
    return it != d_.perCellValues_.end() ? it->second[cell]
                                         : d_.params_.value(p);
  }
  // A derived parameter: from the cell's own values.
  std::vector<double> values = d_.params_.values();
  std::vector<bool> rows(values.size(), false);
  for (auto &[q, v] : d_.perCellValues_) {
    values[q] = v[cell];
    rows[q] = true;
  }
  d_.params_.deriveCell(values.data(), d_.params_.keepMask(rows));
  return values[p];
}

Status RankOutputs::saveCheckpoint(const std::string &path,
                                   RunPosition position) {
  std::string error;
  if (!d_.saveCheckpoint(path, std::move(position), error))
    return Status::failed(error);
  return Status();
}

Status RankOutputs::loadCheckpoint(const std::string &path,
                                   RunPosition &position) {
  std::string error;
  if (!d_.loadCheckpoint(path, position, error))
    return Status::invalid(error);
  return Status();
}

std::map<std::string, double> RankFigures::speeds() const {
  return d_.local_ ? d_.local_->figures().speeds()
                   : std::map<std::string, double>();
}
