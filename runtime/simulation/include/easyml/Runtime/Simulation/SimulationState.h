//===- SimulationState.h - a simulation to and from state files -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A population's state (PopulationState.h, the format) taken from and put
// into a Simulation. Checkpoints (Checkpoint.h) go through
// SimulationInterface::outputs().
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_SIMULATIONSTATE_H
#define EASYML_RUNTIME_SIMULATION_SIMULATIONSTATE_H

#include "easyml/Runtime/IO/PopulationState.h"

#include <cstdint>
#include <string>

namespace easyml::rt {

class ParamSet;
class Simulation;

/// "" when `s` fits a simulation of `params`' model with `cells` cells
/// (the same model, variables, known per-cell parameters and cell count),
/// else what differs.
std::string stateMismatch(const PopulationState &s, const ParamSet &params,
                          int64_t cells);

/// Every cell of `sim` (after initialize()) to `path`.
/// Failed when it cannot be written.
Status saveState(const std::string &path, Simulation &sim);
/// `path` into `sim` (after initialize()): the same model, cell count and
/// variables, else an error naming the difference and nothing changed.
/// `restoreClock`: the simulation continues at the saved step (else it
/// keeps its own, as a study that starts its beats again).
/// Invalid for a file that cannot be read, is damaged or is of another
/// simulation.
Status loadState(const std::string &path, Simulation &sim,
                 bool restoreClock = true);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_SIMULATIONSTATE_H
