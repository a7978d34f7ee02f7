//===- HotCellCost.cpp - cost of hot and resting cells --------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/HotCellCost.h"

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

namespace {
/// A hot cell costs at most this many times a resting one, and at least
/// its inverse: beyond, a fit is taken for noise.
constexpr double kMaxRatio = 16;
/// The two costs are told apart from at least this many windows whose
/// (resting, hot) counts are far enough from parallel: the squared cosine
/// between the two columns below this. Above, the windows held about the
/// same share of hot cells and only their sum is measured (a fit there
/// would amplify the timing noise).
constexpr size_t kMinWindows = 3;
constexpr double kMaxCosine2 = 0.95;
} // namespace

int64_t HotBlocks::in(CellRange r) const {
  if (r.empty() || prefix.empty())
    return 0;
  auto edge = [&](int64_t cell) {
    int64_t k = (cell + align - 1) / align;
    return prefix[std::clamp<int64_t>(k, 0, prefix.size() - 1)];
  };
  return edge(r.end) - edge(r.begin);
}

HotCellCost::HotCellCost(size_t devices, size_t history)
    : history_(std::max<size_t>(kMinWindows, history)), windows_(devices),
      rest_(devices, 0.0), hot_(devices, 0.0), speeds_(devices, 0.0),
      fitted_(devices, 0), sinceApart_(devices, SIZE_MAX) {}

void HotCellCost::add(size_t d, double cells, double hot,
                      double secondsPerStep) {
  if (d >= windows_.size() || cells <= 0 || !(secondsPerStep > 0))
    return;
  hot = std::clamp(hot, 0.0, cells);
  std::deque<Window> &w = windows_[d];
  w.push_back({cells - hot, hot, secondsPerStep});
  if (w.size() > history_)
    w.pop_front();
  fit(d);
}

void HotCellCost::fit(size_t d) {
  // Least squares on relative errors: each window's equation
  // rest * R + hot * H = t divided by t.
  double rr = 0, rh = 0, hh = 0, r1 = 0, h1 = 0;
  for (const Window &w : windows_[d]) {
    double r = w.rest / w.seconds, h = w.hot / w.seconds;
    rr += r * r, rh += r * h, hh += h * h, r1 += r, h1 += h;
  }
  double det = rr * hh - rh * rh;
  if (windows_[d].size() >= kMinWindows && rr > 0 && hh > 0 &&
      det > (1 - kMaxCosine2) * rr * hh) {
    double a = (r1 * hh - h1 * rh) / det, b = (h1 * rr - r1 * rh) / det;
    if (a > 0 && b > 0 && b < kMaxRatio * a && a < kMaxRatio * b) {
      rest_[d] = a, hot_[d] = b, fitted_[d] = 1, sinceApart_[d] = 0;
      return;
    }
  }
  // Only the cells' sum is measured: keep the ratio told apart last for a
  // history's length of windows (1 before any, or after), scale to these
  // windows.
  if (sinceApart_[d] != SIZE_MAX)
    ++sinceApart_[d];
  double ratio =
      sinceApart_[d] < history_ && rest_[d] > 0 ? hot_[d] / rest_[d] : 1.0;
  double xx = 0, x1 = 0;
  for (const Window &w : windows_[d]) {
    double x = (w.rest + ratio * w.hot) / w.seconds;
    xx += x * x, x1 += x;
  }
  if (xx <= 0)
    return;
  rest_[d] = x1 / xx, hot_[d] = ratio * rest_[d], fitted_[d] = 1;
}

bool HotCellCost::coefficients(size_t d, double &rest, double &hot) const {
  if (d >= fitted_.size() || !fitted_[d])
    return false;
  rest = rest_[d], hot = hot_[d];
  return true;
}

bool HotCellCost::ready() const {
  return std::any_of(fitted_.begin(), fitted_.end(), [](char f) { return f; });
}

bool HotCellCost::costs(size_t d, double &rest, double &hot) const {
  if (fitted_[d]) {
    rest = rest_[d], hot = hot_[d];
    return true;
  }
  if (d < speeds_.size() && speeds_[d] > 0) {
    rest = hot = 1 / speeds_[d];
    return true;
  }
  return false;
}

double HotCellCost::time(size_t d, CellRange r, const HotBlocks &hot) const {
  double rest = 0, hotCost = 0;
  if (r.empty() || !costs(d, rest, hotCost))
    return r.empty() ? 0 : INFINITY;
  double h = static_cast<double>(hot.in(r));
  return rest * (r.size() - h) + hotCost * h;
}

double HotCellCost::slowest(const std::vector<CellRange> &ranges,
                            const HotBlocks &hot) const {
  double t = 0;
  for (size_t d = 0; d < ranges.size() && d < rest_.size(); ++d)
    t = std::max(t, time(d, ranges[d], hot));
  return t;
}

int64_t HotCellCost::reach(size_t d, int64_t begin, double limit,
                           const HotBlocks &hot) const {
  // Time is monotone in the end: bisect over block edges.
  int64_t lo = (begin + hot.align - 1) / hot.align;
  int64_t hi = static_cast<int64_t>(hot.prefix.size()) - 1;
  auto cell = [&](int64_t k) { return std::min(k * hot.align, hot.cells); };
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (time(d, {begin, cell(mid)}, hot) <= limit)
      lo = mid;
    else
      hi = mid - 1;
  }
  return std::max(begin, cell(lo));
}

std::vector<CellRange> HotCellCost::split(const HotBlocks &hot) const {
  size_t n = rest_.size();
  std::vector<CellRange> ranges(n);
  if (n == 0 || !ready() || hot.prefix.empty())
    return ranges;
  // The least time T at which the devices in order cover every cell:
  // bisect between 0 and the fastest device alone.
  // The devices that can take cells; the last of them takes the rest.
  std::vector<size_t> able;
  double rest = 0, hotCost = 0;
  for (size_t d = 0; d < n; ++d)
    if (costs(d, rest, hotCost))
      able.push_back(d);
  auto cover = [&](double limit, std::vector<CellRange> &out) {
    int64_t begin = 0;
    std::fill(out.begin(), out.end(), CellRange{});
    for (size_t d : able) {
      int64_t end = d == able.back() ? hot.cells : reach(d, begin, limit, hot);
      out[d] = {begin, end};
      begin = end;
    }
    return time(able.back(), out[able.back()], hot) <= limit;
  };
  double lo = 0, hi = INFINITY;
  for (size_t d : able)
    hi = std::min(hi, time(d, {0, hot.cells}, hot));
  for (int i = 0; i < 60 && hi > lo * (1 + 1e-9); ++i) {
    double mid = 0.5 * (lo + hi);
    if (cover(mid, ranges))
      hi = mid;
    else
      lo = mid;
  }
  cover(hi, ranges);
  return ranges;
}
