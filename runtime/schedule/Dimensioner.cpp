//===- Dimensioner.cpp - how many GPUs, and the CPU or not ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/Dimensioner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace easyml::rt;

std::string DeviceConfig::str() const {
  std::string g = std::to_string(gpus) + (gpus == 1 ? " gpu" : " gpus");
  if (gpus == 0)
    return cpu ? "cpu" : "nothing";
  return cpu ? "cpu+" + g : g;
}

static std::string rateText(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", r);
  return buf;
}

Dimensioner::Dimensioner(int gpus, bool cpu, DimensionOptions options)
    : gpus_(gpus), cpu_(cpu), options_(options) {
  if (gpus_ <= 0) {
    finish({0, cpu_}, cpu_ ? "no GPU can run the model: the CPU pool alone"
                           : "no device can run the model");
    return;
  }
  lo_ = 1;
  hi_ = gpus_;
  next_ = {gpus_, false};
}

int Dimensioner::maxWindows() const {
  int steps = 0;
  for (int n = gpus_; n > 1; n = (n + 1) / 2)
    ++steps;
  return (gpus_ > 0 ? 1 + steps : 0) + (cpu_ && gpus_ > 0 ? 1 : 0);
}

bool Dimensioner::measured(DeviceConfig c) const {
  return std::any_of(log_.begin(), log_.end(),
                     [&](const Measurement &m) { return m.config == c; });
}

double Dimensioner::rate(DeviceConfig c) const {
  for (const Measurement &m : log_)
    if (m.config == c)
      return m.rate;
  return 0;
}

void Dimensioner::observe(double r) {
  if (done_)
    return;
  log_.push_back({next_, r});
  advance();
}

void Dimensioner::finish(DeviceConfig c, std::string why) {
  done_ = true;
  chosen_ = c;
  reason_ = std::move(why);
}

void Dimensioner::advance() {
  if (!cpuPhase_) {
    double best = 0;
    DeviceConfig bestConfig;
    for (const Measurement &m : log_)
      if (!m.config.cpu && m.rate > best) {
        best = m.rate;
        bestConfig = m.config;
      }
    double target = best * (1 - options_.tolerance);
    while (lo_ < hi_) {
      int mid = (lo_ + hi_) / 2;
      if (!measured({mid, false})) {
        next_ = {mid, false};
        return;
      }
      if (rate({mid, false}) >= target)
        hi_ = mid;
      else
        lo_ = mid + 1;
    }
    int n = hi_;
    std::string why = DeviceConfig{n, false}.str() + " at " +
                      rateText(rate({n, false})) + " cell-steps/s";
    if (!(bestConfig == DeviceConfig{n, false}))
      why += ", within " +
             std::to_string(static_cast<int>(options_.tolerance * 100 + 0.5)) +
             "% of the best (" + bestConfig.str() + " at " + rateText(best) +
             ")";
    else if (n < gpus_)
      why += ", the best measured";
    else
      why += ", fewer GPUs were slower by more than " +
             std::to_string(static_cast<int>(options_.tolerance * 100 + 0.5)) +
             "%";
    reason_ = why;
    if (!cpu_) {
      finish({n, false}, why);
      return;
    }
    cpuPhase_ = true;
    next_ = {n, true};
    return;
  }
  int n = next_.gpus;
  double without = rate({n, false}), with = rate({n, true});
  double gain = without > 0 ? with / without - 1 : 0;
  bool keep = gain >= options_.cpuGain;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "; with the CPU pool %s cell-steps/s (%+.1f%%): %s (%s%.0f%% "
                "needed)",
                rateText(with).c_str(), gain * 100, keep ? "kept" : "not kept",
                keep ? ">= " : "< ", options_.cpuGain * 100);
  finish({n, keep}, reason_ + buf);
}
