//===- BalancerTest.cpp - adaptive partitioning ---------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/Balancer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace easyml::rt;

namespace {

void expectPartition(const std::vector<CellRange> &r, int64_t cells,
                     int64_t align) {
  int64_t next = 0;
  for (const CellRange &range : r) {
    if (range.empty())
      continue;
    EXPECT_EQ(range.begin, next) << "ranges are contiguous, in order";
    EXPECT_EQ(range.begin % align, 0) << "ranges start aligned";
    next = range.end;
  }
  EXPECT_EQ(next, cells) << "ranges cover every cell";
}

TEST(SplitCells, EvenWithoutSpeeds) {
  auto r = splitCells(1000, {0, 0}, 64);
  expectPartition(r, 1000, 64);
  EXPECT_EQ(r[0].size(), 512);
  EXPECT_EQ(r[1].size(), 488);
}

TEST(SplitCells, ProportionalToSpeed) {
  auto r = splitCells(1 << 20, {1.0, 3.0}, 64);
  expectPartition(r, 1 << 20, 64);
  EXPECT_EQ(r[0].size(), (1 << 20) / 4);
  auto r3 = splitCells(100000, {2.0, 5.0, 3.0}, 32);
  expectPartition(r3, 100000, 32);
  EXPECT_NEAR(r3[1].size(), 50000, 32);
  EXPECT_NEAR(r3[2].size(), 30000, 64);
}

TEST(SplitCells, SlowOrAbsentDevicesGetNone) {
  auto r = splitCells(4096, {0.0, 1.0}, 64);
  expectPartition(r, 4096, 64);
  EXPECT_TRUE(r[0].empty());
  EXPECT_EQ(r[1].size(), 4096);
  // A share below half an alignment unit rounds to nothing.
  auto tiny = splitCells(4096, {1e-4, 1.0}, 64);
  expectPartition(tiny, 4096, 64);
  EXPECT_TRUE(tiny[0].empty());
}

TEST(SplitCells, FewerCellsThanAlignment) {
  auto r = splitCells(10, {1.0, 1.0, 1.0}, 64);
  expectPartition(r, 10, 64);
  int nonEmpty = 0;
  for (auto &x : r)
    nonEmpty += !x.empty();
  EXPECT_EQ(nonEmpty, 1);
}

TEST(Imbalance, SlowestAgainstFastest) {
  EXPECT_DOUBLE_EQ(imbalance({1.0, 2.0}, {10, 10}), 0.5);
  EXPECT_DOUBLE_EQ(imbalance({1.0, 1.0, 1.0}, {1, 1, 1}), 0.0);
  // Devices without cells do not count.
  EXPECT_DOUBLE_EQ(imbalance({0.0, 2.0, 1.0}, {0, 10, 10}), 0.5);
  EXPECT_DOUBLE_EQ(imbalance({3.0}, {10}), 0.0);
}

/// Devices whose wave time is cells * steps / speed (+ noise).
struct FakeDevices {
  std::vector<double> speeds;
  double noise = 0;
  std::mt19937 rng{7};
  std::vector<double> run(const std::vector<CellRange> &r, int64_t steps) {
    std::normal_distribution<double> n(1.0, noise);
    std::vector<double> t;
    for (size_t d = 0; d < r.size(); ++d)
      t.push_back(r[d].size() * static_cast<double>(steps) / speeds[d] *
                  (noise > 0 ? std::max(0.5, n(rng)) : 1.0));
    return t;
  }
};

TEST(Balancer, ConvergesToTheSpeedRatio) {
  const int64_t cells = 1 << 18;
  FakeDevices devices{{1e7, 3e7}};
  BalanceOptions o;
  o.minWindowSeconds = 0;
  Balancer b(cells, 64, o);
  b.reset(splitCells(cells, {1, 1}, 64));
  int repartitions = 0;
  for (int wave = 0; wave < 10; ++wave) {
    auto d = b.observe(devices.run(b.ranges(), 100), 100);
    EXPECT_TRUE(d.judged);
    if (d.repartition) {
      ++repartitions;
      b.adopt(d.ranges);
    }
  }
  EXPECT_EQ(repartitions, 1) << "one measurement suffices for linear devices";
  EXPECT_NEAR(static_cast<double>(b.ranges()[1].size()) / cells, 0.75, 0.001);
  auto final = b.observe(devices.run(b.ranges(), 100), 100);
  EXPECT_LT(final.imbalance, 0.01);
}

TEST(Balancer, ThreeDevicesWithNoiseSettle) {
  const int64_t cells = 1 << 20;
  FakeDevices devices{{2e7, 1e9, 5e8}, 0.02};
  BalanceOptions o;
  o.minWindowSeconds = 0;
  o.threshold = 0.10;
  Balancer b(cells, 64, o);
  b.reset(splitCells(cells, {1, 1, 1}, 64));
  int repartitions = 0, late = 0;
  for (int wave = 0; wave < 50; ++wave) {
    auto d = b.observe(devices.run(b.ranges(), 50), 50);
    if (d.repartition) {
      ++repartitions;
      late += wave >= 5;
      b.adopt(d.ranges);
    }
  }
  EXPECT_GE(repartitions, 1);
  EXPECT_EQ(late, 0) << "2% noise must not cause churn under a 10% threshold";
  // Shares follow the speeds: 2e7 : 1e9 : 5e8.
  double total = 2e7 + 1e9 + 5e8;
  EXPECT_NEAR(b.ranges()[1].size() / double(cells), 1e9 / total, 0.02);
  EXPECT_NEAR(b.ranges()[2].size() / double(cells), 5e8 / total, 0.02);
}

TEST(Balancer, ShortWavesAccumulateBeforeAJudgement) {
  const int64_t cells = 4096;
  FakeDevices devices{{1e6, 4e6}};
  BalanceOptions o;
  o.minWindowSeconds = 0.05;
  Balancer b(cells, 64, o);
  b.reset(splitCells(cells, {1, 1}, 64));
  // Each wave: the slow device takes 2048 * 2 / 1e6 = 4.1 ms.
  int judged = 0, wave = 0;
  for (; wave < 40 && !judged; ++wave)
    judged += b.observe(devices.run(b.ranges(), 2), 2).judged;
  EXPECT_EQ(judged, 1);
  EXPECT_EQ(wave, 13) << "13 waves of 4.1 ms make the first 50 ms window";
}

TEST(Balancer, BelowTheThresholdNothingMoves) {
  FakeDevices devices{{1.0e7, 1.08e7}};
  BalanceOptions o;
  o.minWindowSeconds = 0;
  Balancer b(1 << 16, 64, o);
  b.reset(splitCells(1 << 16, {1, 1}, 64));
  auto d = b.observe(devices.run(b.ranges(), 10), 10);
  EXPECT_TRUE(d.judged);
  EXPECT_NEAR(d.windowImbalance, 0.074, 0.001);
  EXPECT_FALSE(d.repartition);
  // Above a 5% threshold (but not twice it): a second window must confirm.
  o.threshold = 0.05;
  Balancer strict(1 << 16, 64, o);
  strict.reset(splitCells(1 << 16, {1, 1}, 64));
  EXPECT_FALSE(
      strict.observe(devices.run(strict.ranges(), 10), 10).repartition);
  EXPECT_TRUE(strict.observe(devices.run(strict.ranges(), 10), 10).repartition);
}

TEST(Balancer, OneNoisyWindowMovesNothing) {
  BalanceOptions o;
  o.minWindowSeconds = 0;
  Balancer b(1 << 16, 64, o);
  b.reset(splitCells(1 << 16, {1, 1}, 64));
  // Balanced, then one window 15% off, then balanced again.
  EXPECT_FALSE(b.observe({1.0, 1.0}, 10).repartition);
  auto spike = b.observe({1.0, 0.85}, 10);
  EXPECT_TRUE(spike.judged);
  EXPECT_FALSE(spike.repartition);
  EXPECT_FALSE(b.observe({1.0, 1.0}, 10).repartition);
  EXPECT_FALSE(b.observe({1.0, 0.85}, 10).repartition);
}

TEST(Balancer, FixedNeverMoves) {
  FakeDevices devices{{1e6, 1e8}};
  BalanceOptions o;
  o.minWindowSeconds = 0;
  o.fixed = true;
  Balancer b(1 << 16, 64, o);
  b.reset(splitCells(1 << 16, {1, 1}, 64));
  for (int i = 0; i < 5; ++i) {
    auto d = b.observe(devices.run(b.ranges(), 10), 10);
    EXPECT_GT(d.imbalance, 0.9);
    EXPECT_FALSE(d.repartition);
  }
}

} // namespace

