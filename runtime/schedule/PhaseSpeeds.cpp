//===- PhaseSpeeds.cpp - device speeds learned per phase of a cycle -------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/PhaseSpeeds.h"

#include <algorithm>

using namespace easyml::rt;

PhaseSpeeds::PhaseSpeeds(int64_t start, int64_t period, size_t devices,
                         int64_t maxBins)
    : start_(start), period_(std::max<int64_t>(1, period)),
      binSteps_((period_ + std::max<int64_t>(1, maxBins) - 1) /
                std::max<int64_t>(1, maxBins)),
      bins_((period_ + binSteps_ - 1) / binSteps_), devices_(devices),
      cost_(static_cast<size_t>(bins_) * devices, 0.0) {}

void PhaseSpeeds::cover(int64_t step0, int64_t steps,
                        std::vector<std::pair<int64_t, int64_t>> &out) const {
  out.clear();
  // Steps before the first stimulus are not in a cycle.
  int64_t s = std::max(step0, start_), end = step0 + steps;
  while (s < end) {
    int64_t phase = (s - start_) % period_;
    int64_t bin = phase / binSteps_;
    int64_t binEnd = std::min((bin + 1) * binSteps_, period_);
    int64_t n = std::min(end - s, binEnd - phase);
    out.emplace_back(bin, n);
    s += n;
  }
}

void PhaseSpeeds::observe(int64_t step0, int64_t steps,
                          const std::vector<double> &speeds) {
  std::vector<std::pair<int64_t, int64_t>> bins;
  cover(step0, steps, bins);
  for (auto [bin, n] : bins)
    for (size_t d = 0; d < devices_ && d < speeds.size(); ++d) {
      if (!(speeds[d] > 0))
        continue;
      double &c = cost_[bin * devices_ + d];
      double now = 1.0 / speeds[d];
      c = c > 0 ? 0.5 * (c + now) : now;
    }
}

bool PhaseSpeeds::predict(int64_t step0, int64_t steps,
                          const std::vector<int> &devices,
                          std::vector<double> &speeds) const {
  std::vector<std::pair<int64_t, int64_t>> bins;
  cover(step0, steps, bins);
  if (bins.empty())
    return false;
  speeds.assign(devices.size(), 0.0);
  for (size_t k = 0; k < devices.size(); ++k) {
    size_t d = static_cast<size_t>(devices[k]);
    if (d >= devices_)
      return false;
    double cost = 0, total = 0;
    for (auto [bin, n] : bins) {
      double c = cost_[bin * devices_ + d];
      if (!(c > 0))
        return false;
      cost += c * static_cast<double>(n);
      total += static_cast<double>(n);
    }
    speeds[k] = total / cost;
  }
  return true;
}
