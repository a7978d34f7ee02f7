//===- Balancer.cpp - adaptive partitioning of cells ----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/Balancer.h"

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

double easyml::rt::imbalance(const std::vector<double> &seconds,
                             const std::vector<int64_t> &cells) {
  double lo = 0, hi = 0;
  int n = 0;
  for (size_t d = 0; d < seconds.size(); ++d) {
    if (cells[d] <= 0)
      continue;
    lo = n ? std::min(lo, seconds[d]) : seconds[d];
    hi = n ? std::max(hi, seconds[d]) : seconds[d];
    ++n;
  }
  return n < 2 || hi <= 0 ? 0.0 : (hi - lo) / hi;
}

std::vector<size_t>
easyml::rt::rangeOrder(const std::vector<CellRange> &ranges) {
  std::vector<size_t> order;
  for (size_t d = 0; d < ranges.size(); ++d)
    if (!ranges[d].empty())
      order.push_back(d);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ranges[a].begin < ranges[b].begin;
  });
  return order;
}

std::vector<CellRange> easyml::rt::splitCells(int64_t cells,
                                              const std::vector<double> &speeds,
                                              int64_t align) {
  size_t n = speeds.size();
  std::vector<CellRange> ranges(n);
  if (n == 0)
    return ranges;
  double total = 0;
  for (double s : speeds)
    total += std::max(0.0, s);
  std::vector<double> share(n);
  if (total <= 0) {
    // Nothing measured: an even split.
    std::fill(share.begin(), share.end(), 1.0 / n);
  } else {
    for (size_t d = 0; d < n; ++d)
      share[d] = std::max(0.0, speeds[d]) / total;
  }
  // Boundaries at the cumulative shares, rounded to the alignment; the
  // last is the end.
  double cumulative = 0;
  int64_t begin = 0;
  for (size_t d = 0; d < n; ++d) {
    cumulative += share[d];
    int64_t end =
        d + 1 == n ? cells : std::llround(cumulative * cells / align) * align;
    end = std::clamp<int64_t>(end, begin, cells);
    ranges[d] = {begin, end};
    begin = end;
  }
  // Rounding may leave the whole run to a device of speed 0 (only when
  // every share rounded away): give it to the fastest.
  bool any = false;
  for (size_t d = 0; d < n; ++d)
    any |= !ranges[d].empty() && (total <= 0 || speeds[d] > 0);
  if (!any) {
    size_t best =
        std::max_element(speeds.begin(), speeds.end()) - speeds.begin();
    for (size_t d = 0; d < n; ++d)
      ranges[d] = d == best ? CellRange{0, cells} : CellRange{};
  }
  return ranges;
}

Balancer::Balancer(int64_t cells, int64_t align, BalanceOptions options)
    : cells_(cells), align_(align), options_(options) {}

void Balancer::reset(const std::vector<CellRange> &ranges) {
  ranges_ = ranges;
  windowSeconds_.assign(ranges.size(), 0.0);
  windowCellSteps_.assign(ranges.size(), 0.0);
  sinceSeconds_.assign(ranges.size(), 0.0);
  sinceCellSteps_.assign(ranges.size(), 0.0);
  if (speeds_.size() != ranges.size())
    speeds_.assign(ranges.size(), 0.0);
  windowSpeeds_.assign(ranges.size(), {});
  windowSteps_ = 0;
  above_ = false;
  beforeMove_ = pendingBefore_ = NAN;
  // The costs fitted so far stay, as the speeds do, for the same devices.
  if (hotCost_.devices() != ranges.size())
    hotCost_ = HotCellCost(ranges.size());
  startHot_.clear();
}

