//===- PhaseSpeedsTest.cpp - speeds learned per phase of a cycle ----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/Balancer.h"
#include "easyml/Runtime/Schedule/PhaseSpeeds.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace easyml::rt;

namespace {

/// Two modelled devices: a scalar one whose cost per cell-step is five
/// times higher during the first 10% of a cycle (the upstroke), and a
/// vector one of constant cost.
double costA(int64_t step, int64_t period) {
  return (step % period) < period / 10 ? 5e-6 : 1e-6;
}
constexpr double kCostB = 2e-7;

/// Runs `cycles` cycles of waves of `wave` steps over `cells` cells split
/// each wave by `periodic` predictions (else by the last wave's speeds);
/// returns the efficiency of the cycles after the first: the ideal time
/// (every device busy all the time) over the time taken.
double efficiency(bool periodic, int64_t period, int64_t wave, int cycles) {
  const int64_t cells = 4096;
  PhaseSpeeds phases(0, period, 2, 64);
  std::vector<double> last = {1e6, 5e6};
  double ideal = 0, taken = 0;
  for (int64_t s = 0; s < period * cycles; s += wave) {
    std::vector<double> speeds;
    if (!periodic || !phases.predict(s, wave, {0, 1}, speeds))
      speeds = last;
    std::vector<CellRange> r = splitCells(cells, speeds, 1);
    // Each device's time over the wave, step by step.
    double ta = 0, tb = 0, work = 0;
    for (int64_t k = s; k < s + wave; ++k) {
      ta += r[0].size() * costA(k, period);
      tb += r[1].size() * kCostB;
      // The ideal: both devices finish each step together.
      work += cells / (1 / costA(k, period) + 1 / kCostB);
    }
    last = {r[0].size() * wave / ta, r[1].size() * wave / tb};
    phases.observe(s, wave, last);
    if (s >= period) {
      ideal += work;
      taken += std::max(ta, tb);
    }
  }
  return ideal / taken;
}

TEST(PhaseSpeeds, BinsCoverTheCycle) {
  PhaseSpeeds p(100, 1000, 2, 64);
  EXPECT_EQ(p.binSteps(), 16);
  EXPECT_EQ(p.bins(), 63);
  std::vector<double> s;
  // Nothing learned yet; before the first stimulus there is no cycle.
  EXPECT_FALSE(p.predict(100, 50, {0, 1}, s));
  EXPECT_FALSE(p.predict(0, 100, {0, 1}, s));
  p.observe(100, 50, {1e6, 4e6});
  ASSERT_TRUE(p.predict(100, 50, {0, 1}, s));
  EXPECT_DOUBLE_EQ(s[0], 1e6);
  EXPECT_DOUBLE_EQ(s[1], 4e6);
  // A device that did not run has nothing learned.
  p.observe(1100, 16, {2e6, 0});
  ASSERT_TRUE(p.predict(1100, 16, {0, 1}, s));
  EXPECT_DOUBLE_EQ(s[0], 1.0 / (0.5 * (1 / 1e6 + 1 / 2e6)));
  EXPECT_FALSE(p.predict(150, 16, {0}, s)) << "a bin never run";
}

TEST(PhaseSpeeds, PredictionWeighsBinsByOverlap) {
  PhaseSpeeds p(0, 100, 1, 10);
  p.observe(0, 10, {1.0});  // bin 0: 1 s per cell-step
  p.observe(10, 10, {0.25}); // bin 1: 4 s per cell-step
  std::vector<double> s;
  ASSERT_TRUE(p.predict(5, 10, {0}, s)); // 5 steps in each
  EXPECT_DOUBLE_EQ(s[0], 10.0 / (5 * 1.0 + 5 * 4.0));
}

TEST(PhaseSpeeds, PeriodicCostIsBalancedAfterOneCycle) {
  // Waves of 50 steps over a 2,000-step cycle: the cost ratio changes
  // every 200 steps, faster than a split that follows the last wave keeps
  // up with.
  double reactive = efficiency(false, 2000, 50, 6);
  double periodic = efficiency(true, 2000, 50, 6);
  EXPECT_GE(periodic, 0.99);
  EXPECT_LT(reactive, periodic);
  // A wave that straddles the change is predicted from both bins.
  EXPECT_GE(efficiency(true, 2000, 300, 6), 0.9);
}

} // namespace
