//===- HotCellCostTest.cpp - cost of cells in an action potential ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/HotCellCost.h"
#include "easyml/Runtime/Schedule/Balancer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

namespace {

/// Hot cells [from, to) of `cells`, counted in blocks of `align`.
HotBlocks hotBand(int64_t cells, int64_t align, int64_t from, int64_t to) {
  HotBlocks h;
  h.cells = cells;
  h.align = align;
  int64_t blocks = (cells + align - 1) / align;
  h.prefix.assign(blocks + 1, 0);
  for (int64_t k = 0; k < blocks; ++k) {
    int64_t b = k * align, e = std::min(cells, b + align);
    int64_t n = std::max<int64_t>(0, std::min(e, to) - std::max(b, from));
    h.prefix[k + 1] = h.prefix[k] + n;
  }
  return h;
}

TEST(HotBlocks, CountsWholeBlocks) {
  HotBlocks h = hotBand(1000, 64, 100, 300);
  EXPECT_EQ(h.in({0, 1000}), 200);
  EXPECT_EQ(h.in({0, 128}), 28);
  EXPECT_EQ(h.in({128, 320}), 172);
  EXPECT_EQ(h.in({320, 1000}), 0);
  EXPECT_EQ(h.in({}), 0);
  // The last block (960-1000) is shorter than the others.
  HotBlocks end = hotBand(1000, 64, 950, 1000);
  EXPECT_EQ(end.in({960, 1000}), 40);
  EXPECT_EQ(end.in({896, 1000}), 50);
  EXPECT_EQ(end.in({0, 960}), 10);
}

TEST(HotCellCost, FitsBothCostsFromWindowsOfDifferentMixes) {
  HotCellCost c(1);
  double rest = 2e-9, hot = 12e-9, r = 0, h = 0;
  EXPECT_FALSE(c.coefficients(0, r, h));
  for (double share : {0.0, 0.25, 0.5})
    c.add(0, 1000, 1000 * share, 1000 * ((1 - share) * rest + share * hot));
  ASSERT_TRUE(c.coefficients(0, r, h));
  EXPECT_NEAR(r, rest, 1e-15);
  EXPECT_NEAR(h, hot, 1e-15);
  EXPECT_TRUE(c.ready());
}

TEST(HotCellCost, OneMixMeasuresOnlyTheMeanCost) {
  // Every window a quarter hot: the two costs cannot be told apart, so a
  // hot cell is taken to cost what a resting one does.
  HotCellCost c(1);
  for (int i = 0; i < 4; ++i)
    c.add(0, 1000, 250, 1000 * 3e-9);
  double r = 0, h = 0;
  ASSERT_TRUE(c.coefficients(0, r, h));
  EXPECT_NEAR(r, 3e-9, 1e-18);
  EXPECT_NEAR(h, 3e-9, 1e-18);
}

TEST(HotCellCost, TwoWindowsMeasureOnlyTheMeanCost) {
  // Two windows would fit both costs exactly, noise included: three are
  // needed to tell them apart.
  HotCellCost c(1);
  c.add(0, 1000, 0, 1000 * 2e-9);
  c.add(0, 1000, 500, 1000 * 7e-9);
  double r = 0, h = 0;
  ASSERT_TRUE(c.coefficients(0, r, h));
  EXPECT_DOUBLE_EQ(r, h);
  c.add(0, 1000, 250, 1000 * 4.5e-9);
  ASSERT_TRUE(c.coefficients(0, r, h));
  EXPECT_NEAR(h / r, 6, 1e-9);
}

TEST(HotCellCost, ARatioIsForgottenWithItsWindows) {
  // Told apart (6x), then windows of one mix only: the ratio is kept
  // for a history's length of windows, then a hot cell costs a resting
  // one's.
  HotCellCost c(1, 4);
  for (double share : {0.0, 0.25, 0.5})
    c.add(0, 1000, 1000 * share, 1000 * ((1 - share) * 1e-9 + share * 6e-9));
  double r = 0, h = 0;
  ASSERT_TRUE(c.coefficients(0, r, h));
  EXPECT_NEAR(h / r, 6, 1e-9);
  // Then windows half hot only: the last fit that tells the costs apart
  // is the second of them (the history still holds a quarter-hot one);
  // its ratio is kept for the 3 windows after it, then forgotten.
  for (int i = 0; i < 5; ++i) {
    c.add(0, 1000, 500, 1000 * 3.5e-9);
    ASSERT_TRUE(c.coefficients(0, r, h));
    EXPECT_NEAR(h / r, 6, 1e-9) << "window " << i;
  }
  c.add(0, 1000, 500, 1000 * 3.5e-9);
  ASSERT_TRUE(c.coefficients(0, r, h));
  EXPECT_DOUBLE_EQ(r, h);
  EXPECT_NEAR(r, 3.5e-9, 1e-18);
}

TEST(HotCellCost, DevicesWithoutAFitSplitBySpeed) {
  // Three devices, 1000 cells in blocks of 64 (the last one short):
  // device 0 fitted, device 1 only measured (its speed), device 2 neither
  // (no cells for it).
  const int64_t cells = 1000, align = 64;
  HotCellCost c(3);
  for (double share : {0.0, 0.25, 0.5})
    c.add(0, 1000, 1000 * share, 1000 * ((1 - share) * 1e-9 + share * 3e-9));
  c.setSpeeds({0, 1e9, 0});
  HotBlocks hot = hotBand(cells, align, 0, 200);
  std::vector<CellRange> r = c.split(hot);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].begin, 0);
  EXPECT_EQ(r[0].end % align, 0);
  EXPECT_EQ(r[1].begin, r[0].end);
  EXPECT_EQ(r[1].end, cells) << "the last device able takes the rest";
  EXPECT_TRUE(r[2].empty());
  // Within one block's cost of the best.
  EXPECT_NEAR(c.time(0, r[0], hot), c.time(1, r[1], hot), align * 3e-9);
  EXPECT_EQ(c.time(2, {0, 1}, hot), INFINITY);
}

