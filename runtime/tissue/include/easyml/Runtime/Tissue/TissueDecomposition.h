//===- TissueDecomposition.h - a grid's points over ranks -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// How a tissue's grid is cut over MPI ranks: a process grid of px x py x pz
// boxes, rank r holding box (r mod px, r / px mod py, r / (px py)), each
// axis cut into parts differing by at most one point. A process grid that
// cuts only the grid's slowest axis gives slabs, contiguous in point order:
// the ranks then hold even shares of the cells in point order. Any other
// gives boxes: the cells are then numbered box by box (rank by rank, x
// fastest within a box), so that each rank's cells are one range.
//
// The automatic choice has the least halo surface (points on the cut
// faces), a face across x counted 1.5 times (its points are one per row,
// strided, where the others are whole rows), and among equals the fewest
// cuts across x, then y: rows are kept contiguous. With a mask, boxes
// whose tissue is uneven (one empty, or one more than a quarter above the
// mean) are not chosen; slabs, even shares of the cells, when none fits.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUEDECOMPOSITION_H
#define EASYML_RUNTIME_TISSUEDECOMPOSITION_H

#include "easyml/Runtime/Tissue/TissueGrid.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

struct ProcessGrid {
  /// Boxes per axis; all 0: chosen automatically.
  std::array<int, 3> p{{0, 0, 0}};

  bool automatic() const { return p[0] == 0 && p[1] == 0 && p[2] == 0; }
  int ranks() const { return p[0] * p[1] * p[2]; }
  /// Whether the boxes are slabs of `grid`, contiguous in point order.
  bool slabs(const TissueGrid &grid) const;
  /// "2 x 2 x 1".
  std::string str() const;
};

/// Empty, or why `pg` cannot cut `grid` over `ranks` ranks ("the process
/// grid 3 x 1 x 1 has 3 boxes for 4 ranks").
std::string checkProcessGrid(const TissueGrid &grid, const ProcessGrid &pg,
                             int ranks);

/// The process grid of least halo surface for `ranks` ranks; `boxes`
/// false: slabs along the slowest axis.
ProcessGrid chooseProcessGrid(const TissueGrid &grid, int ranks, bool boxes);

/// Rank `rank`'s box: points [lo, hi) per axis.
struct TissueBox {
  std::array<int64_t, 3> lo{{0, 0, 0}}, hi{{1, 1, 1}};
  int64_t points() const {
    return (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  }
};
TissueBox boxOf(const TissueGrid &grid, const ProcessGrid &pg, int rank);
/// The rank of the box at `coord` (box coordinates), -1 outside.
int rankAt(const ProcessGrid &pg, std::array<int, 3> coord);
std::array<int, 3> boxCoord(const ProcessGrid &pg, int rank);

/// Cell k is grid point cellPoints[k]: the points of tissue in point
/// order for slabs (or one rank), box by box for boxes.
std::vector<int64_t> tissueCellPoints(const TissueGrid &grid,
                                      const ProcessGrid &pg);
/// Points of tissue per rank of boxes.
std::vector<int64_t> tissueCellCounts(const TissueGrid &grid,
                                      const ProcessGrid &pg);

/// A box in a rank's buffer: its points and one point of halo either side
/// along every axis of the grid with more than one point, x fastest.
struct BoxLayout {
  TissueBox box;
  std::array<int64_t, 3> ext{{1, 1, 1}}, off{{0, 0, 0}};
  BoxLayout() = default;
  BoxLayout(const TissueGrid &grid, const TissueBox &box);
  int64_t size() const { return ext[0] * ext[1] * ext[2]; }
  /// Where grid point (x, y, z) of the box or its halo is.
  int64_t slot(int64_t x, int64_t y, int64_t z) const {
    return (x - box.lo[0] + off[0]) +
           ext[0] * ((y - box.lo[1] + off[1]) + ext[1] * (z - box.lo[2] + off[2]));
  }
  int64_t slotOf(const TissueGrid &grid, int64_t point) const;
};

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_TISSUEDECOMPOSITION_H
