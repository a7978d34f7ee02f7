//===- ParameterAccess.h - a simulation's parameters ------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The model parameters of a running simulation (SimulationInterface::
// parameters()): one value shared by every cell, or a value per cell. A
// derived parameter (computed from others, ParamSet) follows them, shared
// and per cell, unless it is set itself. Changes reach the devices at the
// next wave; lookup tables are built at initialize().
//
// Not collective under MPI: every rank makes the same change, with the
// values of every cell.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_PARAMETERACCESS_H
#define EASYML_RUNTIME_SIMULATION_PARAMETERACCESS_H

#include "easyml/Runtime/Core/Params.h"
#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace easyml::rt {

class ParameterAccess {
public:
  virtual ~ParameterAccess();

  /// The shared values and settings.
  virtual const ParamSet &paramSet() const = 0;
  const std::vector<double> &values() const { return paramSet().values(); }
  /// Sets parameter or flag `name` for every cell that has no value of its
  /// own; Invalid for an unknown name or a non-finite value.
  virtual Status set(const std::string &name, double value) = 0;
  /// Applies openCARP's `--imp-par` syntax (ParamSet::modify); Invalid
  /// for a modification that does not apply.
  virtual Status modify(const std::string &mods,
                        std::vector<std::string> *log = nullptr) = 0;
  /// Makes parameter or flag `name` per cell with `values` (one per cell
  /// of the simulation); the derived parameters computed from it vary per
  /// cell with it. Invalid for an unknown name, a non-finite value, or a
  /// parameter that cannot vary per cell (it, or a derived parameter
  /// computed from it, is read by a lookup table, nodal, or read shared by
  /// a GPU variant in use).
  virtual Status setPerCell(const std::string &name, const double *values) = 0;
  /// Back to one value for all cells (its shared value); Invalid for an
  /// unknown name.
  virtual Status setShared(const std::string &name) = 0;
  /// The parameters given per cell, and the values of one of them (one per
  /// cell of the simulation; false if it is shared).
  virtual std::vector<std::string> perCellNames() const = 0;
  virtual bool perCell(const std::string &name, double *values) const = 0;
  /// The value of parameter or flag `p` for `cell` (its own, or the shared
  /// value; derived ones computed from the cell's).
  virtual double value(int64_t p, int64_t cell) const = 0;
  /// One line per parameter set (shared or per cell) that changes nothing:
  /// no kernel reads it and every derived parameter computed from it is
  /// set too.
  virtual std::vector<std::string> unusedSettings() const = 0;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_PARAMETERACCESS_H
