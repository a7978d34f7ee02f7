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
// cells into contiguous ranges that make the slowest device's predicted
// time least for where the hot cells are now. The ranges keep the order
// the devices' slabs have unless another order is predicted clearly
// faster: a device whose hot cells cost it little then takes the slab
// where the wave is, wherever it lies. Hot cells are counted per block
// of a multiple of the split's alignment: boundaries fall on block
// edges.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_HOTCELLCOST_H
#define EASYML_RUNTIME_HOTCELLCOST_H

#include "easyml/Runtime/Devices/Device.h"

#include <cmath>
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
  /// `d`'s measured ratio of a hot to a resting cell's cost (NaN: none).
  double measuredRatio(size_t d) const { return measuredRatio_[d]; }
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
  /// Contiguous ranges, bounds on block edges, that make the slowest
  /// device's predicted time least (ready() only); a device with neither
  /// a fit nor a speed gets none. The ranges follow one another in the
  /// order of `current` (by their first cell, devices without cells last;
  /// device order when empty) unless another order of the devices is
  /// predicted at least 15% faster with the hot cells' costs at the top of
  /// their confidence intervals (cautious()).
  std::vector<CellRange>
  split(const HotBlocks &hot, const std::vector<CellRange> &current = {}) const;
  /// The costs new orders of the slabs are judged by: each device's
  /// measured ratio of a hot to a resting cell `margins[d]` standard
  /// errors above its estimate (a device without one: the largest such
  /// ratio of any device, at least 1, or 1 where its margin is negative),
  /// scaled to its last window's mean cost.
  HotCellCost cautious(const std::vector<double> &margins) const;
  /// cautious() at the measured ratios themselves.
  HotCellCost estimates() const {
    return cautious(std::vector<double>(devices(), 0.0));
  }
  /// The slowest device's time per step on `to`, each device's ratio at
  /// the end of its confidence interval that makes the move look worst.
  double robustTime(const std::vector<CellRange> &to,
                    const HotBlocks &hot) const;

private:
  struct Window {
    double rest, hot, seconds;
  };
  void fit(size_t d);
  /// Device `d`'s seconds per step of a resting and of a hot cell: fitted,
  /// else from its speed; false when it has neither.
  bool costs(size_t d, double &rest, double &hot) const;
  /// Both costs fitted from windows whose (resting, hot) columns' squared
  /// cosine is below `maxCosine2`, each within kMaxRatio of the other.
  struct Fit {
    bool ok = false;
    double rest = 0, hot = 0;
    /// The relative standard error of their ratio; the largest share of
    /// hot cells in a window.
    double error = INFINITY, mostHot = 0;
  };
  static Fit fitCosts(const std::deque<Window> &windows, double maxCosine2);
  /// `d`'s measured ratio, `margin` standard errors above the estimate,
  /// within kMaxRatio either way.
  double bound(size_t d, double margin) const;
  /// The share of hot cells in `d`'s last window.
  double lastShare(size_t d) const;
  /// The best split with the devices' ranges in `order` (devices not in
  /// it get none) into `ranges`; its slowest device's predicted time.
  double splitInOrder(const std::vector<size_t> &order, const HotBlocks &hot,
                      std::vector<CellRange> &ranges) const;
  /// The end of the longest range from block edge `begin` that device
  /// `d` computes within `limit` seconds per step.
  int64_t reach(size_t d, int64_t begin, double limit,
                const HotBlocks &hot) const;

  size_t history_;
  std::vector<std::deque<Window>> windows_;
  /// The same over a longer history, for measuredRatio_.
  std::vector<std::deque<Window>> long_;
  /// Per device: seconds per step of a resting and of a hot cell, and
  /// whether they are fitted.
  std::vector<double> rest_, hot_, speeds_;
  std::vector<char> fitted_;
  /// Windows since the device's two costs were last told apart (a ratio
  /// is forgotten a history's length of windows later).
  std::vector<size_t> sinceApart_;
  /// Per device: the last ratio of a hot to a resting cell's cost fitted
  /// from windows of different enough mixes, within kMaxHotError (NaN:
  /// none yet). Kept for good: it judges new orders of the slabs.
  std::vector<double> measuredRatio_;
  /// The relative standard error of each measured ratio.
  std::vector<double> ratioError_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_HOTCELLCOST_H
