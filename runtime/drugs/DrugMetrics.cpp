//===- DrugMetrics.cpp - metrics of one beat's samples --------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What a drug study measures on the samples of the last beat that the
// kernels' biomarkers do not: the calcium transient's durations and CiPA's
// EAD measure, both on 1-ms samples as FDA's AP_simulation.R takes them.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Drugs/DrugStudy.h"

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

void easyml::rt::calciumDurations(const std::vector<double> &ca, double every,
                                  double &catd50, double &catd90) {
  catd50 = catd90 = NAN;
  if (ca.size() < 3)
    return;
  size_t peak = std::max_element(ca.begin(), ca.end()) - ca.begin();
  if (peak == 0)
    return;
  double rest = *std::min_element(ca.begin(), ca.begin() + peak);
  double amplitude = ca[peak] - rest;
  size_t up = 0;
  while (up < peak && !(ca[up] > rest + 0.9 * amplitude))
    ++up;
  auto decay = [&](double fraction) {
    double level = rest + amplitude * (1 - fraction);
    for (size_t k = peak + 1; k < ca.size(); ++k)
      if (ca[k] <= level)
        return (double(k) - double(up)) * every;
    return double(NAN);
  };
  catd50 = decay(0.5);
  catd90 = decay(0.9);
}

double easyml::rt::cipaMaxDv(const std::vector<double> &v,
                             const std::vector<double> &dv, double every) {
  if (v.size() < 2 || dv.size() != v.size())
    return NAN;
  const size_t last = v.size() - 1;
  size_t peak = std::max_element(v.begin(), v.end()) - v.begin();
  double vmax = v[peak];
  size_t from = last, to = last;
  if (vmax >= 0)
    from = peak;
  double rest =
      peak > 0 ? *std::min_element(v.begin(), v.begin() + peak) : v[0];
  // The first sample after the peak at or below `fraction` repolarised.
  auto repolarised = [&](double fraction, size_t &at) {
    double level = rest + (vmax - rest) * (1 - fraction);
    for (size_t k = peak + 1; k <= last; ++k)
      if (v[k] <= level)
        return at = k, true;
    return false;
  };
  size_t at = 0;
  if (vmax >= 0 && rest < -40 && repolarised(0.3, at)) {
    from = at;
    if (repolarised(0.9, at))
      to = at;
  }
  if (!((double(to) - double(from)) * every > 1))
    return NAN;
  double best = -INFINITY;
  for (size_t k = from + 1; k < to; ++k)
    best = std::max(best, dv[k]);
  return best;
}