TEST(HotCellCost, ANoisyFitBeyondTheRatioBoundIsNotTaken) {
  // Hot cells that would cost nothing (or less than nothing) are noise:
  // the mean cost per cell stands in.
  HotCellCost c(1);
  c.add(0, 1000, 0, 1000e-9);
  c.add(0, 1000, 500, 500e-9);
  c.add(0, 1000, 250, 750e-9);
  double r = 0, h = 0;
  ASSERT_TRUE(c.coefficients(0, r, h));
  EXPECT_DOUBLE_EQ(r, h);
}

TEST(HotCellCost, SplitEvensThePredictedTimes) {
  // Two devices of the same resting cost; hot cells cost device 0 six
  // times as much, and device 1 was only measured on resting cells. The
  // hot band is at the start: device 0 should hold fewer cells, and
  // device 1 does not take the band's slab on the bet that its hot cells
  // cost what its resting ones do.
  const int64_t cells = 1 << 14, align = 32;
  HotCellCost c(2);
  for (double share : {0.0, 0.25, 0.5}) {
    c.add(0, 1000, 1000 * share, 1000 * ((1 - share) * 1e-9 + share * 6e-9));
    c.add(1, 1000, 0, 1000 * 1e-9);
  }
  HotBlocks hot = hotBand(cells, align, 0, cells / 4);
  std::vector<CellRange> r = c.split(hot);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].begin, 0);
  EXPECT_EQ(r[0].end, r[1].begin);
  EXPECT_EQ(r[1].end, cells);
  EXPECT_EQ(r[0].end % align, 0);
  double t0 = c.time(0, r[0], hot), t1 = c.time(1, r[1], hot);
  // Within one block's cost of each other.
  EXPECT_NEAR(t0, t1, align * 6e-9);
  // Device 0 takes 6x as long per hot cell: it holds less than the band.
  EXPECT_LT(r[0].end, cells / 4);
  // Better than the even split mean costs per cell would give.
  std::vector<CellRange> even = {{0, cells / 2}, {cells / 2, cells}};
  EXPECT_LT(c.slowest(r, hot), 0.6 * c.slowest(even, hot));
}

/// Two devices of the same resting cost whose hot cells cost them
/// `ratio0` and `ratio1` resting ones, both measured.
HotCellCost twoMeasured(double ratio0, double ratio1) {
  HotCellCost c(2);
  for (double share : {0.0, 0.25, 0.5}) {
    c.add(0, 1000, 1000 * share, 1000 * (1 - share + share * ratio0) * 1e-9);
    c.add(1, 1000, 1000 * share, 1000 * (1 - share + share * ratio1) * 1e-9);
  }
  return c;
}

