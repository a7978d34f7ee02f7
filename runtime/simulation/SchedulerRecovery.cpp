//===- Recovery.cpp - going on without a lost device ----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A GPU can fail mid-run (a lost device, an ECC error, a launch that does
// not come back). While more than one device runs and a GPU is among them,
// the scheduler keeps a host copy of every GPU's cells after each wave.
// When a device fails a wave, the others finish theirs; a survivor (the
// CPU pool when there is one) then recomputes the lost device's cells for
// that wave from the host copy of its start, recording their samples as
// the lost device would have; the lost device is dropped and the cells are
// split over the others. Each cell is computed by the same steps from the
// same state, so with the same variant everywhere the results are
// bit-identical to a run without the failure.
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include <algorithm>
#include <chrono>

using namespace easyml::rt;

namespace {
double seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
} // namespace

bool Scheduler::recovering() const {
  if (!options_.recover || keepExternals)
    return false;
  int usable = 0;
  bool gpu = false;
  for (size_t i = 0; i < set_.devices.size(); ++i)
    if (!lost_[i] && !ranges_[i].empty()) {
      ++usable;
      gpu = gpu || !set_.devices[i]->runsOnHost();
    }
  return usable > 1 && gpu;
}

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

void Scheduler::saveWaveStartExternals() {
  if (!recovering())
    return;
  HostRows ext = externalRows(*store_, desc_.num_externals);
  extCopy_.resize(set_.devices.size());
  extCopyRange_.assign(set_.devices.size(), CellRange{});
  for (int i : active()) {
    Device &device = *set_.devices[i];
    // Only where the host holds the device's cells as of the wave's start
    // (a host copy is current): a copy failing after the wave goes back to
    // that, and nothing else.
    if (device.sharesHostStore() || !hostCopy_[i])
      continue;
    ext.save(device.range(), extCopy_[i]);
    extCopyRange_[i] = device.range();
  }
}

bool Scheduler::keepHostCopies(const WaveTask &task, std::vector<int> &copyLost,
                               std::vector<std::string> &copyErrs) {
  if (!recovering())
    return true;
  double t0 = seconds();
  double bytes = 0;
  unsigned rows = kStateRows | (bio.on ? kBioRows : 0u);
  HostRows host = copiedRows(*store_, bio.on);
  HostRows ext = externalRows(*store_, desc_.num_externals);
  copyErrs.resize(set_.devices.size());
  extCopyRange_.resize(set_.devices.size());
  std::vector<double> saved;
  for (int i : active()) {
    Device &device = *set_.devices[i];
    if (device.sharesHostStore() || hostCopy_[i])
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
        return fail(device, copyErrs[i]);
      ext.restore(r, extCopy_[i]);
      copyLost.push_back(i);
      continue;
    }
    bytes += device.bytesToHost - before;
    device.hostStale = false;
    hostCopy_[i] = 1;
  }
  (void)task;
  report.hostCopySeconds += seconds() - t0;
  report.hostCopyBytes += bytes;
  return true;
}

bool Scheduler::keepHostCopies(const WaveTask &task) {
  std::vector<int> lost;
  std::vector<std::string> errs;
  if (!keepHostCopies(task, lost, errs))
    return false;
  if (lost.empty())
    return true;
  // A copy failed after a recovered wave: the host holds the wave's start
  // of the device's cells, as for a device that failed the wave itself
  // (its counters of the wave counted twice: warnings only).
  for (int i : lost)
    hostCopy_[i] = 1;
  std::vector<WaveTiming> none(set_.devices.size());
  return recoverWave(task, lost, errs, none, /*survivorsCounted=*/true) &&
         keepHostCopies(task) && usable();
}

bool Scheduler::rescue(Device &x, CellRange cells, const WaveTask &task,
                       WaveTiming &timing, std::string &error) {
  // The rescuer's own cells (done with this wave) wait on the host.
  CellRange own = x.range();
  unsigned all =
      kStateRows | kExternalRows | kParamRows | (bio.on ? kBioRows : 0u);
  if (!x.sharesHostStore() &&
      !x.download(own, kStateRows | kExternalRows | (bio.on ? kBioRows : 0u),
                  error))
    return false;
  // The lost cells from the host copy of the wave's start, one wave, back.
  if (!x.own(cells, error) || !x.upload(cells, all, error) ||
      !x.launch(task, error) || !x.wait(timing, error))
    return false;
  if (!x.sharesHostStore() &&
      !x.download(cells, kStateRows | kExternalRows | (bio.on ? kBioRows : 0u),
                  error))
    return false;
  // The rescuer takes its own cells back.
  if (!x.own(own, error) || !x.upload(own, all, error))
    return false;
  x.hostStale = false;
  x.externalsOnDevice = false;
  return true;
}

