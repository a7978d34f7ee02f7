//===- HotCellCost.h - cost of hot and resting cells ------------*- C++ -*-===//
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
// wave moves and the slabs move with it; at least three windows of mixes
// different enough, else only their mean cost is known), and splits the
// cells into contiguous ranges in device order that make the slowest
// device's predicted time least for where the hot cells are now. Hot
// cells are counted per block of a multiple of the split's alignment:
// boundaries fall on block edges.
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
  size_t devices() const { return windows_.size(); }
  /// Whether any device has a fit.
  bool ready() const;
  /// A device without a fit costs 1 / speeds[d] seconds per cell·step,
  /// hot or not (speed 0: it gets no cells).
  void setSpeeds(const std::vector<double> &speeds) { speeds_ = speeds; }
  /// The predicted seconds per step of device `d` on `r`.
  double time(size_t d, CellRange r, const HotBlocks &hot) const;
  /// The slowest device's predicted time per step on `ranges`.
  double slowest(const std::vector<CellRange> &ranges,
                 const HotBlocks &hot) const;
  /// Contiguous ranges in device order, bounds on block edges, that make
  /// the slowest device's predicted time least (ready() only); a device
  /// with neither a fit nor a speed gets none.
  std::vector<CellRange> split(const HotBlocks &hot) const;

private:
  struct Window {
    double rest, hot, seconds;
  };
  void fit(size_t d);
  /// Device `d`'s seconds per step of a resting and of a hot cell: fitted,
  /// else from its speed; false when it has neither.
  bool costs(size_t d, double &rest, double &hot) const;
  /// The end of the longest range from block edge `begin` that device
  /// `d` computes within `limit` seconds per step.
  int64_t reach(size_t d, int64_t begin, double limit,
                const HotBlocks &hot) const;

  size_t history_;
  std::vector<std::deque<Window>> windows_;
  /// Per device: seconds per step of a resting and of a hot cell, and
  /// whether they are fitted.
  std::vector<double> rest_, hot_, speeds_;
  std::vector<char> fitted_;
  /// Windows since the device's two costs were last told apart (a ratio
  /// is forgotten a history's length of windows later).
  std::vector<size_t> sinceApart_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_HOTCELLCOST_H
