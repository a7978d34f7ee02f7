//===- HotCellCost.cpp - cost of hot and resting cells --------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/HotCellCost.h"

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
/// The slabs change order only for a predicted step at least this much
/// faster than the best split in their order now (a new order moves most
/// cells, and the fits carry errors their scatter does not show: the
/// count of hot cells is a window's mean, each step has its overheads),
/// and only among this many devices at most (every order tried).
constexpr double kReorderGain = 0.15;
constexpr size_t kMaxReorderDevices = 6;
/// A fit's ratio of a hot to a resting cell's cost is taken as measured,
/// for a new order, only where the device held at least kMinHotShare of
/// hot cells in one of the windows (a few hot cells are measured within
/// the errors of their count) and the ratio's relative standard error is
/// at most kMaxHotError. A new order is judged with it kErrorMargin
/// standard errors above the fit.
constexpr double kMaxHotError = 0.5;
constexpr double kErrorMargin = 2;
constexpr double kMinHotShare = 0.05;
/// That ratio is fitted over this many histories' windows (a hot band
/// that grows slowly changes a device's mix little between windows).
constexpr size_t kLongHistory = 4;
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
      long_(devices), rest_(devices, 0.0), hot_(devices, 0.0),
      speeds_(devices, 0.0), fitted_(devices, 0),
      sinceApart_(devices, SIZE_MAX), measuredRatio_(devices, NAN),
      ratioError_(devices, 0.0) {}

void HotCellCost::add(size_t d, double cells, double hot,
                      double secondsPerStep) {
  if (d >= windows_.size() || cells <= 0 || !(secondsPerStep > 0))
    return;
  hot = std::clamp(hot, 0.0, cells);
  for (auto *w : {&windows_[d], &long_[d]}) {
    w->push_back({cells - hot, hot, secondsPerStep});
    if (w->size() > (w == &long_[d] ? kLongHistory * history_ : history_))
      w->pop_front();
  }
  fit(d);
}

HotCellCost::Fit HotCellCost::fitCosts(const std::deque<Window> &windows,
                                       double maxCosine2) {
  // Least squares on relative errors: each window's equation
  // rest * R + hot * H = t divided by t.
  Fit f;
  double rr = 0, rh = 0, hh = 0, r1 = 0, h1 = 0;
  for (const Window &w : windows) {
    double r = w.rest / w.seconds, h = w.hot / w.seconds;
    rr += r * r, rh += r * h, hh += h * h, r1 += r, h1 += h;
  }
  double det = rr * hh - rh * rh;
  if (windows.size() < kMinWindows || rr <= 0 || hh <= 0 ||
      det <= (1 - maxCosine2) * rr * hh)
    return f;
  double a = (r1 * hh - h1 * rh) / det, b = (h1 * rr - r1 * rh) / det;
  if (!(a > 0 && b > 0 && b < kMaxRatio * a && a < kMaxRatio * b))
    return f;
  // The ratio's relative standard error, from the covariance of the two
  // costs: the residuals' variance times the inverse normal matrix.
  double rss = 0, most = 0;
  for (const Window &w : windows) {
    double e = (a * w.rest + b * w.hot) / w.seconds - 1;
    rss += e * e;
    most = std::max(most, w.hot / (w.rest + w.hot));
  }
  double dof = static_cast<double>(std::max<size_t>(1, windows.size() - 2));
  f.rest = a, f.hot = b, f.ok = true;
  double var = rss / dof / det;
  f.error = std::sqrt(
      std::max(0.0, var * (rr / (b * b) + hh / (a * a) + 2 * rh / (a * b))));
  f.mostHot = most;
  return f;
}

