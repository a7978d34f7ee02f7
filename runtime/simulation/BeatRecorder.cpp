//===- BeatRecorder.cpp - per-cell biomarkers, beat by beat --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "BeatRecorder.h"

#include <cmath>
#include <limits>

using namespace easyml::rt;

BeatRecorder::BeatRecorder(DeviceTeam &team, RecoveryPolicy &recovery,
                           const Timeline &timeline, const double &dt)
    : team_(team), recovery_(recovery), timeline_(timeline), dt_(dt) {}

bool BeatRecorder::beforeStep(int64_t step, std::string &error) {
  (void)error; // a failure is the team's
  if (!team_.bio || step <= beatStart_ || !timeline_.stimulusStartsAt(step))
    return true;
  return close(beat_ > 0 || timeline_.stimulusStartsAt(beatStart_));
}

bool BeatRecorder::enable(const BiomarkerOptions &options,
                          std::string &error) {
  const easyml_model_desc &d = team_.desc();
  if (!(d.features & EASYML_FEATURE_BIOMARKERS)) {
    error = std::string("model ") + d.name +
            " was compiled without biomarker support (recompile it)";
    return false;
  }
  if (d.vm_index < 0) {
    error = std::string("model ") + d.name +
            " has no Vm: biomarkers need a transmembrane potential";
    return false;
  }
  int64_t ca = -1;
  if (!options.caVariable.empty()) {
    for (int64_t v = 0; v < d.num_states; ++v)
      if (options.caVariable == d.state_names[v])
        ca = v;
    if (ca < 0) {
      error = "unknown calcium variable '" + options.caVariable +
              "': model " + d.name + " has no such state";
      return false;
    }
  }
  team_.bio = true;
  options_ = options;
  beatStart_ = team_.step;
  lastApd90_.assign(team_.store().cells(),
                       std::numeric_limits<double>::quiet_NaN());
  lastChange_ = lastApd90_;
  team_.store().enableBio(ca);
  for (auto &device : team_.devices())
    if (!device->sharesHostStore() && !device->range().empty() &&
        !device->upload(device->range(), kBioRows, error))
      return team_.fail(*device, error);
  return true;
}

/// The host's reset accumulators to every device; one that fails is
/// dropped (dropBetweenWaves).
bool BeatRecorder::uploadNewAccumulators(const std::string &why,
                                         std::string &err) {
  for (int i = 0; i < team_.size(); ++i) {
    Device &device = team_.device(i);
    if (!device.sharesHostStore() && !device.range().empty() &&
        !device.upload(device.range(), kBioRows, err) &&
        !recovery_.dropBetweenWaves(i, why, err))
      return false;
  }
  return true;
}

bool BeatRecorder::close(bool keep) {
  if (!team_.bio || !team_.usable())
    return false;
  std::string err;
  if (team_.step == beatStart_)
    return true; // nothing happened since the beat started
  if (!keep) {
    team_.store().resetBio();
    if (!uploadNewAccumulators("starting a beat", err))
      return false;
    recovery_.accumulatorsWritten();
    beatStart_ = team_.step;
    return true;
  }
  for (int i = 0; i < team_.size(); ++i) {
    Device &device = team_.device(i);
    if (!device.sharesHostStore() && !device.range().empty() &&
        !device.download(device.range(), kBioRows, err) &&
        !recovery_.dropBetweenWaves(i, "closing a beat", err))
      return false;
  }
  CellStore &st = team_.store();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const BiomarkerOptions &o = options_;
  int64_t n = st.cells();
  size_t base = table_.values.size();
  table_.values.resize(base + n * kBioNumColumns, nan);
  double start = beatStart_ * dt_;
  for (int64_t c = 0; c < n; ++c) {
    auto acc = [&](int row) { return st.bio(row)[c]; };
    double *r = table_.values.data() + base + c * kBioNumColumns;
    r[kBioCell] = static_cast<double>(c);
    r[kBioBeat] = static_cast<double>(beat_);
    r[kBioStart] = start;
    r[kBioVRest] = acc(EASYML_BIO_V_REST);
    r[kBioVPeak] = acc(EASYML_BIO_V_PEAK);
    r[kBioDvdtMax] = acc(EASYML_BIO_DVDT_MAX);
    int flags = 0;
    // NaN amplitudes (no step taken) count as not excited too.
    bool excited = acc(EASYML_BIO_V_PEAK) - acc(EASYML_BIO_V_REST) >=
                   o.minAmplitude;
    double up = acc(EASYML_BIO_T_UPSTROKE);
    if (!excited) {
      flags |= kBioNoExcitation;
    } else {
      r[kBioApd30] = acc(EASYML_BIO_T_REPOL30) - up;
      r[kBioApd50] = acc(EASYML_BIO_T_REPOL50) - up;
      r[kBioApd90] = acc(EASYML_BIO_T_REPOL90) - up;
      r[kBioTriangulation] = r[kBioApd90] - r[kBioApd30];
      if (std::isnan(r[kBioApd90]))
        flags |= kBioNoRepolarisation;
      if (acc(EASYML_BIO_EAD) > 0.5)
        flags |= kBioEad;
    }
    if (st.bioCa() >= 0) {
      r[kBioCaAmplitude] = acc(EASYML_BIO_CA_MAX) - acc(EASYML_BIO_CA_MIN);
      if (excited)
        r[kBioCaTimeToPeak] = acc(EASYML_BIO_T_CA_PEAK) - up;
    }
    double change = r[kBioApd90] - lastApd90_[c];
    r[kBioApd90Change] = change;
    double prev = lastChange_[c];
    if (std::fabs(change) > o.alternansMs && std::fabs(prev) > o.alternansMs &&
        (change > 0) != (prev > 0))
      flags |= kBioAlternans;
    lastApd90_[c] = r[kBioApd90];
    lastChange_[c] = change;
    r[kBioFlags] = flags;
  }
  st.resetBio();
  if (!uploadNewAccumulators("starting a beat", err))
    return false;
  recovery_.accumulatorsWritten();
  ++beat_;
  beatStart_ = team_.step;
  return true;
}
