//===- StepCopy.cpp - every cell on the host as of one step ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/StepCopy.h"
#include "easyml/Runtime/Support/Clock.h"

#include <algorithm>

using namespace easyml::rt;

std::vector<double *> StepCopy::hostRows(bool states, bool bio) const {
  CellStore &store = team_.store();
  std::vector<double *> rows;
  for (int64_t v = 0; states && v < store.svRows(); ++v)
    rows.push_back(store.sv(v));
  for (int64_t e = 0; states && e < team_.desc().num_externals; ++e)
    rows.push_back(store.ext(e));
  for (int64_t k = 0; bio && team_.bio && k < EASYML_BIO_NUM_ROWS; ++k)
    rows.push_back(store.bio(k));
  return rows;
}

bool StepCopy::take() {
  double t0 = monotonicSeconds();
  double bytes = 0;
  unsigned bio = team_.bio ? kBioRows : 0u;
  std::string err;
  for (int i : team_.active()) {
    Device &device = team_.device(i);
    if (device.sharesHostStore())
      continue;
    // Accumulators are always newest on the device.
    unsigned rows = (device.hostStale ? kStateRows : 0u) |
                    (device.externalsOnDevice ? kExternalRows : 0u) | bio;
    double before = device.bytesToHost;
    if (rows && !device.download(device.range(), rows, err)) {
      device.drain();
      return team_.fail(device,
                        "taking the host copy of the step's start: " + err);
    }
    bytes += device.bytesToHost - before;
    device.hostStale = device.externalsOnDevice = false;
    team_.hostCopy[i] = 1;
  }
  int64_t n = team_.store().cells();
  std::vector<double *> rows = hostRows(true, true);
  rows_.resize(rows.size() * n);
  for (size_t k = 0; k < rows.size(); ++k)
    std::copy(rows[k], rows[k] + n, rows_.begin() + k * n);
  step_ = team_.step;
  RunReport &report = team_.report();
  report.hostCopySeconds += monotonicSeconds() - t0;
  report.hostCopyBytes += bytes;
  return true;
}

void StepCopy::takeAccumulators() {
  if (!holds(team_.step))
    return;
  int64_t n = team_.store().cells();
  size_t first = hostRows(true, false).size();
  std::vector<double *> bio = hostRows(false, true);
  for (size_t k = 0; k < bio.size(); ++k)
    std::copy(bio[k], bio[k] + n, rows_.begin() + (first + k) * n);
}

void StepCopy::restore() {
  int64_t n = team_.store().cells();
  std::vector<double *> rows = hostRows(true, true);
  for (size_t k = 0; k < rows.size(); ++k)
    std::copy(rows_.begin() + k * n, rows_.begin() + (k + 1) * n, rows[k]);
  team_.step = step_;
}
