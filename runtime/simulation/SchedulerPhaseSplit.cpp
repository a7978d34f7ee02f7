//===- PhaseSplit.cpp - waves split by the speeds of their phase ----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// With BalanceOptions::periodic and a periodic stimulus, every compute wave
// teaches PhaseSpeeds each device's speed at its phase of the cycle, and
// before a wave whose phase was seen in an earlier cycle the cells are split
// by the speeds predicted for it, when the predicted gain over the wave
// exceeds the move's cost (nothing for devices sharing the host's store;
// else the bytes to move at the speed earlier moves went) by a margin.
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include "easyml/Runtime/Schedule/PhaseSpeeds.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace easyml::rt;

namespace {
/// The share of a wave's predicted time a split must save to be worth a
/// move (a hysteresis band: noise does not move cells back and forth).
constexpr double kMinGain = 0.02;
} // namespace

void Scheduler::learnPhase(const WaveTask &task,
                           const std::vector<WaveTiming> &timing) {
  if (!options_.balance.periodic || options_.balance.fixed || waveShared_)
    return;
  if (!phases_) {
    for (const Stimulus &s : timeline.stimuli())
      if (s.period > 0 && s.count > 1) {
        phases_ = std::make_unique<PhaseSpeeds>(s.start, s.period,
                                                set_.devices.size());
        break;
      }
    if (!phases_)
      return;
  }
  std::vector<double> speeds(set_.devices.size(), 0.0);
  for (size_t i = 0; i < set_.devices.size(); ++i)
    if (!ranges_[i].empty() && timing[i].seconds > 0)
      speeds[i] = static_cast<double>(ranges_[i].size()) * task.nsteps /
                  timing[i].seconds;
  phases_->observe(task.step0, task.nsteps, speeds);
}

bool Scheduler::splitForPhase(int64_t step0, int64_t end) {
  phasePredicted_ = false;
  int a, b;
  if (!phases_ || balanced_.size() < 2 || window_.open || sharePair(a, b))
    return true;
  std::vector<double> speeds;
  if (!phases_->predict(step0, end - step0, balanced_, speeds))
    return true;
  phasePredicted_ = true;
  std::vector<CellRange> split = splitCells(store_->cells(), speeds, align_);
  double now = 0, after = 0, moved = 0;
  for (size_t k = 0; k < balanced_.size(); ++k) {
    int i = balanced_[k];
    now = std::max(now, ranges_[i].size() / speeds[k]);
    after = std::max(after, split[k].size() / speeds[k]);
    // Every cell that changes owner leaves one device and reaches another.
    if (!set_.devices[i]->sharesHostStore())
      moved += static_cast<double>(split[k].size() + ranges_[i].size() -
                                   2 * split[k].intersect(ranges_[i]).size());
  }
  int64_t steps = end - step0;
  double gain = (now - after) * steps;
  double cost = moved * store_->svRows() * sizeof(double) * moveSecondsPerByte_;
  if (gain <= cost || gain <= kMinGain * now * steps)
    return true;
  std::vector<CellRange> next(set_.devices.size());
  for (size_t k = 0; k < balanced_.size(); ++k)
    next[balanced_[k]] = split[k];
  char why[128];
  std::snprintf(why, sizeof why,
                "phase split: predicted gain %.3g ms > move %.3g ms",
                1e3 * gain, 1e3 * cost);
  if (!migrate(next, why, now > 0 ? 1 - after / now : 0))
    return false;
  balancer_->adopt(split);
  ++report.phaseSplits;
  return true;
}
