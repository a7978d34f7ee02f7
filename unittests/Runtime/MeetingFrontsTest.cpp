//===- MeetingFrontsTest.cpp - two devices computing toward each other ----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/MeetingFronts.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <type_traits>

using namespace easyml::rt;

namespace {

/// Seconds device `d` (0: lower, 1: upper) takes for one cell at time `t`
/// of the wave.
using Cost = std::function<double(int d, double t)>;

struct Outcome {
  double finish[2] = {0, 0};
  int64_t computed[2] = {0, 0};
  int chunks[2] = {0, 0};
  /// The last chunk's seconds, per device.
  double lastChunk[2] = {0, 0};
  int64_t meeting = 0;
};

/// Two modelled devices sharing `cells` cells from `lowerPart`: each takes
/// its next chunk when it finishes the last (events in time order), as
/// the scheduler's two threads do. Checks that the chunks cover every
/// cell once, each device's on its alignment (but the upper device's
/// chunk that meets the lower one), and end where the devices met.
Outcome share(int64_t cells, int64_t lowerAlign, int64_t upperAlign,
              double lowerPart, bool known, const Cost &cost,
              int64_t minChunk = 1) {
  MeetingFronts fronts({0, cells}, lowerAlign, upperAlign, lowerPart, known,
                       minChunk);
  std::vector<int64_t> upperBegins;
  Outcome o;
  std::vector<int> owner(cells, -1);
  // Each device's chunk in progress and when it ends; the next event is
  // the earliest end: that device records its chunk and takes the next.
  CellRange cur[2] = {fronts.take(true, 0), fronts.take(false, 0)};
  double t[2] = {0, 0}, seconds[2] = {0, 0};
  auto start = [&](int d) {
    CellRange c = cur[d];
    seconds[d] = c.size() * cost(d, t[d]);
    for (int64_t k = c.begin; k < c.end; ++k) {
      EXPECT_EQ(owner[k], -1) << "cell " << k << " taken twice";
      owner[k] = d;
    }
    if (d == 0 && c.begin % lowerAlign != 0)
      ADD_FAILURE() << "lower chunk [" << c.begin << ", " << c.end
                    << ") not aligned to " << lowerAlign;
    if (d == 1)
      upperBegins.push_back(c.begin);
    t[d] += seconds[d];
  };
  for (int d = 0; d < 2; ++d)
    if (!cur[d].empty())
      start(d);
  while (!cur[0].empty() || !cur[1].empty()) {
    int d = cur[1].empty() || (!cur[0].empty() && t[0] <= t[1]) ? 0 : 1;
    o.computed[d] += cur[d].size();
    o.lastChunk[d] = seconds[d];
    ++o.chunks[d];
    fronts.done(d == 0, cur[d].size(), seconds[d]);
    cur[d] = fronts.take(d == 0, t[d]);
    if (!cur[d].empty())
      start(d);
  }
  o.finish[0] = t[0];
  o.finish[1] = t[1];
  o.meeting = fronts.meeting();
  for (int64_t b : upperBegins)
    if (b != o.meeting && b % upperAlign != 0)
      ADD_FAILURE() << "upper chunk at " << b << " not aligned to "
                    << upperAlign;
  for (int64_t k = 0; k < cells; ++k) {
    EXPECT_NE(owner[k], -1) << "cell " << k << " not computed";
    EXPECT_EQ(owner[k], k < o.meeting ? 0 : 1) << "cell " << k;
  }
  return o;
}

/// Time of the two devices finishing together with no chunks (the work
/// divided by the summed speeds), where costs are constant.
double ideal(int64_t cells, double costA, double costB) {
  return cells / (1 / costA + 1 / costB);
}

double makespan(const Outcome &o) { return std::max(o.finish[0], o.finish[1]); }

} // namespace

// A call with one alignment and the part after it does not compile (it
// would otherwise, with the part read as the upper device's alignment).
static_assert(!std::is_constructible_v<MeetingFronts, CellRange, int64_t,
                                       double, bool, int64_t>);
static_assert(
    !std::is_constructible_v<MeetingFronts, CellRange, int, double, bool, int>);
static_assert(
    std::is_constructible_v<MeetingFronts, CellRange, int, int, double, bool>);
static_assert(std::is_constructible_v<MeetingFronts, CellRange, int64_t,
                                      int64_t, double, bool, int64_t>);