TEST(HotCellCost, TheWavesSlabGoesToTheDeviceItCostsLeast) {
  // Hot cells cost device 0 six resting ones and device 1 one; the band
  // is at the start, in device 0's slab. Device 1 takes the start.
  const int64_t cells = 1 << 14, align = 32;
  HotCellCost c = twoMeasured(6, 1);
  HotBlocks hot = hotBand(cells, align, 0, cells / 4);
  std::vector<CellRange> inOrder = {{0, cells / 2}, {cells / 2, cells}};
  std::vector<CellRange> r = c.split(hot, inOrder);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].begin, 0);
  EXPECT_EQ(r[1].end, r[0].begin);
  EXPECT_EQ(r[0].end, cells);
  EXPECT_EQ(r[0].begin % align, 0);
  // Every cell costs what a resting one does: an even split.
  EXPECT_NEAR(c.slowest(r, hot), cells / 2 * 1e-9, align * 1e-9);
  // From there it stays.
  EXPECT_EQ(c.split(hot, r), r);
}

TEST(HotCellCost, SlabsKeepTheirOrderForASmallGain) {
  // Hot cells cost device 0 a twentieth more than device 1: another order
  // would save under 15% of the step, not worth moving every cell.
  const int64_t cells = 1 << 14, align = 32;
  HotCellCost c = twoMeasured(1.05, 1);
  HotBlocks hot = hotBand(cells, align, 0, cells / 4);
  std::vector<CellRange> r = c.split(hot, {{0, cells / 2}, {cells / 2, cells}});
  EXPECT_EQ(r[0].begin, 0);
  EXPECT_EQ(r[1].end, cells);
  // Device order when none is given.
  EXPECT_EQ(c.split(hot), r);
  // Reversed slabs stay reversed.
  std::vector<CellRange> reversed =
      c.split(hot, {{cells / 2, cells}, {0, cells / 2}});
  EXPECT_EQ(reversed[1].begin, 0);
  EXPECT_EQ(reversed[0].end, cells);
}

TEST(Balancer, HotCellsOfAWindowAreItsStartAndEndMean) {
  // Each window is two steps: the first with the hot cells counted at the
  // last judgement, the second with those counted at this one. The
  // balancer fits from their mean, which is exact here.
  const int64_t cells = 1024, align = 32;
  BalanceOptions o;
  o.minWindowSeconds = 0;
  o.fixed = true;
  Balancer b(cells, align, o);
  b.reset({{0, 512}, {512, cells}});
  const double rest[2] = {1e-9, 2e-9}, hot[2] = {5e-9, 3e-9};
  // A hot band growing both ways from the middle; the first window (no
  // count at its start) leaves the 8-window history.
  int64_t half = 0;
  HotBlocks now = hotBand(cells, align, 512, 512);
  b.setHotCells([&](HotBlocks &h) { h = now; });
  for (int window = 0; window < 12; ++window) {
    HotBlocks before = now;
    half += 40;
    now = hotBand(cells, align, 512 - half, 512 + half);
    std::vector<double> t(2, 0.0);
    for (const HotBlocks *h : {&before, &now})
      for (int d = 0; d < 2; ++d) {
        CellRange r = b.ranges()[d];
        double n = static_cast<double>(h->in(r));
        t[d] += rest[d] * (r.size() - n) + hot[d] * n;
      }
    b.observe(t, 2);
  }
  for (int d = 0; d < 2; ++d) {
    double r = 0, h = 0;
    ASSERT_TRUE(b.hotCost().coefficients(d, r, h));
    EXPECT_NEAR(r, rest[d], 1e-6 * rest[d]) << "device " << d;
    EXPECT_NEAR(h, hot[d], 1e-6 * hot[d]) << "device " << d;
  }
}

/// Devices whose time per step is rest * resting cells + hot * hot cells,
/// with a hot band of `width` cells whose front moves `speed` cells per
/// step.
struct TravellingBand {
  std::vector<double> rest, hot;
  int64_t cells, align, width;
  double speed, front = 0;
  /// The front starts at the last cell and moves towards the first.
  bool fromEnd = false;
  HotBlocks now() const {
    int64_t f = static_cast<int64_t>(front);
    int64_t back = std::max<int64_t>(0, f - width);
    if (fromEnd)
      return hotBand(cells, align, cells - std::min(f, cells), cells - back);
    return hotBand(cells, align, back, f);
  }
  std::vector<double> run(const std::vector<CellRange> &r, int64_t steps) {
    std::vector<double> t(r.size(), 0.0);
    for (int64_t s = 0; s < steps; ++s) {
      HotBlocks h = now();
      for (size_t d = 0; d < r.size(); ++d) {
        double n = static_cast<double>(h.in(r[d]));
        t[d] += rest[d] * (r[d].size() - n) + hot[d] * n;
      }
      front = std::min<double>(cells + width, front + speed);
    }
    return t;
  }
  /// The best split's time for the hot cells now.
  double best() const {
    HotCellCost exact(rest.size());
    for (size_t d = 0; d < rest.size(); ++d)
      for (double share : {0.0, 1.0})
        exact.add(d, 1, share, (1 - share) * rest[d] + share * hot[d]);
    HotBlocks h = now();
    return exact.slowest(exact.split(h), h);
  }
};

