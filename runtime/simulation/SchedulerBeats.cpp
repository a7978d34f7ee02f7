//===- SchedulerBeats.cpp - beats and their biomarkers --------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A beat starts at every stimulus onset. The kernels update each cell's
// biomarker accumulators after every step; closing a beat brings them to
// the host, turns them into one table row per cell and resets them.
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include <algorithm>
#include <cmath>

using namespace easyml::rt;

bool Scheduler::enableBiomarkers(const BiomarkerOptions &options,
                                 std::string &error) {
  const easyml_model_desc &d = desc_;
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
  bio.on = true;
  bio.options = options;
  bio.beatStart = step_;
  bio.lastApd90.assign(store_->cells(),
                       std::numeric_limits<double>::quiet_NaN());
  bio.lastChange = bio.lastApd90;
  store_->enableBio(ca);
  for (auto &device : set_.devices)
    if (!device->sharesHostStore() && !device->range().empty() &&
        !device->upload(device->range(), kBioRows, error))
      return fail(*device, error);
  return true;
}

/// The host's reset accumulators to every device; one that fails is
/// dropped (dropBetweenWaves).
bool Scheduler::uploadNewAccumulators(const std::string &why,
                                      std::string &err) {
  for (size_t i = 0; i < set_.devices.size(); ++i) {
    Device &device = *set_.devices[i];
    if (!device.sharesHostStore() && !device.range().empty() &&
        !device.upload(device.range(), kBioRows, err) &&
        !dropBetweenWaves(static_cast<int>(i), why, err))
      return false;
  }
  return true;
}

bool Scheduler::closeBeat(bool keep) {
  if (!bio.on || !usable())
    return false;
  std::string err;
  if (step_ == bio.beatStart)
    return true; // nothing happened since the beat started
  if (!keep) {
    store_->resetBio();
    if (!uploadNewAccumulators("starting a beat", err))
      return false;
    bio.beatStart = step_;
    return true;
  }
  for (size_t i = 0; i < set_.devices.size(); ++i) {
    Device &device = *set_.devices[i];
    if (!device.sharesHostStore() && !device.range().empty() &&
        !device.download(device.range(), kBioRows, err) &&
        !dropBetweenWaves(static_cast<int>(i), "closing a beat", err))
      return false;
  }
  CellStore &st = *store_;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const BiomarkerOptions &o = bio.options;
  int64_t n = st.cells();
  size_t base = bio.table.values.size();
  bio.table.values.resize(base + n * kBioNumColumns, nan);
  double start = bio.beatStart * dt_;
  for (int64_t c = 0; c < n; ++c) {
    auto acc = [&](int row) { return st.bio(row)[c]; };
    double *r = bio.table.values.data() + base + c * kBioNumColumns;
    r[kBioCell] = static_cast<double>(c);
    r[kBioBeat] = static_cast<double>(bio.beat);
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
    double change = r[kBioApd90] - bio.lastApd90[c];
    r[kBioApd90Change] = change;
    double prev = bio.lastChange[c];
    if (std::fabs(change) > o.alternansMs && std::fabs(prev) > o.alternansMs &&
        (change > 0) != (prev > 0))
      flags |= kBioAlternans;
    bio.lastApd90[c] = r[kBioApd90];
    bio.lastChange[c] = change;
    r[kBioFlags] = flags;
  }
  st.resetBio();
  if (!uploadNewAccumulators("starting a beat", err))
    return false;
  ++bio.beat;
  bio.beatStart = step_;
  return true;
}
