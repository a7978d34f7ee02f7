//===- Recovery.cpp - going on without a lost device ----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/Recovery.h"
#include "easyml/Runtime/Schedule/Partitioner.h"
#include "easyml/Runtime/Support/Clock.h"

#include <algorithm>

using namespace easyml::rt;

namespace {
/// The host rows a host copy writes (states, biomarker accumulators) over
/// `r`: saved before a copy, put back when it fails.
struct HostRows {
  std::vector<double *> rows;

  HostRows(std::vector<double *> r) : rows(std::move(r)) {}
  void save(CellRange r, std::vector<double> &saved) const {
    saved.resize(rows.size() * r.size());
    for (size_t k = 0; k < rows.size(); ++k)
      std::copy(rows[k] + r.begin, rows[k] + r.end,
                saved.begin() + k * r.size());
  }
  void restore(CellRange r, const std::vector<double> &saved) const {
    for (size_t k = 0; k < rows.size(); ++k)
      std::copy(saved.begin() + k * r.size(),
                saved.begin() + (k + 1) * r.size(), rows[k] + r.begin);
  }
};

/// The states and biomarker accumulators: what a host copy writes.
HostRows copiedRows(CellStore &store, bool bio) {
  std::vector<double *> rows;
  for (int64_t v = 0; v < store.svRows(); ++v)
    rows.push_back(store.sv(v));
  for (int64_t k = 0; bio && k < EASYML_BIO_NUM_ROWS; ++k)
    rows.push_back(store.bio(k));
  return HostRows(rows);
}

HostRows externalRows(CellStore &store, int64_t n) {
  return HostRows(std::vector<double *>(store.extTable(), store.extTable() + n));
}
} // namespace

RecoveryPolicy::RecoveryPolicy(DeviceTeam &team, Partitioner &partitioner,
                               bool enabled)
    : team_(team), partitioner_(partitioner), enabled_(enabled),
      stepCopy_(team) {}

bool RecoveryPolicy::armed() const {
  // Waves that keep the externals on the GPUs leave no host copy of a
  // wave's start: only step copies go with them.
  if (!enabled_ || (team_.keepExternals && !stepCopies_))
    return false;
  int usable = 0;
  bool gpu = false;
  for (int i = 0; i < team_.size(); ++i)
    if (!team_.lost[i] && !team_.ranges[i].empty()) {
      ++usable;
      gpu = gpu || team_.device(i).isGpu();
    }
  // A step starts again on every device in play, with cells or not.
  if (stepCopies_)
    return gpu && partitioner_.working().size() > 1;
  return usable > 1 && gpu;
}

void RecoveryPolicy::saveWaveStartExternals() {
  if (!waveCopies())
    return;
  HostRows ext = externalRows(team_.store(), team_.desc().num_externals);
  extCopy_.resize(team_.size());
  extCopyRange_.assign(team_.size(), CellRange{});
  for (int i : team_.active()) {
    Device &device = team_.device(i);
    // Only where the host holds the device's cells as of the wave's start
    // (a host copy is current): a copy failing after the wave goes back to
    // that, and nothing else.
    if (device.sharesHostStore() || !team_.hostCopy[i])
      continue;
    ext.save(device.range(), extCopy_[i]);
    extCopyRange_[i] = device.range();
  }
}

bool RecoveryPolicy::keepHostCopies(std::vector<int> &copyLost,
                                    std::vector<std::string> &copyErrs) {
  if (!waveCopies())
    return true;
  double t0 = monotonicSeconds();
  double bytes = 0;
  unsigned rows = kStateRows | (team_.bio ? kBioRows : 0u);
  HostRows host = copiedRows(team_.store(), team_.bio);
  HostRows ext = externalRows(team_.store(), team_.desc().num_externals);
  copyErrs.resize(team_.size());
  extCopyRange_.resize(team_.size());
  std::vector<double> saved;
  for (int i : team_.active()) {
    Device &device = team_.device(i);
    if (device.sharesHostStore() || team_.hostCopy[i])
      continue;
    // The copy of the wave's start stays whole until this one is.
    CellRange r = device.range();
    host.save(r, saved);
    double before = device.bytesToHost;
    if (!device.download(r, rows, copyErrs[i])) {
      copyErrs[i] = "taking the host copy after the wave: " + copyErrs[i];
      device.drain();
      host.restore(r, saved);
      // The wave's externals came back before: the start's go back too.
      if (extCopyRange_[i].begin != r.begin || extCopyRange_[i].end != r.end)
        return team_.fail(device, copyErrs[i]);
      ext.restore(r, extCopy_[i]);
      copyLost.push_back(i);
      continue;
    }
    bytes += device.bytesToHost - before;
    device.hostStale = false;
    team_.hostCopy[i] = 1;
  }
  team_.report().hostCopySeconds += monotonicSeconds() - t0;
  team_.report().hostCopyBytes += bytes;
  return true;
}

