//===- TissueGrid.h - a structured grid of tissue ---------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The geometry of a monodomain simulation: a box of nx x ny x nz points
// (x fastest, spacing per axis in mm), an optional mask of the points that
// are tissue, axis-aligned conductivities, and the regions stimuli act on.
// One point of tissue is one cell of the ionic model.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUEGRID_H
#define EASYML_RUNTIME_TISSUEGRID_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

struct TissueGrid {
  /// Points per axis (1 for an unused axis) and spacing (mm).
  std::array<int64_t, 3> n{{1, 1, 1}};
  std::array<double, 3> h{{0.1, 0.1, 0.1}};
  /// Empty (every point is tissue) or one byte per point, non-zero where
  /// the point is tissue.
  std::vector<uint8_t> mask;

  int64_t points() const { return n[0] * n[1] * n[2]; }
  int64_t index(int64_t x, int64_t y, int64_t z) const {
    return x + n[0] * (y + n[1] * z);
  }
  bool isTissue(int64_t p) const { return mask.empty() || mask[p] != 0; }
  /// The axes with more than one point.
  int dimensions() const;
  /// Where point `p` is (mm).
  std::array<double, 3> position(int64_t p) const;
  /// Empty, or what is wrong ("spacing along y is -0.1 mm: ...").
  std::string check() const;
  /// Per point: which neighbours it exchanges current with
  /// (easyml_diffusion_flag bits): none across the boundary or with a
  /// point outside the tissue (no flux).
  std::vector<uint8_t> diffusionFlags() const;
};

/// Intracellular and extracellular conductivities per axis (S/m), the
/// surface-to-volume ratio (1/mm) and the membrane capacitance (uF/cm^2).
struct Conductivity {
  std::array<double, 3> intra{{0.17, 0.019, 0.019}};
  std::array<double, 3> extra{{0.62, 0.24, 0.24}};
  double surfaceToVolume = 140;
  double capacitance = 1;

  /// The monodomain conductivity along `axis` (the harmonic combination
  /// si*se/(si+se), S/m).
  double monodomain(int axis) const;
  /// Its diffusion coefficient sigma/(beta*Cm) (mm^2/ms).
  double diffusion(int axis) const;
  std::string check() const;
};

/// Where a stimulus acts: an axis-aligned box or a sphere (mm, bounds
/// included), or a list of points.
struct TissueRegion {
  enum Kind { Box, Sphere, Points } kind = Box;
  std::array<double, 3> lo{{0, 0, 0}}, hi{{0, 0, 0}};
  std::array<double, 3> center{{0, 0, 0}};
  double radius = 0;
  std::vector<int64_t> points;

  /// The tissue points of `grid` inside the region.
  std::vector<int64_t> select(const TissueGrid &grid) const;
};

/// A stimulus current in a region: per volume of tissue (uA/cm^3) or per
/// area of membrane (uA/cm^2), on from `start` for `duration` (ms), then
/// every `period` ms, `count` times. Positive currents depolarise.
struct TissueStimulus {
  TissueRegion region;
  enum Unit { PerVolume, PerArea } unit = PerVolume;
  double strength = 0, start = 0, duration = 1, period = 0;
  int64_t count = 1;

  /// The current as dVm/dt (mV/ms) given the tissue's constants.
  double rate(const Conductivity &c) const;
  /// Whether a pulse is on during step `step` of length `dt` (ms): times
  /// are rounded to whole steps, as openCARP's stimuli are.
  bool onAtStep(int64_t step, double dt) const;
};

/// Conduction velocity (mm/ms) along `axis` from activation times `lat`
/// (one per grid point): the least-squares slope of position against time
/// over the middle half of the line through the grid's centre, away from
/// the stimulus and the far boundary. NaN with fewer than 3 activated points
/// there or no spread in time.
double conductionVelocity(const TissueGrid &grid,
                          const std::vector<double> &lat, int axis);

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_TISSUEGRID_H
