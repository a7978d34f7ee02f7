//===- PartitionerPhases.cpp - waves split by the speeds of their phase --===//
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

#include "easyml/Runtime/Schedule/Partitioner.h"
#include "easyml/Runtime/Schedule/PhaseSpeeds.h"

#include <algorithm>
#include <cstdio>

using namespace easyml::rt;

namespace {
/// The share of a wave's predicted time a split must save to be worth a
/// move (a hysteresis band: noise does not move cells back and forth).
constexpr double kMinGain = 0.02;
} // namespace

void Partitioner::learnPhase(const WaveTask &task,
                             const std::vector<WaveTiming> &timing) {
  if (!options_.balance.periodic || options_.balance.fixed || waveShared_)
    return;
  if (!phases_) {
    for (const Stimulus &s : timeline_.stimuli())
      if (s.period > 0 && s.count > 1) {
        phases_ = std::make_unique<PhaseSpeeds>(s.start, s.period,
                                                team_.size());
        break;
      }
    if (!phases_)
      return;
  }
  std::vector<double> speeds(team_.size(), 0.0);
  for (int i = 0; i < team_.size(); ++i)
    if (!team_.ranges[i].empty() && timing[i].seconds > 0)
      speeds[i] = static_cast<double>(team_.ranges[i].size()) * task.nsteps /
                  timing[i].seconds;
  phases_->observe(task.step0, task.nsteps, speeds);
}

bool Partitioner::splitForPhase(int64_t step0, int64_t end) {
  phasePredicted_ = false;
  int a, b;
  if (!phases_ || balanced_.size() < 2 || window_.open || sharedPair(a, b))
    return true;
  std::vector<double> speeds;
  if (!phases_->predict(step0, end - step0, balanced_, speeds))
    return true;
  phasePredicted_ = true;
  const std::vector<CellRange> &ranges = team_.ranges;
  std::vector<CellRange> split =
      splitCells(team_.store().cells(), speeds, team_.align);
  double now = 0, after = 0, moved = 0;
  for (size_t k = 0; k < balanced_.size(); ++k) {
    int i = balanced_[k];
    now = std::max(now, ranges[i].size() / speeds[k]);
    after = std::max(after, split[k].size() / speeds[k]);
    // Every cell that changes owner leaves one device and reaches another.
    if (!team_.device(i).sharesHostStore())
      moved += static_cast<double>(split[k].size() + ranges[i].size() -
                                   2 * split[k].intersect(ranges[i]).size());
  }
  int64_t steps = end - step0;
  double gain = (now - after) * steps;
  double cost = moved * team_.store().svRows() * sizeof(double) *
                team_.moveSecondsPerByte;
  if (gain <= cost || gain <= kMinGain * now * steps)
    return true;
  std::vector<CellRange> next(team_.size());
  for (size_t k = 0; k < balanced_.size(); ++k)
    next[balanced_[k]] = split[k];
  char why[128];
  std::snprintf(why, sizeof why,
                "phase split: predicted gain %.3g ms > move %.3g ms",
                1e3 * gain, 1e3 * cost);
  if (!moveTo(next, why, now > 0 ? 1 - after / now : 0))
    return false;
  balancer_->adopt(split);
  ++team_.report().phaseSplits;
  return true;
}