void HotCellCost::fit(size_t d) {
  // The ratio that judges new orders: from the longer history, when
  // measured within the noise.
  Fit measured = fitCosts(long_[d], 1.0);
  if (measured.ok && measured.error <= kMaxHotError &&
      measured.mostHot >= kMinHotShare)
    measuredRatio_[d] = measured.hot / measured.rest,
    ratioError_[d] = measured.error;
  Fit f = fitCosts(windows_[d], kMaxCosine2);
  if (f.ok) {
    rest_[d] = f.rest, hot_[d] = f.hot, fitted_[d] = 1, sinceApart_[d] = 0;
    return;
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

double HotCellCost::bound(size_t d, double margin) const {
  return std::clamp(measuredRatio_[d] * (1 + margin * ratioError_[d]),
                    1 / kMaxRatio, kMaxRatio);
}

double HotCellCost::lastShare(size_t d) const {
  if (windows_[d].empty())
    return 0;
  const Window &w = windows_[d].back();
  return w.hot / (w.rest + w.hot);
}

HotCellCost HotCellCost::cautious(const std::vector<double> &margins) const {
  HotCellCost judge = *this;
  // A device without a measured ratio: the largest measured where it
  // gains hot cells, 1 where it sheds them.
  double largest = 1;
  for (size_t d = 0; d < measuredRatio_.size(); ++d)
    if (!std::isnan(measuredRatio_[d]))
      largest = std::max(largest, bound(d, std::max(0.0, margins[d])));
  for (size_t d = 0; d < rest_.size(); ++d) {
    double rest = 0, hot = 0;
    if (!costs(d, rest, hot))
      continue;
    // The mean cost of a cell at the last window's mix stays.
    double share = lastShare(d);
    double mean = rest * (1 - share) + hot * share;
    double ratio = !std::isnan(measuredRatio_[d]) ? bound(d, margins[d])
                   : margins[d] < 0               ? 1.0
                                                  : largest;
    judge.rest_[d] = mean / (1 - share + ratio * share);
    judge.hot_[d] = ratio * judge.rest_[d];
    judge.fitted_[d] = 1;
  }
  return judge;
}

double HotCellCost::robustTime(const std::vector<CellRange> &to,
                               const HotBlocks &hot) const {
  // Each device's ratio at the end of its interval that makes the move
  // look worst: cautious() keeps the mean cost at the last window's mix,
  // so a higher ratio costs more where the device's share of hot cells
  // grows beyond that mix, less where it falls below.
  std::vector<double> margins(rest_.size(), 0.0);
  for (size_t d = 0; d < margins.size(); ++d) {
    if (to[d].empty())
      continue;
    double share = static_cast<double>(hot.in(to[d])) / to[d].size();
    double last = lastShare(d);
    margins[d] = share > last ? kErrorMargin : share < last ? -kErrorMargin : 0;
  }
  return cautious(margins).slowest(to, hot);
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

double HotCellCost::splitInOrder(const std::vector<size_t> &order,
                                 const HotBlocks &hot,
                                 std::vector<CellRange> &ranges) const {
  // The least time T at which the devices in `order` cover every cell:
  // bisect between 0 and the fastest device alone. The last of them
  // takes the rest.
  ranges.assign(rest_.size(), CellRange{});
  auto cover = [&](double limit, std::vector<CellRange> &out) {
    int64_t begin = 0;
    std::fill(out.begin(), out.end(), CellRange{});
    for (size_t d : order) {
      int64_t end = d == order.back() ? hot.cells : reach(d, begin, limit, hot);
      out[d] = {begin, end};
      begin = end;
    }
    return time(order.back(), out[order.back()], hot) <= limit;
  };
  double lo = 0, hi = INFINITY;
  for (size_t d : order)
    hi = std::min(hi, time(d, {0, hot.cells}, hot));
  for (int i = 0; i < 60 && hi > lo * (1 + 1e-9); ++i) {
    double mid = 0.5 * (lo + hi);
    if (cover(mid, ranges))
      hi = mid;
    else
      lo = mid;
  }
  cover(hi, ranges);
  return slowest(ranges, hot);
}

std::vector<CellRange>
HotCellCost::split(const HotBlocks &hot,
                   const std::vector<CellRange> &current) const {
  size_t n = rest_.size();
  std::vector<CellRange> ranges(n);
  if (n == 0 || !ready() || hot.prefix.empty())
    return ranges;
  // The devices that can take cells, in the order their ranges have now
  // (those without cells after, in device order).
  std::vector<size_t> able;
  double rest = 0, hotCost = 0;
  for (size_t d = 0; d < n; ++d)
    if (costs(d, rest, hotCost))
      able.push_back(d);
  if (current.size() == n)
    std::sort(able.begin(), able.end(), [&](size_t a, size_t b) {
      bool ea = current[a].empty(), eb = current[b].empty();
      if (ea != eb)
        return eb;
      if (!ea && current[a].begin != current[b].begin)
        return current[a].begin < current[b].begin;
      return a < b;
    });
  splitInOrder(able, hot, ranges);
  // Orders differ only where hot cells cost some device a measured ratio.
  bool measured = std::any_of(measuredRatio_.begin(), measuredRatio_.end(),
                              [](double r) { return !std::isnan(r); });
  if (able.size() < 2 || able.size() > kMaxReorderDevices || !measured ||
      hot.prefix.back() == 0)
    return ranges;
  // Another order of the slabs, where one is predicted faster by more
  // than the margin even with each device's measured ratio at the end of
  // its confidence interval that makes the move look worst (a new order
  // bets on no cost nobody measured): the devices whose hot cells cost
  // least move to where the hot cells are.
  HotCellCost estimate = estimates();
  std::vector<CellRange> trial;
  double bar = (1 - kReorderGain) * estimate.splitInOrder(able, hot, trial);
  double best = INFINITY;
  std::vector<size_t> order = able;
  std::sort(order.begin(), order.end());
  do {
    if (order == able)
      continue;
    double t = estimate.splitInOrder(order, hot, trial);
    if (t < bar && t < best && robustTime(trial, hot) < bar)
      best = t, ranges = trial;
  } while (std::next_permutation(order.begin(), order.end()));
  return ranges;
}