TEST(MeetingFrontsTest, CoversEveryCellOnceAndMeets) {
  Outcome o = share(4096, 8, 8, 0.5, false,
                    [](int d, double) { return d == 0 ? 7e-6 : 1e-6; });
  EXPECT_EQ(o.computed[0] + o.computed[1], 4096);
  EXPECT_GT(o.chunks[0], 1);
  EXPECT_GT(o.chunks[1], 1);
  // The slow device ends with about an eighth of the cells.
  EXPECT_NEAR(o.computed[0] / 4096.0, 1.0 / 8, 0.02);
}

TEST(MeetingFrontsTest, FinishTogetherFromAWrongGuess) {
  // Devices 7x apart, the guess 50/50 (a first wave): both still finish
  // within one short chunk of each other and near the ideal.
  Outcome o = share(4096, 8, 8, 0.5, false,
                    [](int d, double) { return d == 0 ? 7e-6 : 1e-6; });
  double best = ideal(4096, 7e-6, 1e-6);
  EXPECT_LT(makespan(o), 1.02 * best);
  EXPECT_LE(std::abs(o.finish[0] - o.finish[1]),
            std::max(o.lastChunk[0], o.lastChunk[1]) + 1e-12);
}

TEST(MeetingFrontsTest, CostChangingInTheWave) {
  // The scalar device becomes four times slower a third of the way
  // through (an upstroke), the vector device only twice: the part of each
  // follows the speeds measured in the wave.
  double tEnd = 0.4 * ideal(4096, 7e-6, 1e-6);
  auto cost = [&](int d, double t) {
    double base = d == 0 ? 7e-6 : 1e-6;
    return t < tEnd ? base : base * (d == 0 ? 4 : 2);
  };
  Outcome o = share(4096, 8, 8, 1.0 / 8, true, cost);
  // The ideal, both busy to the end: the cells done by the switch at the
  // old speeds, the rest at the new summed speed.
  double before = tEnd * (1 / 7e-6 + 1 / 1e-6);
  double best = tEnd + (4096 - before) / (1 / 28e-6 + 1 / 2e-6);
  EXPECT_LT(makespan(o), 1.03 * best);
  // A split fixed in advance at the old speeds would take the slow
  // device's share at its new cost.
  EXPECT_LT(makespan(o), 0.9 * (tEnd + (512 - tEnd / 7e-6) * 28e-6));
}

TEST(MeetingFrontsTest, NoisyDevices) {
  // Each chunk's cost varies by up to 30% (another process on the core):
  // on average the device that finishes first waits for under 2% of the
  // wave, and the waves take within 1% of the work over the summed mean
  // speeds.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(0.7, 1.3);
  double idle = 0, over = 0;
  const int waves = 50;
  for (int wave = 0; wave < waves; ++wave) {
    Outcome o = share(4096, 8, 8, 1.0 / 8, true, [&](int d, double) {
      return (d == 0 ? 7e-6 : 1e-6) * noise(rng);
    });
    idle += std::abs(o.finish[0] - o.finish[1]) / makespan(o) / waves;
    over += makespan(o) / ideal(4096, 7e-6, 1e-6) / waves;
  }
  EXPECT_LT(idle, 0.02);
  EXPECT_LT(over, 1.01);
}

TEST(MeetingFrontsTest, TheSlowDeviceDeclinesALateChunk) {
  // 1,024 cells, devices 5x apart, chunks of 8: a last chunk of the slow
  // device takes as long as 40 cells on the fast one. The slow device
  // leaves the last cells to the fast one when that finishes sooner: the
  // wave ends within 1% of the ideal (3.1% if it took every chunk it
  // could).
  Outcome o = share(
      1024, 8, 8, 1.0 / 6, true,
      [](int d, double) { return d == 0 ? 5e-6 : 1e-6; }, 2);
  EXPECT_LT(makespan(o), 1.01 * ideal(1024, 5e-6, 1e-6));
  EXPECT_LT(o.finish[0], o.finish[1]);
}

TEST(MeetingFrontsTest, TheDeviceThatDidNotDeclineComputesTheRest) {
  // The slow device declines; then the fast one slows down a thousandfold
  // (another process takes its core). It still computes every cell left:
  // a device never declines once the other has.
  const double late = 0.95 * ideal(1024, 5e-6, 1e-6);
  Outcome o = share(
      1024, 8, 8, 1.0 / 6, true,
      [&](int d, double t) { return d == 0 ? 5e-6 : (t < late ? 1e-6 : 1e-3); },
      2);
  EXPECT_EQ(o.computed[0] + o.computed[1], 1024);
  EXPECT_EQ(o.meeting, o.computed[0]);
}

