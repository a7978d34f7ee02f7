//===- Balancer.h - adaptive partitioning of cells ------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Adaptive partitioning (after Huchant, Counilh and Barthou): the cells are
// split into contiguous ranges, one per device, in proportion to each
// device's measured speed (cell-steps per second). Each wave's device times
// are accumulated until the window is long enough to trust; then, if the
// devices' times differ by more than the threshold (at once when by more
// than twice the threshold, else in two windows in a row, so one noisy
// window moves nothing), the cells are split again from the speeds
// measured since the last split: the median of the windows' speeds once
// there are three (a window slowed by another process weighs no more than
// any other), else their mean. In tissue, where each device's cost of a
// resting and of a hot cell is fitted (HotCellCost), every judged window
// may also put the slabs in another order, balanced or not, when that is
// predicted clearly faster. A move is made only when the wave time it
// is predicted to save over the next waves (the rest of the run when
// known, else four windows) exceeds its predicted cost; every move's
// predicted gain is then checked against the next window's. Only policy
// lives here: no devices, no data.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_BALANCER_H
#define EASYML_RUNTIME_BALANCER_H

#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Schedule/HotCellCost.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace easyml::rt {

struct BalanceOptions {
  /// Re-split when (slowest - fastest) / slowest device time over the
  /// window exceeds this.
  double threshold = 0.10;
  /// Waves are accumulated until the slowest device has spent this long.
  double minWindowSeconds = 0.02;
  /// Never re-split (keep the initial shares).
  bool fixed = false;
  /// Under a periodic stimulus, learn each device's speed per phase of the
  /// cycle and split every wave by the speeds of its phase, once a cycle
  /// has been seen and when the predicted gain exceeds the move's cost
  /// (PhaseSpeeds.h).
  bool periodic = false;
  /// Two host devices side by side (CPU pools) share every compute wave
  /// instead of splitting it in advance: each computes chunks from its end
  /// of their cells until they meet, and the meeting point is the next
  /// wave's split (Scheduler, SharedWave.cpp). Off: the balancer splits.
  bool share = true;
  /// Cells whose Vm is at least this (mV) are "hot" (in an action
  /// potential) and may cost a device more than resting ones: the split
  /// weighs each device's fitted cost of both kinds where the hot cells
  /// are (HotCellCost.h). NaN: every cell of a device costs the same.
  double hotVm = NAN;
};

/// The relative imbalance of device times: (max - min) / max over the
/// devices that had cells; 0 with fewer than two.
double imbalance(const std::vector<double> &seconds,
                 const std::vector<int64_t> &cells);

/// The devices with cells, in the order of their ranges' first cells.
std::vector<size_t> rangeOrder(const std::vector<CellRange> &ranges);

/// Splits `cells` cells into contiguous ranges in device order, sizes in
/// proportion to `speeds` (devices with speed 0 get none), every boundary
/// a multiple of `align`. At least one device gets cells.
std::vector<CellRange>
splitCells(int64_t cells, const std::vector<double> &speeds, int64_t align);

class Balancer {
public:
  Balancer(int64_t cells, int64_t align, BalanceOptions options = {});

  /// Starts over with `ranges` (a new device set or an explicit split).
  void reset(const std::vector<CellRange> &ranges);
  const std::vector<CellRange> &ranges() const { return ranges_; }

