//===- DeviceSelection.h - the devices a simulation may use -----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_DEVICESELECTION_H
#define EASYML_RUNTIME_LIB_DEVICESELECTION_H

#include "easyml/Runtime/Simulation/Simulation.h"

#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

/// The devices a simulation may use, opened.
struct DeviceSet {
  /// CPU pools first (when any), then GPUs in request order.
  std::vector<std::unique_ptr<Device>> devices;
  /// The CPU pools; `cpu` is the first (the one dimensioning adds).
  std::vector<int> cpus;
  std::vector<bool> cpuThreadsGiven;
  int cpu = -1;
  std::vector<int> gpus;
  /// Devices in use at the start (all requested; auto: decided later).
  std::vector<int> initial;
  bool automatic = false;
};

/// Opens the devices `options.devices` names for `model`; false with
/// `error` naming what is missing.
bool selectDevices(const ModelHandle &model, const SimulationOptions &options,
                   DeviceSet &set, std::string &error);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_DEVICESELECTION_H
