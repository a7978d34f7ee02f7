//===- TissueGrid.cpp - a structured grid of tissue -----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Tissue/TissueGrid.h"
#include "easyml/ABI/ABI.h"

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

namespace {
const char kAxis[] = {'x', 'y', 'z'};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
} // namespace

int TissueGrid::dimensions() const {
  return (n[0] > 1) + (n[1] > 1) + (n[2] > 1);
}

std::array<double, 3> TissueGrid::position(int64_t p) const {
  int64_t x = p % n[0], y = (p / n[0]) % n[1], z = p / (n[0] * n[1]);
  return {x * h[0], y * h[1], z * h[2]};
}

std::string TissueGrid::check() const {
  for (int a = 0; a < 3; ++a) {
    if (n[a] < 1)
      return std::string("the grid has ") + std::to_string(n[a]) +
             " points along " + kAxis[a] + ": at least 1 is needed";
    if (!(h[a] > 0) || !std::isfinite(h[a]))
      return std::string("spacing along ") + kAxis[a] + " is " +
             number(h[a]) + " mm: it must be positive";
  }
  if (!mask.empty() && static_cast<int64_t>(mask.size()) != points())
    return "the mask has " + std::to_string(mask.size()) +
           " values, the grid " + std::to_string(points()) + " points";
  return "";
}

std::vector<uint8_t> TissueGrid::diffusionFlags() const {
  std::vector<uint8_t> flags(points(), 0);
  const int64_t stride[3] = {1, n[0], n[0] * n[1]};
  for (int64_t p = 0; p < points(); ++p) {
    if (!isTissue(p))
      continue;
    int64_t coord[3] = {p % n[0], (p / n[0]) % n[1], p / (n[0] * n[1])};
    uint8_t f = EASYML_DIFFUSION_TISSUE;
    for (int a = 0; a < 3; ++a) {
      // Bits 2a (minus) and 2a+1 (plus): XM, XP, YM, YP, ZM, ZP.
      if (coord[a] > 0 && isTissue(p - stride[a]))
        f |= uint8_t(1u << (2 * a));
      if (coord[a] + 1 < n[a] && isTissue(p + stride[a]))
        f |= uint8_t(1u << (2 * a + 1));
    }
    flags[p] = f;
  }
  return flags;
}

double Conductivity::monodomain(int a) const {
  double si = intra[a], se = extra[a];
  return si + se > 0 ? si * se / (si + se) : 0;
}

double Conductivity::diffusion(int a) const {
  // sigma [S/m] / (beta [1/mm] * Cm [uF/cm^2]) = 100 sigma/(beta Cm) mm^2/ms.
  return 100.0 * monodomain(a) / (surfaceToVolume * capacitance);
}

std::string Conductivity::check() const {
  for (int a = 0; a < 3; ++a)
    if (!(intra[a] >= 0) || !(extra[a] >= 0) || !std::isfinite(intra[a]) ||
        !std::isfinite(extra[a]))
      return std::string("conductivities along ") + kAxis[a] +
             " must be finite and not negative (intracellular " +
             number(intra[a]) + ", extracellular " + number(extra[a]) +
             " S/m)";
  if (!(surfaceToVolume > 0) || !std::isfinite(surfaceToVolume))
    return "the surface-to-volume ratio is " + number(surfaceToVolume) +
           " 1/mm: it must be positive";
  if (!(capacitance > 0) || !std::isfinite(capacitance))
    return "the membrane capacitance is " + number(capacitance) +
           " uF/cm^2: it must be positive";
  return "";
}

std::vector<int64_t> TissueRegion::select(const TissueGrid &grid) const {
  std::vector<int64_t> out;
  if (kind == Points) {
    for (int64_t p : points)
      if (p >= 0 && p < grid.points() && grid.isTissue(p))
        out.push_back(p);
    return out;
  }
  // Bounds are inclusive, with a margin for spacings that do not add up
  // exactly (15 * 0.1 mm).
  const double eps = 1e-9;
  for (int64_t p = 0; p < grid.points(); ++p) {
    if (!grid.isTissue(p))
      continue;
    std::array<double, 3> x = grid.position(p);
    bool in = true;
    if (kind == Box) {
      for (int a = 0; a < 3; ++a)
        in = in && x[a] >= lo[a] - eps && x[a] <= hi[a] + eps;
    } else {
      double d2 = 0;
      for (int a = 0; a < 3; ++a)
        d2 += (x[a] - center[a]) * (x[a] - center[a]);
      in = d2 <= radius * radius + eps;
    }
    if (in)
      out.push_back(p);
  }
  return out;
}

double TissueStimulus::rate(const Conductivity &c) const {
  // uA/cm^2 over uF/cm^2 is mV/ms; a volume current is spread over the
  // membrane of that volume (beta in 1/cm is ten times beta in 1/mm).
  double perArea =
      unit == PerArea ? strength : strength / (10.0 * c.surfaceToVolume);
  return perArea / c.capacitance;
}

bool TissueStimulus::onAtStep(int64_t step, double dt) const {
  int64_t first = std::llround(start / dt);
  int64_t length = std::max<int64_t>(1, std::llround(duration / dt));
  int64_t every = std::llround(period / dt);
  if (step < first)
    return false;
  int64_t k = every > 0 ? (step - first) / every : 0;
  if (k >= count)
    return false;
  return step - first - k * every < length;
}

double easyml::rt::conductionVelocity(const TissueGrid &grid,
                                      const std::vector<double> &lat,
                                      int axis) {
  int64_t c[3] = {grid.n[0] / 2, grid.n[1] / 2, grid.n[2] / 2};
  int64_t n = grid.n[axis];
  double st = 0, sx = 0, stt = 0, stx = 0;
  int64_t k = 0;
  for (int64_t i = n / 4; i <= (3 * n) / 4 && i < n; ++i) {
    c[axis] = i;
    double t = lat[grid.index(c[0], c[1], c[2])];
    if (std::isnan(t))
      continue;
    double x = i * grid.h[axis];
    st += t;
    sx += x;
    stt += t * t;
    stx += t * x;
    ++k;
  }
  double var = stt - st * st / std::max<int64_t>(k, 1);
  if (k < 3 || !(var > 0))
    return NAN;
  // x = v t + x0: |v| whichever way the wave travels.
  return std::fabs((stx - st * sx / k) / var);
}
