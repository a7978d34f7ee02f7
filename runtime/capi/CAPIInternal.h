//===- CAPIInternal.h - what the C API's files share -----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_CAPIINTERNAL_H
#define EASYML_RUNTIME_LIB_CAPIINTERNAL_H

#include "easyml/Runtime/IO/Checkpoint.h"
#include "easyml-c/Runtime.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <memory>
#include <string>

struct easyml_model {
  std::unique_ptr<easyml::rt::ModelHandle> handle;
};

struct easyml_sim {
  const easyml::rt::ModelHandle *model = nullptr;
  easyml::rt::SimulationOptions options;
  std::unique_ptr<easyml::rt::SimulationInterface> sim;
  /// `sim` when it runs in one process (per-cell access), else null.
  easyml::rt::Simulation *one = nullptr;
  std::string json;
  std::string text; // easyml_sim_param_warnings
  mutable std::string variant; // easyml_sim_variant
  /// easyml_sim_save_vm's file, until easyml_sim_finish.
  std::shared_ptr<easyml::rt::MatrixFile> vm;
  int64_t vmFirst = 0, vmEvery = 1;
  std::string vmPath;
  /// easyml_sim_restart's positions of the output files.
  easyml::rt::RunPosition resume;
};

namespace easyml::rt::capi {

/// Sets easyml_last_error(); returns 1.
int failWith(const std::string &msg);
/// A C handle for `sim` (null, with the error, when its devices cannot be
/// had).
easyml_sim *wrap(const easyml_model *model, const SimulationOptions &options,
                 std::unique_ptr<SimulationInterface> sim);

} // namespace easyml::rt::capi

#endif // EASYML_RUNTIME_LIB_CAPIINTERNAL_H
