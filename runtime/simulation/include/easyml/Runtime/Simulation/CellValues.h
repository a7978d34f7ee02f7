//===- CellValues.h - the values of a process's cells -----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Per-cell values of the cells one process holds, wherever they live:
// reading brings states back from the devices, writing sends them again
// before the next wave. Cells are numbered from 0 within the process.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_CELLVALUES_H
#define EASYML_RUNTIME_SIMULATION_CELLVALUES_H

#include "easyml/ABI/ABI.h"

#include <cstdint>

namespace easyml::rt {

class Scheduler;

class CellValues {
public:
  explicit CellValues(Scheduler &scheduler) : s_(scheduler) {}

  int64_t cells() const;
  /// Variable `var` (a state, nodal parameter or hidden value: sv row) of
  /// `cell`. The reference may be written (the devices get the states
  /// again before the next wave).
  double &state(int64_t cell, int64_t var);
  /// The same, read only (the devices keep their states).
  double getState(int64_t cell, int64_t var);
  /// Row `var` of every cell (cells() values) out of / into the
  /// simulation.
  void getStateRow(int64_t var, double *values);
  void setStateRow(int64_t var, const double *values);
  /// Copies every cell's record (`cells() * sv_size` values, openCARP's
  /// per-cell layout) out of / into the simulation.
  void exportStates(double *aos);
  void importStates(const double *aos);
  /// Recomputes outputs (Iion) and traced values from the current states,
  /// as at global step `step`.
  void evaluate(int64_t step);
  /// Traced value `k` of `cell` after evaluate().
  double trace(int64_t cell, int64_t k) const;
  /// Per-cell arrays of externals (cells() values each). They are current
  /// after every wave and read by the devices at the next one.
  double *external(int64_t index);
  double *vm();
  double *iion();

private:
  Scheduler &s_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_CELLVALUES_H
