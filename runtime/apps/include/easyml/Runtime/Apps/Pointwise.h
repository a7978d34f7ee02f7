//===- Pointwise.h - a model against a reference, row by row --*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_POINTWISE_H
#define EASYML_RUNTIME_POINTWISE_H

#include "easyml/Runtime/Simulation/Simulation.h"

#include <string>

namespace easyml::rt {

struct PointwiseOptions {
  /// CSV with columns time_ms, Vm, Iion and one per state.
  std::string reference;
  std::string variant, impPar;
  double dt = 0.01;
  /// When set: the reference with the model's Iion, and the states after
  /// one step from every row.
  std::string writePath, stepPath;
};

/// The model's Iion at every row of the reference against the reference's:
/// `json` gets {"model", "rows", "max_abs_error", "max_abs_iion_ref",
/// "relative_error", "worst_time_ms"}. False with `error` for a bad file
/// or a non-finite result.
bool pointwiseCheck(const ModelHandle &model, const PointwiseOptions &options,
                    std::string &json, std::string &error);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_POINTWISE_H