bool RecoveryPolicy::keepHostCopies(const WaveTask &task) {
  std::vector<int> lost;
  std::vector<std::string> errs;
  if (!keepHostCopies(lost, errs))
    return false;
  if (lost.empty())
    return true;
  // A copy failed after a recovered wave: the host holds the wave's start
  // of the device's cells, as for a device that failed the wave itself
  // (its counters of the wave counted twice: warnings only).
  for (int i : lost)
    team_.hostCopy[i] = 1;
  std::vector<WaveTiming> none(team_.size());
  return recoverWave(task, lost, errs, none, /*survivorsCounted=*/true) &&
         keepHostCopies(task) && team_.usable();
}

bool RecoveryPolicy::rescue(Device &x, CellRange cells, const WaveTask &task,
                            WaveTiming &timing, std::string &error) {
  // The rescuer's own cells (done with this wave) wait on the host.
  CellRange own = x.range();
  unsigned bio = team_.bio ? kBioRows : 0u;
  unsigned all = kStateRows | kExternalRows | kParamRows | bio;
  if (!x.sharesHostStore() &&
      !x.download(own, kStateRows | kExternalRows | bio, error))
    return false;
  // The lost cells from the host copy of the wave's start, one wave, back.
  if (!x.own(cells, error) || !x.upload(cells, all, error) ||
      !x.launch(task, error) || !x.wait(timing, error))
    return false;
  if (!x.sharesHostStore() &&
      !x.download(cells, kStateRows | kExternalRows | bio, error))
    return false;
  // The rescuer takes its own cells back.
  if (!x.own(own, error) || !x.upload(own, all, error))
    return false;
  x.hostStale = false;
  x.externalsOnDevice = false;
  return true;
}

std::string RecoveryPolicy::inPlay() const {
  std::string ids;
  for (int i : partitioner_.working())
    ids += (ids.empty() ? "" : "+") + team_.device(i).id();
  return ids;
}

void RecoveryPolicy::drop(int f) {
  Device &lost = team_.device(f);
  team_.lost[f] = 1;
  lost.hostStale = lost.externalsOnDevice = lost.deviceStale = false;
  std::string ignored;
  lost.own({}, ignored);
  team_.ranges[f] = {};
  team_.speeds[f] = 0;
}

