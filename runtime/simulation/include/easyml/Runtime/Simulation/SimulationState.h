//===- SimulationState.h - a simulation to and from state files -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A population's state (PopulationState.h, the format) taken from and put
// into a Simulation. Checkpoints (Checkpoint.h) go through
// Simulation::saveCheckpoint and loadCheckpoint, defined with these.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_SIMULATIONSTATE_H
#define EASYML_RUNTIME_SIMULATION_SIMULATIONSTATE_H

#include "easyml/Runtime/IO/PopulationState.h"

#include <cstdint>
#include <string>

namespace easyml::rt {

class Simulation;

/// "" when `s` fits `sim` (the same model, variables, known per-cell
/// parameters and `cells` cells, by default sim's), else what differs.
std::string stateMismatch(const PopulationState &s, Simulation &sim,
                          int64_t cells = -1);

/// Every cell of `sim` (after initialize()) to `path`.
bool saveState(const std::string &path, Simulation &sim, std::string &error);
/// `path` into `sim` (after initialize()): the same model, cell count and
/// variables, else an error naming the difference and nothing changed.
/// `restoreClock`: the simulation continues at the saved step (else it
/// keeps its own, as a study that starts its beats again).
bool loadState(const std::string &path, Simulation &sim, std::string &error,
               bool restoreClock = true);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_SIMULATIONSTATE_H