struct Followed {
  /// The sum of the best split's times over the run's; the same over its
  /// last quarter.
  double efficiency = 0, lateEfficiency = 0;
  int moves = 0, reorders = 0;
};

/// How a balancer follows a front that crosses the cells (windows of at
/// least `window` seconds): the CPU pool first, whose hot cells cost it
/// 1.2 resting ones, then two GPUs whose hot cells cost them six; the
/// front enters from the CPU's end, or (`fromEnd`) from the last GPU's.
Followed follow(bool hotCells, double window, bool fromEnd = false) {
  TravellingBand band{
      {1e-9, 2e-9, 1e-9}, {1.2e-9, 12e-9, 6e-9}, 1 << 14, 32, 1 << 14, 4.0};
  band.fromEnd = fromEnd;
  BalanceOptions o;
  o.minWindowSeconds = window;
  Balancer b(band.cells, band.align, o);
  b.reset(splitCells(band.cells, {1, 1, 1}, band.align));
  if (hotCells)
    b.setHotCells([&](HotBlocks &h) { h = band.now(); });
  double best = 0, actual = 0, lateBest = 0, lateActual = 0;
  Followed f;
  for (int wave = 0; wave < 400; ++wave) {
    double waveBest = 0;
    for (int s = 0; s < 5; ++s)
      waveBest += band.best() / 5;
    std::vector<double> t = band.run(b.ranges(), 5);
    double waveActual = *std::max_element(t.begin(), t.end()) / 5;
    best += waveBest, actual += waveActual;
    if (wave >= 300)
      lateBest += waveBest, lateActual += waveActual;
    auto d = b.observe(t, 5);
    if (d.repartition) {
      ++f.moves;
      f.reorders += d.reordered;
      b.adopt(d.ranges);
    }
  }
  f.efficiency = best / actual;
  f.lateEfficiency = lateBest / lateActual;
  return f;
}

TEST(Balancer, HotCellsFollowAFront) {
  // A wave entering device 1's slab from device 0's side: weighing where
  // the hot cells are keeps the split nearer the best one of every wave
  // than chasing each device's mean cost per cell, with fewer moves
  // (mean costs move cells back and forth across the front).
  for (double window : {0.0, 2e-4}) {
    Followed plain = follow(false, window), hot = follow(true, window);
    EXPECT_GE(hot.efficiency, 0.93) << "window " << window;
    EXPECT_GT(hot.efficiency, plain.efficiency + 0.01) << "window " << window;
    EXPECT_LT(hot.moves, plain.moves) << "window " << window;
    // The CPU pool already holds the front's end: no new order.
    EXPECT_EQ(hot.reorders, 0) << "window " << window;
  }
}

TEST(Balancer, HotCellsFromTheFarEndGoToTheDeviceTheyCostLeast) {
  // The front enters from the last GPU's end: once the CPU pool has shown
  // that its hot cells cost it little more than resting ones (when the
  // front reaches it, about halfway), it takes the slab at that end, once,
  // and the GPUs keep the resting cells. The best split of every wave
  // knows every cost from the start.
  for (double window : {0.0, 2e-4}) {
    Followed hot = follow(true, window, true);
    Followed plain = follow(false, window, true);
    EXPECT_EQ(hot.reorders, 1) << "window " << window;
    EXPECT_GE(hot.efficiency, 0.75) << "window " << window;
    EXPECT_GE(hot.lateEfficiency, 0.8) << "window " << window;
    EXPECT_GT(hot.efficiency, plain.efficiency + 0.1) << "window " << window;
    EXPECT_GT(hot.lateEfficiency, plain.lateEfficiency + 0.3)
        << "window " << window;
  }
}

} // namespace