void Balancer::adopt(const std::vector<CellRange> &ranges) {
  ranges_ = ranges;
  std::fill(windowSeconds_.begin(), windowSeconds_.end(), 0.0);
  std::fill(windowCellSteps_.begin(), windowCellSteps_.end(), 0.0);
  std::fill(sinceSeconds_.begin(), sinceSeconds_.end(), 0.0);
  std::fill(sinceCellSteps_.begin(), sinceCellSteps_.end(), 0.0);
  windowSpeeds_.assign(ranges.size(), {});
  windowSteps_ = 0;
  above_ = false;
  // The move the last judgement decided is measured by the next window.
  beforeMove_ = pendingBefore_;
  pendingBefore_ = NAN;
  if (ranges != hotRanges_)
    startHot_.clear();
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// The slowest device's time per step for `ranges` at `speeds`.
double stepTime(const std::vector<CellRange> &ranges,
                const std::vector<double> &speeds) {
  double t = 0;
  for (size_t d = 0; d < ranges.size(); ++d)
    if (!ranges[d].empty() && speeds[d] > 0)
      t = std::max(t, ranges[d].size() / speeds[d]);
  return t;
}

/// Whether the devices with cells before and after are in another order.
bool reordered(const std::vector<CellRange> &before,
               const std::vector<CellRange> &after) {
  auto both = [&](const std::vector<CellRange> &ranges) {
    std::vector<size_t> order;
    for (size_t d : rangeOrder(ranges))
      if (!before[d].empty() && !after[d].empty())
        order.push_back(d);
    return order;
  };
  return both(before) != both(after);
}

} // namespace

void Balancer::setMoveCost(const std::vector<double> &secondsPerCell,
                           int64_t remainingSteps) {
  moveCost_ = secondsPerCell;
  remaining_ = remainingSteps;
}

void Balancer::updateSpeeds(size_t n) {
  for (size_t d = 0; d < n; ++d) {
    if (windowSeconds_[d] > 0 && windowCellSteps_[d] > 0)
      windowSpeeds_[d].push_back(windowCellSteps_[d] / windowSeconds_[d]);
    if (windowSpeeds_[d].size() >= 3)
      speeds_[d] = median(windowSpeeds_[d]);
    else if (sinceSeconds_[d] > 0 && sinceCellSteps_[d] > 0)
      speeds_[d] = sinceCellSteps_[d] / sinceSeconds_[d];
  }
}

void Balancer::recordHot(const HotBlocks &hot,
                         const std::vector<int64_t> &cells) {
  bool start = startHot_.size() == cells.size() && hotRanges_ == ranges_;
  for (size_t d = 0; d < cells.size(); ++d) {
    if (cells[d] <= 0)
      continue;
    double now = static_cast<double>(hot.in(ranges_[d]));
    double mean = start ? 0.5 * (now + startHot_[d]) : now;
    hotCost_.add(d, static_cast<double>(cells[d]), mean,
                 windowSeconds_[d] / std::max<int64_t>(1, windowSteps_));
  }
}

std::vector<CellRange> Balancer::nextSplit(const HotBlocks *hot, double &now,
                                           double &after) {
  hotCost_.setSpeeds(speeds_);
  if (hot && hotCost_.ready()) {
    std::vector<CellRange> next = hotCost_.split(*hot, ranges_);
    now = hotCost_.slowest(ranges_, *hot);
    after = hotCost_.slowest(next, *hot);
    if (reordered(ranges_, next)) {
      // A new order is predicted by the costs that chose it.
      HotCellCost judge = hotCost_.estimates();
      now = judge.slowest(ranges_, *hot);
      after = judge.slowest(next, *hot);
    }
    return next;
  }
  // A device that had no cells has no fresh speed: keep its last one (0
  // if never measured, so it stays without cells).
  std::vector<CellRange> next = splitCells(cells_, speeds_, align_);
  now = stepTime(ranges_, speeds_);
  after = stepTime(next, speeds_);
  return next;
}

bool Balancer::reorderPays(const HotBlocks &hot, std::vector<CellRange> &next,
                           double &now, double &after) {
  hotCost_.setSpeeds(speeds_);
  if (!hotCost_.ready())
    return false;
  // split() changes the order only for a large gain, robust to the fits'
  // errors.
  next = hotCost_.split(hot, ranges_);
  if (!reordered(ranges_, next))
    return false;
  HotCellCost judge = hotCost_.estimates();
  now = judge.slowest(ranges_, hot);
  after = judge.slowest(next, hot);
  return true;
}

