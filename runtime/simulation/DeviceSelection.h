//===- DeviceSelection.h - the devices a simulation may use -----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_DEVICESELECTION_H
#define EASYML_RUNTIME_LIB_DEVICESELECTION_H

#include "easyml/Runtime/Schedule/DeviceTeam.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

/// Opens the devices `options.devices` names for `model`; false with
/// `error` naming what is missing.
bool selectDevices(const ModelHandle &model, const SimulationOptions &options,
                   DeviceSet &set, std::string &error);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_DEVICESELECTION_H