namespace {

TEST(Balancer, AWindowSlowedByAnotherProcessDoesNotMoveCells) {
  // Balanced at 1:3; two windows as measured, then one in which the fast
  // device was slowed four times (another process on its cores): its
  // median speed is still its own, so nothing moves (the mean would have
  // halved it and moved a third of the cells to the slow device).
  const int64_t cells = 1 << 16;
  FakeDevices devices{{1e7, 3e7}};
  BalanceOptions o;
  o.minWindowSeconds = 0;
  Balancer b(cells, 64, o);
  b.reset(splitCells(cells, {1, 3}, 64));
  for (int w = 0; w < 2; ++w)
    EXPECT_FALSE(b.observe(devices.run(b.ranges(), 100), 100).repartition);
  std::vector<double> slowed = devices.run(b.ranges(), 100);
  slowed[1] *= 4;
  auto d = b.observe(slowed, 100);
  EXPECT_TRUE(d.judged);
  EXPECT_GT(d.windowImbalance, 0.2);
  EXPECT_FALSE(d.repartition);
  EXPECT_NEAR(d.speeds[1], 3e7, 1);
}

TEST(Balancer, PredictedGainIsMeasuredAfterTheMove) {
  const int64_t cells = 1 << 16;
  FakeDevices devices{{1e7, 3e7}};
  BalanceOptions o;
  o.minWindowSeconds = 0;
  Balancer b(cells, 64, o);
  b.reset(splitCells(cells, {1, 1}, 64));
  auto d = b.observe(devices.run(b.ranges(), 100), 100);
  ASSERT_TRUE(d.repartition);
  // Even split: the slow device's half sets the pace; at 1:3 the time
  // per step halves.
  EXPECT_NEAR(d.predictedGain, 0.5, 1e-3);
  EXPECT_TRUE(std::isnan(d.measuredGain));
  b.adopt(d.ranges);
  auto after = b.observe(devices.run(b.ranges(), 100), 100);
  EXPECT_NEAR(after.measuredGain, 0.5, 1e-3);
  auto later = b.observe(devices.run(b.ranges(), 100), 100);
  EXPECT_TRUE(std::isnan(later.measuredGain)) << "measured once per move";
}

TEST(Balancer, AMoveThatCostsMoreThanItSavesIsNotMade) {
  const int64_t cells = 1 << 16;
  FakeDevices devices{{1e7, 3e7}};
  BalanceOptions o;
  o.minWindowSeconds = 0;
  // 10 us per cell moved to or from the second device (a GPU): 16,384
  // cells move, 0.16 s; the split saves 1.6 ms per step, 0.08 s over the
  // 50 steps left.
  Balancer costly(cells, 64, o);
  costly.reset(splitCells(cells, {1, 1}, 64));
  costly.setMoveCost({0, 1e-5}, 50);
  auto d = costly.observe(devices.run(costly.ranges(), 100), 100);
  EXPECT_TRUE(d.tooCostly);
  EXPECT_FALSE(d.repartition);
  EXPECT_NEAR(d.moveSeconds, 16384 * 1e-5, 1e-9);
  EXPECT_NEAR(d.gainSeconds, (32768 / 1e7 - 16384 / 1e7) * 50, 1e-9);
  // With the rest of a long run to come it pays.
  Balancer worth(cells, 64, o);
  worth.reset(splitCells(cells, {1, 1}, 64));
  worth.setMoveCost({0, 1e-5}, 1000000);
  auto w = worth.observe(devices.run(worth.ranges(), 100), 100);
  EXPECT_TRUE(w.repartition);
  EXPECT_FALSE(w.tooCostly);
}

} // namespace
