//===- CellTransfer.h - cells handed between simulations --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Simulations of one model and protocol hand cells to each other (MPI
// ranks re-splitting a population, a drug study's stages): everything a
// cell carries, packed, the clock of the run, and the checkpoint of the
// cells without the run's position.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_CELLTRANSFER_H
#define EASYML_RUNTIME_SIMULATION_CELLTRANSFER_H

#include "easyml/Runtime/Core/CellStore.h"
#include "easyml/Runtime/IO/PopulationState.h"

#include <cstdint>
#include <string>
#include <vector>

namespace easyml::rt {

class Scheduler;

/// Where a run is: the step and the biomarker beat in progress.
struct RunClock {
  int64_t step = 0, beat = 0, beatStart = 0;
};

class CellTransfer {
public:
  explicit CellTransfer(Scheduler &scheduler) : s_(scheduler) {}

  /// Doubles per packed cell: sv rows (states, nodal, hidden), externals,
  /// per-cell parameter rows and, when enabled, the biomarker accumulators
  /// and the last two beats' APD90 history.
  int64_t packedCellSize() const;
  /// Copies cells `cells` (packedCellSize() doubles each, cell after cell)
  /// out of the simulation, wherever they live; false after a failure.
  bool pack(CellRange cells, double *out);
  /// Writes them back into cells `cells` of this simulation, which must
  /// have the same per-cell parameters and biomarker setting.
  bool unpack(CellRange cells, const double *in);

  RunClock clock() const;
  /// Continues another simulation's run (after initialize()).
  void setClock(const RunClock &clock);

  /// What the biomarkers carry from beat to beat, per cell: the last
  /// APD90 and its last change (for apd90_change and the alternans flag).
  /// set...: after enabling biomarkers, one value per cell each.
  void biomarkerHistory(std::vector<double> &lastApd90,
                        std::vector<double> &lastChange) const;
  void setBiomarkerHistory(const std::vector<double> &lastApd90,
                           const std::vector<double> &lastChange);

  /// The checkpoint of these cells (Checkpoint.h) without the run's
  /// position, and back: cells [firstCell, firstCell + cells) of `st` (a
  /// checkpoint of `totalCells`) into this simulation, with the clock,
  /// after checking the model, variables, dt, per-cell parameters and
  /// biomarker setting (Invalid with what differs, nothing changed).
  /// (`values` false: everything but the cells' values.)
  Status checkpointState(PopulationState &st, bool values = true);
  Status restoreState(const PopulationState &st, int64_t firstCell,
                      int64_t totalCells);

private:
  Scheduler &s_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_CELLTRANSFER_H
