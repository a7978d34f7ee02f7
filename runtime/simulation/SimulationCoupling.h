//===- SimulationCoupling.h - a process's cells coupled to a tissue -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_SIMULATIONCOUPLING_H
#define EASYML_RUNTIME_LIB_SIMULATIONCOUPLING_H

#include "easyml/Runtime/Simulation/TissueCoupling.h"

#include <memory>

namespace easyml::rt {

class Scheduler;
class Simulation;

/// The TissueCoupling of `sim`'s cells, over the scheduler that runs them.
std::unique_ptr<TissueCoupling> makeTissueCoupling(Simulation &sim,
                                                   Scheduler &scheduler);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_SIMULATIONCOUPLING_H