bool RecoveryPolicy::recoverWave(const WaveTask &task,
                                 const std::vector<int> &lostNow,
                                 const std::vector<std::string> &errs,
                                 std::vector<WaveTiming> &timing,
                                 bool survivorsCounted) {
  // Without a host copy of the lost cells there is nothing to go on from.
  bool can = waveCopies() && task.entry == Entry::Compute;
  for (int i : lostNow)
    can = can && team_.hostCopy[i];
  if (!can)
    return team_.fail(team_.device(lostNow[0]), errs[lostNow[0]]);
  double t0 = monotonicSeconds();
  std::vector<int> survivors;
  for (int i : team_.active())
    if (std::find(lostNow.begin(), lostNow.end(), i) == lostNow.end())
      survivors.push_back(i);
  if (survivors.empty())
    return team_.fail(team_.device(lostNow[0]), errs[lostNow[0]]);
  // Survivors finished the wave: their counters count, their host copies
  // are old now.
  std::vector<int64_t> &counters = team_.counters;
  for (int i : survivors) {
    Device &device = team_.device(i);
    for (size_t c = 0; !survivorsCounted && c < counters.size(); ++c)
      counters[c] += timing[i].counters[c];
    if (!device.sharesHostStore()) {
      device.hostStale = true;
      team_.hostCopy[i] = 0;
    }
  }
  // The CPU pool rescues when there is one (no copies), else the first.
  int x = survivors[0];
  for (int i : survivors)
    if (team_.device(i).runsOnHost()) {
      x = i;
      break;
    }
  // A wave brings its externals to the host as it ends: a device that
  // failed there may have half-overwritten its cells' (and a copy queued
  // before the failure may land later). Its queue drained, the wave's
  // start goes back.
  HostRows ext = externalRows(team_.store(), team_.desc().num_externals);
  for (int f : lostNow) {
    team_.device(f).drain();
    if (f < static_cast<int>(extCopyRange_.size()) &&
        extCopyRange_[f].begin == team_.ranges[f].begin &&
        extCopyRange_[f].end == team_.ranges[f].end)
      ext.restore(team_.ranges[f], extCopy_[f]);
  }
  // From here the host mixes the wave's start and end: no later copy
  // failure of this wave goes back to it.
  extCopyRange_.assign(extCopyRange_.size(), CellRange{});
  RunReport &report = team_.report();
  for (int f : lostNow) {
    Device &lost = team_.device(f);
    RecoveryRecord rec;
    rec.device = lost.id();
    rec.error = errs[f];
    rec.step = task.step0;
    rec.steps = task.nsteps;
    rec.cells = team_.ranges[f].size();
    rec.rescuer = team_.device(x).id();
    WaveTiming t;
    std::string err;
    if (!rescue(team_.device(x), team_.ranges[f], task, t, err))
      return team_.fail(team_.device(x), "recomputing " + lost.id() +
                                             "'s cells after it failed (" +
                                             errs[f] + "): " + err);
    for (size_t c = 0; c < counters.size(); ++c)
      counters[c] += t.counters[c];
    report.recoveries.push_back(rec);
    drop(f);
  }
  // The survivors share every cell by their speeds.
  std::vector<CellRange> next(team_.size());
  std::vector<CellRange> split = team_.splitFor(survivors);
  for (size_t k = 0; k < survivors.size(); ++k)
    next[survivors[k]] = split[k];
  if (!partitioner_.moveTo(next, team_.device(lostNow[0]).id() + " lost", 0,
                           task.step0 + task.nsteps))
    return false;
  for (int f : lostNow)
    partitioner_.forget(f);
  partitioner_.restartBalancing();
  for (size_t k = report.recoveries.size() - lostNow.size();
       k < report.recoveries.size(); ++k) {
    report.recoveries[k].seconds = monotonicSeconds() - t0;
    report.recoveries[k].survivors = inPlay();
  }
  return team_.usable();
}

bool RecoveryPolicy::dropBetweenWaves(int i, const std::string &why,
                                      const std::string &error) {
  team_.device(i).drain();
  return dropFromMove(i, team_.ranges, why, error);
}

bool RecoveryPolicy::dropFromMove(int i, const std::vector<CellRange> &next,
                                  const std::string &why,
                                  const std::string &error) {
  Device &lost = team_.device(i);
  // Every device's cells must be on the host as of now (the copies taken
  // after the last wave; a device's own cells never left it).
  bool current = armed() && !lost.runsOnHost();
  for (int j : team_.active())
    current = current &&
              (team_.device(j).sharesHostStore() || team_.hostCopy[j]);
  std::vector<int> others;
  for (int j = 0; j < team_.size(); ++j)
    if (j != i && !team_.lost[j] &&
        (!next[j].empty() || !team_.ranges[j].empty()))
      others.push_back(j);
  if (!current || others.empty())
    return team_.fail(lost, error);
  RecoveryRecord rec;
  rec.device = lost.id();
  rec.error = error;
  rec.step = partitioner_.moveStep();
  rec.cells = 0; // nothing to recompute: the host holds its cells
  rec.rescuer = "host copy";
  drop(i);
  partitioner_.forget(i);
  rec.survivors = inPlay();
  team_.report().recoveries.push_back(rec);
  std::vector<CellRange> again(team_.size());
  std::vector<CellRange> split = team_.splitFor(others);
  for (size_t k = 0; k < others.size(); ++k)
    again[others[k]] = split[k];
  if (!partitioner_.moveTo(again, why + "; " + lost.id() + " lost: " + error,
                           0))
    return false;
  // Some devices took their cells of `next` before the failure: every
  // device gets its whole range again from the host, which holds them all.
  std::string err;
  unsigned rows =
      kStateRows | kExternalRows | kParamRows | (team_.bio ? kBioRows : 0u);
  for (int j : others) {
    Device &d = team_.device(j);
    if (!d.sharesHostStore() && !d.range().empty() &&
        !d.upload(d.range(), rows, err))
      return team_.fail(d, err);
  }
  partitioner_.restartBalancing();
  return team_.usable();
}