bool Scheduler::recoverWave(const WaveTask &task,
                            const std::vector<int> &lostNow,
                            const std::vector<std::string> &errs,
                            std::vector<WaveTiming> &timing,
                            bool survivorsCounted) {
  // Without a host copy of the lost cells there is nothing to go on from.
  bool can = recovering() && task.entry == Entry::Compute;
  for (int i : lostNow)
    can = can && hostCopy_[i];
  if (!can)
    return fail(*set_.devices[lostNow[0]], errs[lostNow[0]]);
  double t0 = seconds();
  std::vector<int> survivors;
  for (int i : active())
    if (std::find(lostNow.begin(), lostNow.end(), i) == lostNow.end())
      survivors.push_back(i);
  if (survivors.empty())
    return fail(*set_.devices[lostNow[0]], errs[lostNow[0]]);
  // Survivors finished the wave: their counters count, their host copies
  // are old now.
  for (int i : survivors) {
    Device &device = *set_.devices[i];
    for (size_t c = 0; !survivorsCounted && c < counters.size(); ++c)
      counters[c] += timing[i].counters[c];
    if (!device.sharesHostStore()) {
      device.hostStale = true;
      hostCopy_[i] = 0;
    }
  }
  // The CPU pool rescues when there is one (no copies), else the first.
  int x = survivors[0];
  for (int i : survivors)
    if (set_.devices[i]->runsOnHost()) {
      x = i;
      break;
    }
  // A wave brings its externals to the host as it ends: a device that
  // failed there may have half-overwritten its cells' (and a copy queued
  // before the failure may land later). Its queue drained, the wave's
  // start goes back.
  HostRows ext = externalRows(*store_, desc_.num_externals);
  for (int f : lostNow) {
    set_.devices[f]->drain();
    if (f < static_cast<int>(extCopyRange_.size()) &&
        extCopyRange_[f].begin == ranges_[f].begin &&
        extCopyRange_[f].end == ranges_[f].end)
      ext.restore(ranges_[f], extCopy_[f]);
  }
  // From here the host mixes the wave's start and end: no later copy
  // failure of this wave goes back to it.
  extCopyRange_.assign(extCopyRange_.size(), CellRange{});
  for (int f : lostNow) {
    Device &lost = *set_.devices[f];
    RecoveryRecord rec;
    rec.device = lost.id();
    rec.error = errs[f];
    rec.step = task.step0;
    rec.steps = task.nsteps;
    rec.cells = ranges_[f].size();
    rec.rescuer = set_.devices[x]->id();
    WaveTiming t;
    std::string err;
    if (!rescue(*set_.devices[x], ranges_[f], task, t, err))
      return fail(*set_.devices[x], "recomputing " + lost.id() +
                                        "'s cells after it failed (" + errs[f] +
                                        "): " + err);
    for (size_t c = 0; c < counters.size(); ++c)
      counters[c] += t.counters[c];
    report.recoveries.push_back(rec);
    // Dropped for good: it holds nothing and is never called again.
    lost_[f] = 1;
    lost.hostStale = lost.externalsOnDevice = lost.deviceStale = false;
    std::string ignored;
    lost.own({}, ignored);
    ranges_[f] = {};
    speeds_[f] = 0;
  }
  // The survivors share every cell by their speeds.
  std::vector<CellRange> next(set_.devices.size());
  std::vector<CellRange> split = splitFor(survivors);
  for (size_t k = 0; k < survivors.size(); ++k)
    next[survivors[k]] = split[k];
  migrateStep_ = task.step0 + task.nsteps;
  bool ok = migrate(next, set_.devices[lostNow[0]]->id() + " lost", 0);
  migrateStep_ = -1;
  if (!ok)
    return false;
  balanced_.erase(std::remove_if(balanced_.begin(), balanced_.end(),
                                 [&](int i) { return lost_[i] != 0; }),
                  balanced_.end());
  resetBalancer(options_.balance);
  for (size_t k = report.recoveries.size() - lostNow.size();
       k < report.recoveries.size(); ++k)
    report.recoveries[k].seconds = seconds() - t0;
  return usable();
}

bool Scheduler::dropBetweenWaves(int i, const std::string &why,
                                 const std::string &error) {
  set_.devices[i]->drain();
  return dropFromMigration(i, ranges_, why, error);
}

bool Scheduler::dropFromMigration(int i, const std::vector<CellRange> &next,
                                  const std::string &why,
                                  const std::string &error) {
  Device &lost = *set_.devices[i];
  // Every device's cells must be on the host as of now (the copies taken
  // after the last wave; a device's own cells never left it).
  bool current = recovering() && !lost.runsOnHost();
  for (int j : active())
    current = current && (set_.devices[j]->sharesHostStore() || hostCopy_[j]);
  std::vector<int> others;
  for (size_t j = 0; j < set_.devices.size(); ++j)
    if (static_cast<int>(j) != i && !lost_[j] &&
        (!next[j].empty() || !ranges_[j].empty()))
      others.push_back(static_cast<int>(j));
  if (!current || others.empty())
    return fail(lost, error);
  RecoveryRecord rec;
  rec.device = lost.id();
  rec.error = error;
  rec.step = migrateStep_ >= 0 ? migrateStep_ : step_;
  rec.cells = 0; // nothing to recompute: the host holds its cells
  rec.rescuer = "host copy";
  report.recoveries.push_back(rec);
  lost_[i] = 1;
  lost.hostStale = lost.externalsOnDevice = lost.deviceStale = false;
  std::string ignored;
  lost.own({}, ignored);
  ranges_[i] = {};
  speeds_[i] = 0;
  balanced_.erase(std::remove(balanced_.begin(), balanced_.end(), i),
                  balanced_.end());
  std::vector<CellRange> again(set_.devices.size());
  std::vector<CellRange> split = splitFor(others);
  for (size_t k = 0; k < others.size(); ++k)
    again[others[k]] = split[k];
  if (!migrate(again, why + "; " + lost.id() + " lost: " + error, 0))
    return false;
  // Some devices took their cells of `next` before the failure: every
  // device gets its whole range again from the host, which holds them all.
  std::string err;
  unsigned rows =
      kStateRows | kExternalRows | kParamRows | (bio.on ? kBioRows : 0u);
  for (int j : others) {
    Device &d = *set_.devices[j];
    if (!d.sharesHostStore() && !d.range().empty() &&
        !d.upload(d.range(), rows, err))
      return fail(d, err);
  }
  resetBalancer(options_.balance);
  return usable();
}
