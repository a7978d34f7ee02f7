//===- TissueDecomposition.cpp - a grid's points over ranks ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Tissue/TissueDecomposition.h"

#include <algorithm>
#include <climits>
#include <limits>

using namespace easyml::rt;

namespace {

/// Part `i` of `parts` of [0, n): sizes differ by at most one.
int64_t cut(int64_t n, int parts, int i) {
  return n * i / parts;
}

/// Points on the faces the boxes of `p` share, x faces weighted 1.5.
double haloSurface(const TissueGrid &g, const std::array<int, 3> &p) {
  double s = 0;
  for (int a = 0; a < 3; ++a) {
    double area = 1;
    for (int b = 0; b < 3; ++b)
      if (b != a)
        area *= static_cast<double>(g.n[b]);
    s += (p[a] - 1) * area * (a == 0 ? 1.5 : 1.0);
  }
  return s;
}

/// Whether the boxes of `p` hold even shares of the tissue: none more
/// than a quarter above the mean, none empty (a mask may leave parts of
/// the box without tissue).
bool balanced(const TissueGrid &g, const std::array<int, 3> &p) {
  if (g.mask.empty())
    return true; // the boxes differ by at most one point per axis
  ProcessGrid pg;
  pg.p = p;
  std::vector<int64_t> counts = tissueCellCounts(g, pg);
  int64_t total = 0, most = 0, least = INT64_MAX;
  for (int64_t c : counts) {
    total += c;
    most = std::max(most, c);
    least = std::min(least, c);
  }
  return least > 0 &&
         static_cast<double>(most) * counts.size() <= 1.25 * total;
}

} // namespace

bool ProcessGrid::slabs(const TissueGrid &grid) const {
  int cutAxis = -1;
  for (int a = 0; a < 3; ++a)
    if (p[a] > 1) {
      if (cutAxis >= 0)
        return false;
      cutAxis = a;
    }
  for (int a = cutAxis + 1; cutAxis >= 0 && a < 3; ++a)
    if (grid.n[a] > 1)
      return false;
  return true;
}

std::string ProcessGrid::str() const {
  return std::to_string(p[0]) + " x " + std::to_string(p[1]) + " x " +
         std::to_string(p[2]);
}

std::string easyml::rt::checkProcessGrid(const TissueGrid &grid,
                                         const ProcessGrid &pg, int ranks) {
  for (int a = 0; a < 3; ++a)
    if (pg.p[a] < 1)
      return "process_grid: " + std::to_string(pg.p[a]) + " boxes along " +
             "xyz"[a] + ": give at least 1 per axis";
  if (pg.ranks() != ranks)
    return "process_grid: " + pg.str() + " has " +
           std::to_string(pg.ranks()) + " boxes for " +
           std::to_string(ranks) + " ranks";
  for (int a = 0; a < 3; ++a)
    if (pg.p[a] > grid.n[a])
      return "process_grid: " + std::to_string(pg.p[a]) + " boxes along " +
             "xyz"[a] + " but the grid has " + std::to_string(grid.n[a]) +
             " points there";
  return "";
}

ProcessGrid easyml::rt::chooseProcessGrid(const TissueGrid &grid, int ranks,
                                          bool boxes) {
  ProcessGrid best;
  if (!boxes || ranks <= 1) {
    // Slabs: every rank along the slowest axis with more than one point.
    int slow = grid.n[2] > 1 ? 2 : grid.n[1] > 1 ? 1 : 0;
    best.p = {{1, 1, 1}};
    best.p[slow] = std::max(1, ranks);
    return best;
  }
  double bestCost = std::numeric_limits<double>::infinity();
  for (int px = 1; px <= ranks; ++px)
    for (int py = 1; px * py <= ranks; ++py) {
      if (ranks % (px * py) != 0)
        continue;
      std::array<int, 3> p{{px, py, ranks / (px * py)}};
      if (p[0] > grid.n[0] || p[1] > grid.n[1] || p[2] > grid.n[2])
        continue;
      if (!balanced(grid, p))
        continue;
      double cost = haloSurface(grid, p);
      // Equal costs: the first found has the fewest cuts across x, then y.
      if (cost < bestCost) {
        bestCost = cost;
        best.p = p;
      }
    }
  if (best.automatic()) // no process grid fits: slabs say why
    return chooseProcessGrid(grid, ranks, false);
  return best;
}

std::array<int, 3> easyml::rt::boxCoord(const ProcessGrid &pg, int rank) {
  return {{rank % pg.p[0], rank / pg.p[0] % pg.p[1],
           rank / (pg.p[0] * pg.p[1])}};
}

int easyml::rt::rankAt(const ProcessGrid &pg, std::array<int, 3> c) {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] >= pg.p[a])
      return -1;
  return c[0] + pg.p[0] * (c[1] + pg.p[1] * c[2]);
}

TissueBox easyml::rt::boxOf(const TissueGrid &grid, const ProcessGrid &pg,
                            int rank) {
  std::array<int, 3> c = boxCoord(pg, rank);
  TissueBox b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = cut(grid.n[a], pg.p[a], c[a]);
    b.hi[a] = cut(grid.n[a], pg.p[a], c[a] + 1);
  }
  return b;
}

std::vector<int64_t> easyml::rt::tissueCellPoints(const TissueGrid &grid,
                                                  const ProcessGrid &pg) {
  std::vector<int64_t> out;
  if (pg.automatic() || pg.slabs(grid)) {
    for (int64_t p = 0; p < grid.points(); ++p)
      if (grid.isTissue(p))
        out.push_back(p);
    return out;
  }
  for (int r = 0; r < pg.ranks(); ++r) {
    TissueBox b = boxOf(grid, pg, r);
    for (int64_t z = b.lo[2]; z < b.hi[2]; ++z)
      for (int64_t y = b.lo[1]; y < b.hi[1]; ++y)
        for (int64_t x = b.lo[0]; x < b.hi[0]; ++x)
          if (int64_t p = grid.index(x, y, z); grid.isTissue(p))
            out.push_back(p);
  }
  return out;
}

std::vector<int64_t> easyml::rt::tissueCellCounts(const TissueGrid &grid,
                                                  const ProcessGrid &pg) {
  std::vector<int64_t> counts(pg.ranks(), 0);
  for (int r = 0; r < pg.ranks(); ++r) {
    TissueBox b = boxOf(grid, pg, r);
    for (int64_t z = b.lo[2]; z < b.hi[2]; ++z)
      for (int64_t y = b.lo[1]; y < b.hi[1]; ++y)
        for (int64_t x = b.lo[0]; x < b.hi[0]; ++x)
          counts[r] += grid.isTissue(grid.index(x, y, z));
  }
  return counts;
}

BoxLayout::BoxLayout(const TissueGrid &grid, const TissueBox &b) : box(b) {
  for (int a = 0; a < 3; ++a) {
    off[a] = grid.n[a] > 1 ? 1 : 0;
    ext[a] = b.hi[a] - b.lo[a] + 2 * off[a];
  }
}

int64_t BoxLayout::slotOf(const TissueGrid &grid, int64_t point) const {
  int64_t x = point % grid.n[0], y = point / grid.n[0] % grid.n[1],
          z = point / (grid.n[0] * grid.n[1]);
  return slot(x, y, z);
}