  /// What observe() concluded.
  struct Decision {
    /// This wave's imbalance.
    double imbalance = 0;
    /// The window was long enough to judge.
    bool judged = false;
    /// The window's imbalance, when judged.
    double windowImbalance = 0;
    /// New ranges (when judged and above the threshold).
    bool repartition = false;
    std::vector<CellRange> ranges;
    /// Measured speeds behind the decision (cell-steps per second).
    std::vector<double> speeds;
    /// For a split judged worth making (repartition, or refused for its
    /// cost): the fraction of the wave time it is predicted to save, the
    /// seconds saved over the horizon and the move's predicted seconds.
    double predictedGain = 0, gainSeconds = 0, moveSeconds = 0;
    /// The split would have been made but costs more than it saves.
    bool tooCostly = false;
    /// The split puts the devices' ranges in another order (in tissue: a
    /// device whose hot cells cost it less takes the slab of the wave);
    /// forOrder: for that alone, the window's imbalance not acted on.
    bool reordered = false, forOrder = false;
    /// The last move's gain as this window measured it: 1 - (slowest
    /// device's time per step now) / (before the move); NaN when there is
    /// no move to judge.
    double measuredGain = NAN;
  };
  /// One wave of `steps` steps on the current ranges took `seconds` per
  /// device.
  Decision observe(const std::vector<double> &seconds, int64_t steps);
  /// Takes `ranges` (after a repartition the caller carried out).
  void adopt(const std::vector<CellRange> &ranges);
  /// What moving a cell costs each device (seconds; 0 for a device that
  /// shares the host's memory) and the steps left in the run (< 1:
  /// unknown), for the decisions of observe().
  void setMoveCost(const std::vector<double> &secondsPerCell,
                   int64_t remainingSteps);
  /// Counts where the hot cells are now (in blocks of the alignment), when
  /// a window is judged: the split then follows each device's cost of a
  /// resting and of a hot cell instead of its mean cost per cell.
  void setHotCells(std::function<void(HotBlocks &)> count) {
    countHot_ = std::move(count);
  }
  /// The fitted costs behind the hot-cell splits.
  const HotCellCost &hotCost() const { return hotCost_; }

  /// Device speeds measured so far (0 where never measured).
  const std::vector<double> &speeds() const { return speeds_; }
  /// Decisions taken (a window judged).
  int64_t judgements() const { return judgements_; }
  const BalanceOptions &options() const { return options_; }
  /// Windows from now on are at least this long (a caller whose
  /// repartitions are costly amortises them over longer windows).
  void setMinWindowSeconds(double seconds) {
    options_.minWindowSeconds = seconds;
  }

private:
  /// The speeds from the windows since the ranges last changed.
  void updateSpeeds(size_t n);
  /// The window's hot cells per device into hotCost_ (`hot`: now).
  void recordHot(const HotBlocks &hot, const std::vector<int64_t> &cells);
  /// The split for `speeds`, or for the hot cells' costs when known, and
  /// the slowest device's predicted time per step on it and now.
  /// For devices balanced on their slabs: whether another order of the
  /// slabs (`next`) is predicted to save enough (HotCellCost::split).
  bool reorderPays(const HotBlocks &hot, std::vector<CellRange> &next,
                   double &now, double &after);
  std::vector<CellRange> nextSplit(const HotBlocks *hot, double &now,
                                   double &after);

  int64_t cells_, align_;
  BalanceOptions options_;
  std::vector<CellRange> ranges_;
  std::vector<double> windowSeconds_, windowCellSteps_, speeds_;
  /// Steps in the window being accumulated; each judged window's speeds
  /// since the ranges last changed (per device).
  int64_t windowSteps_ = 0;
  std::vector<std::vector<double>> windowSpeeds_;
  /// The slowest device's time per step in the window that decided the
  /// last move, until a window after it is judged (NaN: none pending).
  double beforeMove_ = NAN, pendingBefore_ = NAN;
  std::vector<double> moveCost_;
  int64_t remaining_ = -1;
  /// Measurements since the ranges last changed.
  std::vector<double> sinceSeconds_, sinceCellSteps_;
  /// The last window was above the threshold (and nothing moved).
  bool above_ = false;
  int64_t judgements_ = 0;
  std::function<void(HotBlocks &)> countHot_;
  HotCellCost hotCost_;
  /// Hot cells per device at the start of the window (empty: unknown),
  /// counted for the ranges hotRanges_.
  std::vector<int64_t> startHot_;
  std::vector<CellRange> hotRanges_;
};

/// Device speeds remembered between runs (easyml-bench --lb-memory), by
/// model: "model <name>" then "speed <device id> <cell-steps/s>" lines. A
/// missing file remembers nothing; writing keeps what is remembered of
/// devices not measured this time.
bool readSpeedMemory(const std::string &path, const std::string &model,
                     std::map<std::string, double> &speeds,
                     std::string &error);
bool writeSpeedMemory(const std::string &path, const std::string &model,
                      const std::map<std::string, double> &speeds,
                      std::string &error);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_BALANCER_H
