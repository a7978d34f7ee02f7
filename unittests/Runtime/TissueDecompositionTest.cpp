//===- TissueDecompositionTest.cpp - a grid's points over ranks -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Tissue/TissueDecomposition.h"

#include <gtest/gtest.h>

#include <set>

using namespace easyml::rt;

namespace {

TissueGrid grid(int64_t nx, int64_t ny, int64_t nz) {
  TissueGrid g;
  g.n = {{nx, ny, nz}};
  return g;
}

std::array<int, 3> chosen(const TissueGrid &g, int ranks) {
  return chooseProcessGrid(g, ranks, true).p;
}

} // namespace

TEST(TissueDecomposition, LeastHaloSurface) {
  // 800 x 800: two ranks cut y (one row each side, contiguous); four make
  // 2 x 2 (1.5 * 800 + 800 against 3 * 800 for slabs).
  EXPECT_EQ(chosen(grid(800, 800, 1), 2), (std::array<int, 3>{{1, 2, 1}}));
  EXPECT_EQ(chosen(grid(800, 800, 1), 4), (std::array<int, 3>{{2, 2, 1}}));
  // A long strip: cut along its length.
  EXPECT_EQ(chosen(grid(1000, 10, 1), 4), (std::array<int, 3>{{4, 1, 1}}));
  // The N-version slab at dx 0.2 mm: x is long, z short.
  EXPECT_EQ(chosen(grid(101, 36, 16), 4), (std::array<int, 3>{{2, 2, 1}}));
  // A prime count no axis holds: slabs along the slowest axis.
  EXPECT_EQ(chosen(grid(4, 4, 4), 7), (std::array<int, 3>{{1, 1, 7}}));
  // Slabs asked for.
  EXPECT_EQ(chooseProcessGrid(grid(800, 800, 1), 4, false).p,
            (std::array<int, 3>{{1, 4, 1}}));
  EXPECT_EQ(chooseProcessGrid(grid(10, 10, 10), 3, false).p,
            (std::array<int, 3>{{1, 1, 3}}));
}

TEST(TissueDecomposition, SlabsAreContiguous) {
  ProcessGrid pg;
  pg.p = {{1, 4, 1}};
  EXPECT_TRUE(pg.slabs(grid(10, 10, 1)));
  EXPECT_FALSE(pg.slabs(grid(10, 10, 3)));
  pg.p = {{2, 2, 1}};
  EXPECT_FALSE(pg.slabs(grid(10, 10, 1)));
  pg.p = {{3, 1, 1}};
  EXPECT_TRUE(pg.slabs(grid(30, 1, 1)));
}

TEST(TissueDecomposition, Checks) {
  ProcessGrid pg;
  pg.p = {{2, 2, 1}};
  EXPECT_EQ(checkProcessGrid(grid(8, 8, 1), pg, 4), "");
  EXPECT_EQ(checkProcessGrid(grid(8, 8, 1), pg, 3),
            "process_grid: 2 x 2 x 1 has 4 boxes for 3 ranks");
  pg.p = {{1, 1, 2}};
  EXPECT_EQ(checkProcessGrid(grid(8, 8, 1), pg, 2),
            "process_grid: 2 boxes along z but the grid has 1 points there");
}

TEST(TissueDecomposition, BoxesTileTheGrid) {
  TissueGrid g = grid(11, 7, 5);
  g.mask.assign(g.points(), 1);
  g.mask[g.index(3, 2, 1)] = 0;
  ProcessGrid pg;
  pg.p = {{3, 2, 2}};
  std::vector<int64_t> cells = tissueCellPoints(g, pg);
  std::vector<int64_t> counts = tissueCellCounts(g, pg);
  ASSERT_EQ(cells.size(), static_cast<size_t>(g.points() - 1));
  std::set<int64_t> seen(cells.begin(), cells.end());
  EXPECT_EQ(seen.size(), cells.size());
  EXPECT_EQ(seen.count(g.index(3, 2, 1)), 0u);
  // Rank by rank: each rank's cells lie in its box; sizes differ by at
  // most one point per axis.
  size_t k = 0;
  for (int r = 0; r < pg.ranks(); ++r) {
    TissueBox b = boxOf(g, pg, r);
    for (int a = 0; a < 3; ++a) {
      int64_t size = b.hi[a] - b.lo[a];
      EXPECT_TRUE(size == g.n[a] / pg.p[a] || size == g.n[a] / pg.p[a] + 1);
    }
    for (int64_t c = 0; c < counts[r]; ++c, ++k) {
      int64_t p = cells[k], x = p % 11, y = p / 11 % 7, z = p / 77;
      EXPECT_TRUE(x >= b.lo[0] && x < b.hi[0] && y >= b.lo[1] &&
                  y < b.hi[1] && z >= b.lo[2] && z < b.hi[2]);
    }
    EXPECT_EQ(rankAt(pg, boxCoord(pg, r)), r);
  }
  EXPECT_EQ(k, cells.size());
  // The buffer: one point of halo around the box.
  BoxLayout l(g, boxOf(g, pg, 0));
  EXPECT_EQ(l.ext, (std::array<int64_t, 3>{{5, 5, 4}}));
  EXPECT_EQ(l.slot(0, 0, 0), 1 + 5 * (1 + 5 * 1));
  EXPECT_EQ(l.slotOf(g, g.index(1, 0, 0)), l.slot(0, 0, 0) + 1);
}

TEST(TissueDecomposition, MaskedTissueKeepsBoxesEven) {
  // Tissue in the top half of the z planes only: cuts across z would
  // leave boxes without tissue, so they are not chosen.
  TissueGrid g = grid(20, 20, 8);
  g.mask.assign(g.points(), 0);
  for (int64_t z = 4; z < 8; ++z)
    for (int64_t y = 0; y < 20; ++y)
      for (int64_t x = 0; x < 20; ++x)
        g.mask[g.index(x, y, z)] = 1;
  std::array<int, 3> p = chosen(g, 4);
  EXPECT_EQ(p[2], 1);
  ProcessGrid pg;
  pg.p = p;
  for (int64_t c : tissueCellCounts(g, pg))
    EXPECT_EQ(c, 400);
  // A single column of tissue: only cuts along the column give every box
  // tissue, along z (slabs) or along y (boxes).
  TissueGrid col = grid(3, 3, 30);
  col.mask.assign(col.points(), 0);
  for (int64_t z = 0; z < 30; ++z)
    col.mask[col.index(1, 1, z)] = 1;
  EXPECT_EQ(chosen(col, 3), (std::array<int, 3>{{1, 1, 3}}));
  col.n = {{3, 30, 3}};
  col.mask.assign(col.points(), 0);
  for (int64_t y = 0; y < 30; ++y)
    col.mask[col.index(1, y, 0)] = 1;
  EXPECT_EQ(chosen(col, 3), (std::array<int, 3>{{1, 3, 1}}));
}
