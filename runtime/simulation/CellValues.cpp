//===- CellValues.cpp - the values of a process's cells -------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Simulation/CellValues.h"

#include "Scheduler.h"

#include <algorithm>

using namespace easyml::rt;

int64_t CellValues::cells() const { return s_.store().cells(); }

double &CellValues::state(int64_t cell, int64_t var) {
  s_.syncStates();
  // The caller may write through the reference.
  s_.statesWritten();
  return s_.store().sv(var)[cell];
}

double CellValues::getState(int64_t cell, int64_t var) {
  s_.syncStates();
  return s_.store().sv(var)[cell];
}

void CellValues::getStateRow(int64_t var, double *values) {
  s_.syncStates();
  const double *row = s_.store().sv(var);
  std::copy(row, row + cells(), values);
}

void CellValues::setStateRow(int64_t var, const double *values) {
  s_.syncStates();
  std::copy(values, values + cells(), s_.store().sv(var));
  s_.statesWritten();
}

void CellValues::exportStates(double *aos) {
  s_.syncStates();
  const CellStore &store = s_.store();
  int64_t n = s_.params().desc().sv_size, count = cells();
  for (int64_t v = 0; v < n; ++v) {
    const double *row = store.sv(v);
    for (int64_t c = 0; c < count; ++c)
      aos[c * n + v] = row[c];
  }
}

void CellValues::importStates(const double *aos) {
  s_.syncStates(); // hidden rows stay as they are
  CellStore &store = s_.store();
  int64_t n = s_.params().desc().sv_size, count = cells();
  for (int64_t v = 0; v < n; ++v) {
    double *row = store.sv(v);
    for (int64_t c = 0; c < count; ++c)
      row[c] = aos[c * n + v];
  }
  s_.statesWritten();
}

double CellValues::trace(int64_t cell, int64_t k) const {
  return s_.store().trace(k)[cell];
}

double *CellValues::external(int64_t index) { return s_.store().ext(index); }

double *CellValues::vm() {
  int64_t i = s_.params().desc().vm_index;
  return i < 0 ? nullptr : external(i);
}

double *CellValues::iion() {
  int64_t i = s_.params().desc().iion_index;
  return i < 0 ? nullptr : external(i);
}

void CellValues::evaluate(int64_t step) {
  WaveTask task;
  task.entry = Entry::Eval;
  task.dt = s_.dt();
  task.step0 = step;
  s_.runWave(task);
}
