//===- HotCellCost.h - cost of cells in and out of an action potential -*- C++
//-*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// In tissue the cells that cost more are where the wave is: a device's
// time per step is not proportional to its cells but to its resting cells
// plus its "hot" ones (in an action potential) weighed by what a hot cell
// costs that device. HotCellCost fits, per device, the seconds per step of
// a resting and of a hot cell by least squares over the device's last
// windows (the windows differ in how many hot cells the device held: the
// wave moves and the slabs move with it), and splits the cells into
// contiguous ranges in device order that equalise the predicted times for
// where the hot cells are now. Hot cells are counted per block of the
// split's alignment: boundaries fall on block edges anyway.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_HOTCELLCOST_H
#define EASYML_RUNTIME_HOTCELLCOST_H

#include "easyml/Runtime/Device.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace easyml::rt {

/// Hot cells before each block edge: entry k counts the hot cells of
/// blocks [0, k) of `align` cells (the last block may be shorter).
struct HotBlocks {
  int64_t cells = 0, align = 1;
  std::vector<int64_t> prefix;
  /// Hot cells in `r` (whose bounds are block edges or the end).
  int64_t in(CellRange r) const;
};

class HotCellCost {
public:
  explicit HotCellCost(size_t devices = 0, size_t history = 8);

  /// One judged window of device `d`: `cells` cells of which `hot` were
  /// hot (mean over the window), taking `secondsPerStep`.
  void add(size_t d, double cells, double hot, double secondsPerStep);
  /// The fitted seconds per step of one resting and one hot cell on `d`;
  /// false until the device has a fit.
  bool coefficients(size_t d, double &rest, double &hot) const;
  /// Whether every device has a fit.
  bool ready() const;
  /// The predicted seconds per step of device `d` on `r`.
  double time(size_t d, CellRange r, const HotBlocks &hot) const;
  /// The slowest device's predicted time per step on `ranges`.
  double slowest(const std::vector<CellRange> &ranges,
                 const HotBlocks &hot) const;
  /// Contiguous ranges in device order, bounds on block edges, that make
  /// the slowest device's predicted time least (ready() only).
  std::vector<CellRange> split(const HotBlocks &hot) const;

private:
  struct Window {
    double rest, hot, seconds;
  };
  void fit(size_t d);
  /// The end of the longest range from block edge `begin` that device
  /// `d` computes within `limit` seconds per step.
  int64_t reach(size_t d, int64_t begin, double limit,
                const HotBlocks &hot) const;

  size_t history_;
  std::vector<std::deque<Window>> windows_;
  /// Per device: seconds per step of a resting and of a hot cell, and
  /// whether they are fitted.
  std::vector<double> rest_, hot_;
  std::vector<char> fitted_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_HOTCELLCOST_H