Balancer::Decision Balancer::observe(const std::vector<double> &seconds,
                                     int64_t steps) {
  Decision decision;
  size_t n = ranges_.size();
  std::vector<int64_t> cells(n);
  for (size_t d = 0; d < n; ++d)
    cells[d] = ranges_[d].size();
  decision.imbalance = imbalance(seconds, cells);
  for (size_t d = 0; d < n; ++d) {
    double cellSteps = static_cast<double>(cells[d]) * steps;
    windowSeconds_[d] += seconds[d];
    windowCellSteps_[d] += cellSteps;
    sinceSeconds_[d] += seconds[d];
    sinceCellSteps_[d] += cellSteps;
  }
  windowSteps_ += steps;
  double longest =
      n ? *std::max_element(windowSeconds_.begin(), windowSeconds_.end()) : 0;
  if (n < 2 || longest < options_.minWindowSeconds)
    return decision;
  // Judge the window.
  decision.judged = true;
  ++judgements_;
  decision.windowImbalance = imbalance(windowSeconds_, cells);
  double perStep = longest / std::max<int64_t>(1, windowSteps_);
  if (!std::isnan(beforeMove_) && beforeMove_ > 0) {
    decision.measuredGain = 1 - perStep / beforeMove_;
    beforeMove_ = NAN;
  }
  updateSpeeds(n);
  decision.speeds = speeds_;
  HotBlocks hot;
  if (countHot_) {
    countHot_(hot);
    recordHot(hot, cells);
  }
  const HotBlocks *hotNow = countHot_ ? &hot : nullptr;
  // The next window starts on the ranges kept, unless a move is made.
  auto startOn = [&](const std::vector<CellRange> &ranges) {
    if (!hotNow)
      return;
    hotRanges_ = ranges;
    startHot_.clear();
    for (CellRange r : ranges)
      startHot_.push_back(hot.in(r));
  };
  startOn(ranges_);
  int64_t windowSteps = windowSteps_;
  std::fill(windowSeconds_.begin(), windowSeconds_.end(), 0.0);
  std::fill(windowCellSteps_.begin(), windowCellSteps_.end(), 0.0);
  windowSteps_ = 0;
  bool above = decision.windowImbalance > options_.threshold;
  // One window just above the threshold may be noise: act on a large
  // imbalance at once, on a small one when the next window confirms it.
  bool act =
      above && (above_ || decision.windowImbalance > 2 * options_.threshold);
  above_ = above && !act;
  if (options_.fixed)
    return decision;
  double now = 0, after = 0;
  std::vector<CellRange> next;
  // Balanced devices may still be on the wrong slabs: the wave has
  // reached cells that cost another device less.
  if (act)
    next = nextSplit(hotNow, now, after);
  else if (!hotNow || !reorderPays(*hotNow, next, now, after))
    return decision;
  decision.forOrder = !act;
  if (next == ranges_)
    return decision;
  // Worth it? The time saved over the horizon against the move's cost.
  int64_t horizon = remaining_ > 0 ? remaining_ : 4 * windowSteps;
  decision.predictedGain = now > 0 ? 1 - after / now : 0;
  decision.reordered = reordered(ranges_, next);
  decision.gainSeconds = (now - after) * horizon;
  // Every cell that changes owner leaves one device and reaches another
  // (a new order of the slabs moves most of them).
  for (size_t d = 0; d < n && d < moveCost_.size(); ++d) {
    int64_t kept = ranges_[d].intersect(next[d]).size();
    decision.moveSeconds +=
        static_cast<double>(ranges_[d].size() + next[d].size() - 2 * kept) *
        moveCost_[d];
  }
  if (decision.gainSeconds <= decision.moveSeconds) {
    decision.tooCostly = true;
    return decision;
  }
  decision.repartition = true;
  decision.ranges = next;
  pendingBefore_ = perStep;
  startOn(next);
  return decision;
}
