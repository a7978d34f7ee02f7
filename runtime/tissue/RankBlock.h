//===- RankBlock.h - a rank's block of a tissue's grid ----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Across MPI ranks, the part of the grid one rank holds and the buffer its
// Vm lives in during a diffusion step.
//
// Slabs: the rank's cells are the points of tissue of a block of points in
// point order. The buffer is the block with the halo either side (the
// points within the stencil's reach that other ranks own). The blocks
// start as even shares of the cells and follow the simulation's moves
// between ranks.
//
// Boxes: the rank's cells are the points of tissue of its box, and the
// buffer the box with one point of halo around it (BoxLayout); halos are
// the faces of the neighbouring boxes. The operator runs row by row of the
// box: a row is contiguous in the buffer and in the grid, so the flags and
// the source are the grid's.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUE_RANKBLOCK_H
#define EASYML_RUNTIME_TISSUE_RANKBLOCK_H

#include "easyml/Runtime/Tissue/Tissue.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace easyml::rt {

class TissueComm;
struct CgResult;

class RankBlock {
public:
  /// Points of the rank that are contiguous in the buffer and in the grid
  /// (one per row of a box, a slab in pieces), for the operator.
  struct Run {
    int64_t slot, point, n;
    /// The rank's cell at the run's first point (runsAreCells()).
    int64_t cell = 0;
  };

  RankBlock(const TissueGrid &grid, const std::vector<int64_t> &cellPoint,
            const std::vector<uint8_t> &flags, TissueComm &comm,
            const TissueOptions &options, const Tissue::DiffuseFn &diffuse)
      : grid_(grid), cellPoint_(cellPoint), flags_(flags), comm_(comm),
        options_(options), diffuse_(diffuse) {}

  /// Points either side of a point that the operator reads (slabs).
  static int64_t haloOf(const TissueGrid &grid);

  /// Every rank's cells (global numbers), this rank's among them.
  void setCells(const std::vector<CellRange> &cellRanges);
  /// Slabs: the blocks from the ranks' cells, the buffer, the cells'
  /// slots and the runs. `identity`: cell k is point k (no mask).
  void layOutSlab(bool identity);
  /// Boxes: the rank's box of `grid`, cut by `pg`; false with `error` when
  /// the simulation's cells are not shared as it says.
  bool layOutBoxes(const ProcessGrid &pg, std::string &error);

  /// Fills the halo of `v` (laid out as the buffer) from the other ranks.
  bool exchange(double *v, std::string &error);
  /// out = v + c . L v (+ src) over the runs (v, out as the buffer).
  void applyRuns(const double *v, double *out, const double c[3],
                 const double *src);
  /// `vm` (one per cell of the rank) into the buffer at their slots.
  void loadVm(const double *vm);
  /// The rank's cells' values in the buffer.
  std::vector<double> cellVm() const;
  /// Explicit sub-steps on the host's threads: `vm` into the buffer, then
  /// per sub-step the halos and the operator (`src` with the first);
  /// `work` adds the seconds computed. The buffer then holds the new Vm.
  bool explicitSubsteps(const double *vm, int64_t substeps, const double c[3],
                        const double *src, double &work, std::string &error);
  /// A Crank-Nicolson step over the block: `vm` into the buffer (x), the
  /// conjugate gradient with the search direction's halos exchanged
  /// before each application of the operator and its dot products summed
  /// over the ranks. The buffer then holds the new Vm.
  CgResult crankNicolson(const double *vm, const double c[3], const double *src,
                         std::string &error);

  /// `byPoint` (one value per grid point) at the rank's cells.
  std::vector<double> ownValues(const std::vector<double> &byPoint) const;
  /// The whole grid on rank 0 (NaN outside the tissue) from `own`, the
  /// values of the rank's cells (empty elsewhere).
  std::vector<double> gatherCells(const std::vector<double> &own,
                                  int64_t totalCells);

  const std::vector<CellRange> &cellRanges() const { return cellRanges_; }
  CellRange cells() const { return cells_; }
  CellRange block() const { return block_; }
  int64_t first() const { return first_; }
  std::vector<double> &buffer() { return vr_; }
  std::vector<double> &scratch() { return vo_; }
  const std::vector<int64_t> &cellSlot() const { return cellSlot_; }
  const std::vector<Run> &runs() const { return runs_; }
  /// The runs' points are the rank's cells in order (no mask).
  bool runsAreCells() const { return runsAreCells_; }
  /// Seconds spent exchanging halos.
  double exchangeSeconds() const { return exchangeSeconds_; }

private:
  const TissueGrid &grid_;
  const std::vector<int64_t> &cellPoint_;
  const std::vector<uint8_t> &flags_;
  TissueComm &comm_;
  const TissueOptions &options_;
  const Tissue::DiffuseFn &diffuse_;
  bool boxes_ = false;
  /// Slabs: every rank's block of points; every rank's cells.
  std::vector<CellRange> blocks_, cellRanges_;
  /// Boxes: the buffer's layout, and the flags of its points (0 in the
  /// halo and padding).
  BoxLayout layout_;
  std::vector<uint8_t> boxMask_;
  /// Where the rank's cell k (of cells_) is in the buffer.
  std::vector<int64_t> cellSlot_;
  std::vector<Run> runs_;
  bool runsAreCells_ = false;
  int64_t sx_ = 1, sy_ = 1, sz_ = 1;
  CellRange block_;
  /// The rank's cells (global numbers): the points of tissue in block_.
  CellRange cells_;
  /// The first point of the buffer vr_ (slabs); vo_ is its scratch.
  int64_t first_ = 0;
  std::vector<double> vr_, vo_;
  double exchangeSeconds_ = 0;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_TISSUE_RANKBLOCK_H