TEST(MeetingFrontsTest, FewCellsAndUnalignedEnd) {
  // 21 cells, chunks of 8: the upper device's first chunk holds the
  // unaligned end; every cell is still computed once.
  Outcome o = share(21, 8, 8, 0.5, false,
                    [](int d, double) { return d == 0 ? 2e-6 : 1e-6; });
  EXPECT_EQ(o.computed[0] + o.computed[1], 21);
  EXPECT_EQ(o.meeting % 8, 0);
  EXPECT_GE(o.chunks[0], 1);
  EXPECT_GE(o.chunks[1], 1);
}

TEST(MeetingFrontsTest, SmallestChunk) {
  // A one-step wave of a tissue: no chunk but the last below the smallest
  // (1,001 cells rounded up to the alignment, 1,008).
  MeetingFronts fronts({0, 40000}, 8, 8, 0.5, true, 1001);
  int64_t taken = 0;
  for (bool lower = true;; lower = !lower) {
    CellRange c = fronts.take(lower, 0);
    if (c.empty())
      break;
    taken += c.size();
    if (taken < 40000)
      EXPECT_GE(c.size(), 1008);
  }
  EXPECT_EQ(taken, 40000);
}

TEST(MeetingFrontsTest, SmallestChunkNeverStarvesADevice) {
  // Fewer cells than the smallest chunk asks for: chunks of a sixteenth
  // of them, and both devices compute, however slow the lower one.
  for (int64_t cells : {16, 64, 1000, 4096}) {
    Outcome o = share(
        cells, 8, 8, 0.5, false,
        [](int d, double) { return d == 0 ? 7e-6 : 1e-6; }, 1024);
    EXPECT_GT(o.computed[0], 0) << cells << " cells";
    EXPECT_GT(o.computed[1], 0) << cells << " cells";
    MeetingFronts fronts({0, cells}, 8, 8, 0.5, false, 1024);
    CellRange lower = fronts.take(true, 0), upper = fronts.take(false, 0);
    EXPECT_FALSE(lower.empty());
    EXPECT_FALSE(upper.empty());
    EXPECT_LE(lower.size(), std::max<int64_t>(8, cells / 4)) << cells;
  }
}

TEST(MeetingFrontsTest, AScalarDeviceEndsWithinACellOrTwo) {
  // 256 cells, a scalar device (alignment 1) 5x slower than a vector one
  // (8 per vector). Its last chunks on the vector width, 8 cells, cost as
  // much as 40 on the other, and the two ended up to that apart; on its
  // own alignment its last chunks are of two cells, and the wave ends
  // within 1% of the ideal, over a spread of the guessed part.
  auto cost = [](int d, double) { return d == 0 ? 5e-6 : 1e-6; };
  double best = ideal(256, 5e-6, 1e-6), coarse = 0, fine = 0;
  for (double part : {0.12, 0.15, 0.17, 0.19, 0.22}) {
    Outcome o8 = share(256, 8, 8, part, true, cost, 2);
    Outcome o1 = share(256, 1, 8, part, true, cost, 2);
    EXPECT_LT(makespan(o1), 1.01 * best) << part;
    EXPECT_LE(std::abs(o1.finish[0] - o1.finish[1]), 2 * 5e-6 + 1e-12) << part;
    coarse += makespan(o8) / best;
    fine += makespan(o1) / best;
  }
  EXPECT_LT(fine, coarse);
}

TEST(MeetingFrontsTest, AScalarUpperDeviceMeetsAnywhere) {
  // The vector device below, the scalar one above: the vector device's
  // chunks stay on its width (share() checks), the scalar one's take any
  // cell, and every cell is computed once whatever the count.
  int unaligned = 0;
  for (int64_t cells : {21, 256, 1000})
    for (double part : {0.75, 0.8, 0.85}) {
      Outcome o = share(
          cells, 8, 1, part, false,
          [](int d, double) { return d == 0 ? 1e-6 : 5e-6; }, 2);
      EXPECT_EQ(o.computed[0] + o.computed[1], cells);
      EXPECT_GT(o.computed[1], 0) << cells;
      unaligned += o.meeting % 8 != 0;
    }
  // They met inside a vector at least once (on the vector width, never).
  EXPECT_GT(unaligned, 0);
}
