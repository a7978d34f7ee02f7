//===- Scheduler.cpp - waves over a set of devices ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"
#include "easyml/Runtime/Devices/HostWorker.h"

#include "easyml/Runtime/Schedule/PhaseSpeeds.h"

#include "easyml/Runtime/Devices/GpuDriver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <thread>

using namespace easyml::rt;

namespace {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// `a` minus `b`: up to two ranges.
std::vector<CellRange> minus(CellRange a, CellRange b) {
  std::vector<CellRange> out;
  if (a.empty())
    return out;
  CellRange x = a.intersect(b);
  if (x.empty()) {
    out.push_back(a);
    return out;
  }
  if (a.begin < x.begin)
    out.push_back({a.begin, x.begin});
  if (x.end < a.end)
    out.push_back({x.end, a.end});
  return out;
}

} // namespace

//===----------------------------------------------------------------------===//
// Scheduler
//===----------------------------------------------------------------------===//

Scheduler::Scheduler(const ModelHandle &model, int64_t cells,
                     const SimulationOptions &options)
    : desc_(model.desc()), options_(options), params_(model.desc()) {
  const easyml_model_desc &d = desc_;
  counters.assign(d.num_counters, 0);
  store_ = std::make_unique<CellStore>(d, cells);
  if (!selectDevices(model, options, set_, setupError_))
    return;
  ranges_.assign(set_.devices.size(), {});
  speeds_.assign(set_.devices.size(), 0.0);
  lost_.assign(set_.devices.size(), 0);
  hostCopy_.assign(set_.devices.size(), 0);
  for (auto &device : set_.devices) {
    std::string err;
    if (!device->bind(*store_, err)) {
      setupError_ = device->description() + ": " + err;
      return;
    }
  }
  report.model = d.name;
  report.cells = cells;
  report.threshold = options.balance.threshold;
  for (auto &device : set_.devices)
    report.devices.push_back({device->id(), device->description()});
  BalanceOptions balance = options.balance;
  // Ranges start on a multiple of every device's alignment (powers of
  // two: the largest), not of kCellAlignment: two CPU pools split at
  // vector widths, so a slow one's small share is not coarsely quantised.
  // Two host devices sharing waves meet on any cell (SharedWave.cpp).
  align_ = 1;
  for (auto &device : set_.devices)
    align_ = std::max(align_, device->alignment());
  balancer_ = std::make_unique<Balancer>(cells, align_, balance);
  countHotCells();
  report.alignment = align_;
  std::vector<int> initial = set_.initial;
  if (set_.automatic) {
    dimensioner_ = std::make_unique<Dimensioner>(
        static_cast<int>(set_.gpus.size()), set_.cpu >= 0, options.dimension);
    report.dimensioning.enabled = true;
    report.dimensioning.maxWindows = dimensioner_->maxWindows();
    DeviceConfig c = dimensioner_->next();
    initial.clear();
    if (c.cpu)
      initial.push_back(set_.cpu);
    for (int g = 0; g < c.gpus; ++g)
      initial.push_back(set_.gpus[g]);
    if (dimensioner_->done()) {
      report.dimensioning.complete = true;
      report.dimensioning.chosen = c.str();
      report.dimensioning.reason = dimensioner_->reason();
    }
  }
  // Initial shares: given, else from remembered speeds, else even until
  // measured.
  for (size_t i = 0; i < set_.devices.size(); ++i) {
    auto it = options.speeds.find(set_.devices[i]->id());
    if (it != options.speeds.end() && it->second > 0)
      speeds_[i] = it->second;
  }
  std::vector<CellRange> r;
  if (options.shares.size() == initial.size()) {
    r = splitCells(cells, options.shares, align_);
  } else if (!options.shares.empty()) {
    setupError_ = std::to_string(options.shares.size()) + " shares given for " +
                  std::to_string(initial.size()) + " devices";
    return;
  } else {
    r = splitFor(initial);
  }
  for (size_t i = 0; i < initial.size(); ++i)
    ranges_[initial[i]] = r[i];
  balanced_ = initial;
  balancer_->reset(r);
  // The first split is a guess unless speeds or shares were given: waves
  // start at one step (the balancer accumulates them into a window), so a
  // slow device given half the cells holds the others up for little.
  bool known = !options.shares.empty();
  for (int i : initial)
    known = known || speeds_[i] > 0;
  settleSteps_ = known ? std::max<int64_t>(1, options.probeSteps) : 1;
  for (size_t i = 0; i < set_.devices.size(); ++i) {
    std::string err;
    if (!set_.devices[i]->own(ranges_[i], err)) {
      setupError_ = set_.devices[i]->description() + ": " + err;
      return;
    }
  }
}

Scheduler::~Scheduler() = default;

std::vector<int> Scheduler::active() const {
  std::vector<int> a;
  for (size_t i = 0; i < set_.devices.size(); ++i)
    if (!ranges_[i].empty())
      a.push_back(static_cast<int>(i));
  return a;
}

std::vector<int> Scheduler::working() const {
  std::vector<int> w;
  for (int i : balanced_)
    if (!lost_[i])
      w.push_back(i);
  return w;
}

Device *Scheduler::firstActive() const {
  for (size_t i = 0; i < set_.devices.size(); ++i)
    if (!ranges_[i].empty())
      return set_.devices[i].get();
  return set_.devices.empty() ? nullptr : set_.devices.front().get();
}

void Scheduler::setThreads(int threads) {
  options_.threads = threads;
  // CPU pools without a thread count of their own are re-made with the new
  // one (before any wave).
  for (size_t k = 0; k < set_.cpus.size(); ++k) {
    if (set_.cpuThreadsGiven[k])
      continue;
    int i = set_.cpus[k];
    Device &old = *set_.devices[i];
    auto fresh = makeCpuDevice(desc_, old.variant(), threads, old.id());
    std::string err;
    fresh->bind(*store_, err);
    fresh->own(ranges_[i], err);
    set_.devices[i] = std::move(fresh);
    report.devices[i].description = set_.devices[i]->description();
  }
}

int Scheduler::threads() const { return cpuThreads(options_.threads); }

bool Scheduler::fail(const Device &device, const std::string &what) {
  if (failure_.empty()) {
    failure_ = device.description() + ": " + what;
    failedDevice_ = device.id();
    failedDeviceGpu_ = device.isGpu();
  }
  return false;
}

bool Scheduler::syncStates() {
  if (!usable())
    return false;
  for (size_t i = 0; i < set_.devices.size(); ++i) {
    auto &device = set_.devices[i];
    if (lost_[i])
      continue;
    unsigned newer = (device->hostStale ? kStateRows : 0) |
                     (device->externalsOnDevice ? kExternalRows : 0);
    if (!newer)
      continue;
    std::string err;
    if (!device->download(device->range(), newer, err))
      return fail(*device, err);
    device->hostStale = device->externalsOnDevice = false;
  }
  return true;
}

void Scheduler::addStepSeconds(double seconds) {
  // After the window's first wave (which settles the split) the step is
  // that wave's; after a later one, measured; before any (a window opened
  // after the wave), the last window's.
  if (!window_.open || window_.waves == 0)
    return;
  (window_.waves == 1 ? window_.firstSeconds : window_.seconds) += seconds;
}

bool Scheduler::syncExternals() {
  if (!usable())
    return false;
  std::string err;
  for (size_t i = 0; i < set_.devices.size(); ++i) {
    Device &device = *set_.devices[i];
    if (lost_[i] || !device.externalsOnDevice)
      continue;
    if (!device.download(device.range(), kExternalRows, err))
      return fail(device, err);
    device.externalsOnDevice = false;
  }
  return true;
}

bool Scheduler::releaseActivation(bool keep) {
  if (!usable())
    return false;
  std::string err;
  for (size_t i = 0; i < set_.devices.size(); ++i)
    if (!lost_[i] && !set_.devices[i]->releaseActivation(keep, err))
      return fail(*set_.devices[i], err);
  return true;
}

void Scheduler::dropActivation() {
  for (auto &device : set_.devices)
    device->dropActivation();
}

void Scheduler::statesWritten() {
  for (auto &device : set_.devices)
    if (!device->sharesHostStore())
      device->deviceStale = true;
}

void Scheduler::paramValuesWritten() { paramValuesStale_ = true; }

void Scheduler::paramsChanged() {
  userRows_.resize(params_.size(), false);
  if (updateDerivedRows(params_, *store_, userRows_, derivedRows_))
    paramValuesWritten();
}

void Scheduler::buildDerived() {
  const easyml_model_desc &d = desc_;
  derived_.assign(d.num_derived, 0.0);
  if (!d.build_derived || !d.num_derived)
    return;
  easyml_kernel_args a{};
  a.dt = dt_;
  a.params = params_.values().data();
  a.out = derived_.data();
  d.build_derived(&a);
}

bool Scheduler::initialize(double dt) {
  if (!usable())
    return false;
  dt_ = dt;
  const easyml_model_desc &d = desc_;
  double t0 = now();
  tables_.assign(std::max<int64_t>(1, d.table_size), 0.0);
  tableWarnings.clear();
  if (d.build_tables && d.table_size) {
    easyml_kernel_args a{};
    a.dt = dt;
    a.params = params_.values().data();
    a.tables = tables_.data();
    d.build_tables(&a);
    // openCARP's check_LUT: report NaN entries with the grid value.
    for (int64_t t = 0; t < d.num_tables; ++t) {
      const easyml_table_desc &tab = d.tables[t];
      for (int64_t c = 0; c < tab.num_columns; ++c) {
        int64_t count = 0, first = -1;
        for (int64_t r = 0; r < tab.num_rows; ++r)
          if (std::isnan(tables_[tab.offset + r * tab.num_columns + c])) {
            if (first < 0)
              first = r;
            ++count;
          }
        if (count) {
          char buf[512];
          std::snprintf(buf, sizeof buf,
                        "lookup table %s: column %s is NaN at %s = %.10g "
                        "(row %lld; %lld NaN rows)",
                        tab.variable, tab.column_names[c], tab.variable,
                        tab.lo + first * tab.step,
                        static_cast<long long>(first),
                        static_cast<long long>(count));
          tableWarnings.push_back(buf);
        }
      }
    }
  }
  buildDerived();
  tablesSeconds += now() - t0;
  t0 = now();
  for (auto &device : set_.devices) {
    std::string err;
    if (!device->setUniforms(params_.values(), derived_, tables_, err))
      return fail(*device, err);
    if (!device->range().empty() &&
        !device->upload(device->range(), kParamRows, err))
      return fail(*device, err);
  }
  uploadedParams_ = params_.values();
  paramValuesStale_ = false;
  WaveTask task;
  task.dt = dt;
  task.entry = Entry::Init;
  bool ok = runWave(task);
  task.entry = Entry::Eval;
  ok = ok && runWave(task);
  initSeconds += now() - t0;
  step_ = 0;
  initialized_ = ok;
  bad_.reset();
  return ok;
}

/// GPUs' sub-steps queued first, the host's devices while they run, then
/// every device's result in place.
bool Scheduler::sendHalos(const DiffusionTask &task, bool always) {
  if (!usable() || bad_)
    return false;
  std::vector<int> act = active();
  std::string err;
  // A device's Vm is read where it lives: states the host wrote since
  // (cells that came from another rank) go there first.
  if (!refreshDevices(act))
    return false;
  double t0 = now();
  // One device has no neighbour to send a halo to, but another rank's.
  for (int i : act)
    if ((always || act.size() > 1) && !set_.devices[i]->runsOnHost() &&
        !set_.devices[i]->sendHalo(task, err))
      return fail(*set_.devices[i], err);
  haloSeconds += now() - t0;
  return true;
}

bool Scheduler::diffuse(const DiffusionTask &task) {
  if (!usable() || bad_)
    return false;
  std::vector<int> act = active();
  if (!refreshDevices(act))
    return false;
  std::string err;
  for (bool host : {false, true})
    for (int i : act)
      if (set_.devices[i]->runsOnHost() == host &&
          !set_.devices[i]->diffuse(task, err))
        return fail(*set_.devices[i], err);
  for (bool host : {false, true})
    for (int i : act)
      if (set_.devices[i]->runsOnHost() == host &&
          !set_.devices[i]->finishDiffusion(task, err))
        return fail(*set_.devices[i], err);
  return true;
}

bool Scheduler::canFuse() const {
  std::vector<int> act = active();
  return act.size() == 1 && set_.devices[act[0]]->fusesDiffusion() &&
         (!dimensioner_ || dimensioner_->done()) && !window_.open;
}

bool Scheduler::refreshDevices(const std::vector<int> &act) {
  std::string err;
  for (int i : act) {
    Device &device = *set_.devices[i];
    if (device.deviceStale) {
      // Externals too where the waves keep them on the device (they do
      // not upload the host's): the host wrote those as well.
      unsigned rows = kStateRows | (device.externalsOnDevice || keepExternals
                                        ? kExternalRows
                                        : 0);
      device.externalsOnDevice = false;
      if (!device.upload(device.range(), rows, err))
        return fail(device, err);
      device.deviceStale = false;
    }
    if (paramValuesStale_ && !device.upload(device.range(), kParamRows, err))
      return fail(device, err);
  }
  paramValuesStale_ = false;
  return true;
}

bool Scheduler::runWave(const WaveTask &task) {
  if (!usable() || bad_)
    return false;
  std::vector<int> act = active();
  std::string err;
  // Parameters changed on the host since the last wave.
  if (params_.values() != uploadedParams_) {
    buildDerived();
    for (size_t i = 0; i < set_.devices.size(); ++i)
      if (!lost_[i] && !set_.devices[i]->setUniforms(params_.values(), derived_,
                                                     tables_, err))
        return fail(*set_.devices[i], err);
    uploadedParams_ = params_.values();
  }
  if (!refreshDevices(act))
    return false;
  if (task.entry == Entry::Compute)
    saveWaveStartExternals();
  double t0 = now();
  std::vector<std::string> errs(set_.devices.size());
  std::vector<char> failed(set_.devices.size(), 0), launched = failed;
  // A device that cannot launch is lost like one whose wave fails: the
  // others run theirs.
  for (int i : act) {
    launched[i] = set_.devices[i]->launch(task, errs[i]);
    failed[i] = !launched[i];
    // Its host copy stays what it was until the wave is over.
  }
  std::vector<WaveTiming> timing(set_.devices.size());
  // Two host devices side by side may share the wave (SharedWave.cpp).
  int pairA = -1, pairB = -1;
  waveShared_ = task.entry == Entry::Compute && !task.fused &&
                std::count(launched.begin(), launched.end(), 1) == 2 &&
                sharePair(pairA, pairB);
  if (waveShared_ && !shareWave(task, pairA, pairB, timing, errs, failed))
    return false;
  // The host's own devices (CPU pools) compute now, while the GPUs run
  // what was queued: the last one on this thread, any other on a thread of
  // its own (two CPU devices side by side). Then the GPUs are joined.
  std::vector<int> host;
  for (int i : act)
    if (set_.devices[i]->runsOnHost() && !waveShared_)
      host.push_back(i);
  auto join = [&](int i) {
    if (launched[i])
      failed[i] = !set_.devices[i]->wait(timing[i], errs[i]);
  };
  std::vector<std::thread> threads;
  for (size_t k = 0; k + 1 < host.size(); ++k)
    threads.emplace_back(join, host[k]);
  if (!host.empty())
    join(host.back());
  for (std::thread &t : threads)
    t.join();
  for (int i : act)
    if (!set_.devices[i]->runsOnHost())
      join(i);
  // The shared wave moved the split: the active devices' ranges now.
  if (waveShared_)
    act = active();
  std::vector<int> lostNow;
  for (int i : act)
    if (failed[i])
      lostNow.push_back(i);
  // The wave is complete once the lost devices' cells are recomputed; it
  // is not measured (nor checked for non-finite values: the next is).
  if (!lostNow.empty())
    return recoverWave(task, lostNow, errs, timing) && keepHostCopies(task) &&
           usable();
  double wall = now() - t0;
  for (int i : act) {
    Device &device = *set_.devices[i];
    if (task.entry != Entry::Eval && !device.sharesHostStore()) {
      device.hostStale = true;
      hostCopy_[i] = 0;
    }
  }
  std::vector<int> copyLost;
  std::vector<std::string> copyErrs;
  if (task.entry != Entry::Eval && !keepHostCopies(task, copyLost, copyErrs))
    return false;
  for (int i : act) {
    if (std::count(copyLost.begin(), copyLost.end(), i))
      continue;
    for (size_t c = 0; c < counters.size(); ++c)
      counters[c] += timing[i].counters[c];
    if (set_.devices[i]->isGpu() && task.entry == Entry::Compute)
      gpuKernelMs += timing[i].kernelSeconds * 1e3;
  }
  // A copy failed after the wave: the host holds the device's cells as of
  // the wave's start, as when a device fails the wave itself.
  if (!copyLost.empty()) {
    for (int i : copyLost)
      hostCopy_[i] = 1;
    return recoverWave(task, copyLost, copyErrs, timing,
                       /*survivorsCounted=*/true) &&
           keepHostCopies(task) && usable();
  }
  if (task.entry != Entry::Compute)
    return true;
  computeSeconds += wall;
  report.waveSeconds += wall;
  report.steps += task.nsteps;
  for (int i : act) {
    DeviceReport &r = report.devices[i];
    r.cellSteps += static_cast<double>(ranges_[i].size()) * task.nsteps;
    r.seconds += timing[i].seconds;
    r.kernelSeconds += timing[i].kernelSeconds;
    r.waves += 1;
  }
  if (!checkFinite(task, act, timing))
    return false;
  recordWave(task, wall, timing);
  return usable();
}

bool Scheduler::checkFinite(const WaveTask &task, const std::vector<int> &act,
                            const std::vector<WaveTiming> &timing) {
  // A blow-up: the device that counted it replays its first bad cell.
  for (int i : act) {
    if (timing[i].nonFinite == 0)
      continue;
    Device &device = *set_.devices[i];
    auto where = std::make_unique<NonFinite>();
    std::string err;
    if (!device.diagnose(task, *where, err))
      return fail(device, err);
    // An adaptive integrator forced past its tolerance is the likely cause
    // (easyml-compile's warning counter of each cvode group).
    for (size_t c = 0; c < counters.size(); ++c)
      if (counters[c] > 0 && c < static_cast<size_t>(desc_.num_counters) &&
          std::strstr(desc_.counter_names[c], "accepted above the tolerance"))
        where->cause = "before it, " + std::string(desc_.counter_names[c]);
    bad_ = std::move(where);
    return false;
  }
  return true;
}

void Scheduler::recordWave(const WaveTask &task, double wall,
                           const std::vector<WaveTiming> &timing) {
  // The wave's record and the balancer's view of it.
  WaveRecord w;
  w.step0 = task.step0;
  w.nsteps = task.nsteps;
  w.wallSeconds = wall;
  for (size_t i = 0; i < set_.devices.size(); ++i) {
    w.cells.push_back(ranges_[i].size());
    w.seconds.push_back(timing[i].seconds);
  }
  w.imbalance = imbalance(w.seconds, w.cells);
  ++report.totalWaves;
  bool logged = report.waves.size() < report.maxWaveRecords;
  if (logged)
    report.waves.push_back(w);
  learnPhase(task, timing);
  // A repartition decided now takes effect at the step after the wave.
  migrateStep_ = task.step0 + task.nsteps;
  endWave(task, timing);
  migrateStep_ = -1;
  if (logged && !report.repartitions.empty() &&
      report.repartitions.back().step == task.step0 + task.nsteps)
    report.waves.back().repartition = true;
}

void Scheduler::endWave(const WaveTask &task,
                        const std::vector<WaveTiming> &timing) {
  // Dimensioning windows measure the wave time of the slowest device.
  if (window_.open) {
    double slowest = 0;
    for (int i : active())
      slowest = std::max(slowest, timing[i].seconds);
    // The window's first wave settles the split; the rest are measured
    // (or the first, when it is all there is).
    double cellSteps = static_cast<double>(store_->cells()) * task.nsteps;
    if (window_.waves++ == 0) {
      window_.firstCellSteps = cellSteps;
      window_.firstSeconds = slowest;
    } else {
      window_.cellSteps += cellSteps;
      window_.seconds += slowest;
    }
  }
  if (balanced_.size() < 2)
    return;
  // A shared wave left its devices balanced (and measured): nothing for
  // the balancer to split.
  if (waveShared_) {
    settling_ = false;
    return;
  }
  // The phase's speeds split this wave: the split that follows the last
  // windows would only chase them.
  if (phasePredicted_) {
    settling_ = false;
    return;
  }
  std::vector<double> seconds, cost;
  for (int i : balanced_) {
    seconds.push_back(timing[i].seconds);
    cost.push_back(set_.devices[i]->sharesHostStore()
                       ? 0.0
                       : store_->svRows() * sizeof(double) *
                             moveSecondsPerByte_);
  }
  balancer_->setMoveCost(cost, runUntil_ - (task.step0 + task.nsteps));
  Balancer::Decision decision = balancer_->observe(seconds, task.nsteps);
  if (!std::isnan(decision.measuredGain))
    for (auto r = report.repartitions.rbegin(); r != report.repartitions.rend();
         ++r)
      if (r->balancer) {
        if (std::isnan(r->measuredGain))
          r->measuredGain = decision.measuredGain;
        break;
      }
  report.movesRefused += decision.tooCostly;
  if (decision.judged)
    for (size_t k = 0; k < balanced_.size(); ++k)
      if (decision.speeds[k] > 0)
        speeds_[balanced_[k]] = decision.speeds[k];
  // Until a judged window comes out below the threshold, waves stay short
  // so a split still being found costs little: a window not yet long
  // enough to judge is completed by one wave sized from the last one's
  // time per step; after a judgement waves double from probeSteps.
  int64_t cap = kMaxSettleFactor * std::max<int64_t>(1, options_.probeSteps);
  double slowest = *std::max_element(seconds.begin(), seconds.end());
  if (decision.judged) {
    windowSeconds_ = 0;
    if (!decision.repartition &&
        decision.windowImbalance <= balancer_->options().threshold)
      settling_ = false;
    else if (settling_)
      settleSteps_ = std::min(settleSteps_ * 2, cap);
  } else if (settling_) {
    windowSeconds_ += slowest;
    double perStep = slowest / std::max<int64_t>(1, task.nsteps);
    double left = balancer_->options().minWindowSeconds - windowSeconds_;
    int64_t need = perStep > 0
                       ? static_cast<int64_t>(std::ceil(1.2 * left / perStep))
                       : settleSteps_ * 2;
    settleSteps_ = std::clamp<int64_t>(need, 1, cap);
  }
  if (!decision.repartition)
    return;
  settling_ = true;
  settleSteps_ = std::max<int64_t>(1, options_.probeSteps);
  std::vector<CellRange> next(set_.devices.size());
  for (size_t k = 0; k < balanced_.size(); ++k)
    next[balanced_[k]] = decision.ranges[k];
  char why[96];
  double threshold = balancer_->options().threshold;
  if (!decision.forOrder)
    std::snprintf(why, sizeof why, "imbalance %.1f%% > %.1f%%%s",
                  100 * decision.windowImbalance, 100 * threshold,
                  decision.reordered ? ", devices reordered" : "");
  else
    std::snprintf(why, sizeof why,
                  "devices reordered for the hot cells: %.1f%% faster",
                  100 * decision.predictedGain);
  if (migrate(next, why, decision.windowImbalance)) {
    RepartitionRecord &r = report.repartitions.back();
    r.balancer = true;
    r.predictedGain = decision.predictedGain;
    r.gainSeconds = decision.gainSeconds;
    r.moveSeconds = decision.moveSeconds;
    balancer_->adopt(decision.ranges);
  }
}

void Scheduler::resetBalancer(const BalanceOptions &options) {
  *balancer_ = Balancer(store_->cells(), align_, options);
  countHotCells();
  settling_ = true;
  windowSeconds_ = 0;
  settleSteps_ = std::max<int64_t>(1, options_.probeSteps);
  std::vector<CellRange> r;
  for (int i : balanced_)
    r.push_back(ranges_[i]);
  balancer_->reset(r);
}

void Scheduler::countHotCells() {
  double threshold = balancer_->options().hotVm;
  if (std::isnan(threshold) || desc_.vm_index < 0)
    return;
  // Every cell's Vm is on the host at a judgement (tissue). At most
  // kHotBlocks blocks (of a multiple of the alignment: on a large grid a
  // split a few thousandths finer would not pay), each counted from at
  // most 16 of its cells: a judgement reads at most 64 Ki values.
  balancer_->setHotCells([this, threshold](HotBlocks &hot) {
    constexpr int64_t kHotBlocks = 4096, kSamples = 16;
    // Steps that leave Vm on the devices (DeviceActivation) bring it here
    // only when something reads it.
    syncExternals();
    const double *vm = store_->ext(desc_.vm_index);
    hot.cells = store_->cells();
    int64_t units = (hot.cells + align_ - 1) / align_;
    hot.align = align_ * ((units + kHotBlocks - 1) / kHotBlocks);
    int64_t blocks = (hot.cells + hot.align - 1) / hot.align;
    int64_t stride = std::max<int64_t>(1, hot.align / kSamples);
    hot.prefix.assign(blocks + 1, 0);
    for (int64_t k = 0; k < blocks; ++k) {
      int64_t begin = k * hot.align,
              end = std::min(hot.cells, begin + hot.align);
      int64_t seen = 0, above = 0;
      for (int64_t c = begin; c < end; c += stride, ++seen)
        above += vm[c] >= threshold;
      hot.prefix[k + 1] =
          hot.prefix[k] +
          (seen ? (above * (end - begin) + seen / 2) / seen : 0);
    }
  });
}

std::map<std::string, double> Scheduler::speeds() const {
  std::map<std::string, double> m;
  for (size_t i = 0; i < set_.devices.size(); ++i)
    if (speeds_[i] > 0)
      m[set_.devices[i]->id()] = speeds_[i];
  return m;
}

void Scheduler::updateReport() {
  for (size_t i = 0; i < set_.devices.size(); ++i) {
    DeviceReport &r = report.devices[i];
    r.cells = ranges_[i].size();
    r.bytesToDevice = set_.devices[i]->bytesToDevice;
    r.bytesToHost = set_.devices[i]->bytesToHost;
  }
  report.dt = dt_;
}

bool Scheduler::migrate(const std::vector<CellRange> &next,
                        const std::string &why, double imbalance) {
  double t0 = now();
  double before = 0;
  for (auto &device : set_.devices)
    before += device->bytesToDevice + device->bytesToHost;
  std::string err;
  // Cells leaving a device come to the host first (if it holds them newer).
  for (size_t i = 0; i < set_.devices.size(); ++i) {
    Device &device = *set_.devices[i];
    if (lost_[i])
      continue;
    // Biomarker accumulators are newest on the device after any wave.
    if (bio.on && !device.sharesHostStore())
      for (CellRange r : minus(ranges_[i], next[i]))
        if (!device.download(r, kBioRows, err))
          return fail(device, err);
    unsigned newer = (device.hostStale ? kStateRows : 0) |
                     (device.externalsOnDevice ? kExternalRows : 0);
    if (!newer)
      continue;
    for (CellRange r : minus(ranges_[i], next[i]))
      if (!device.download(r, newer, err))
        return fail(device, err);
    if (next[i].empty())
      device.hostStale = false;
  }
  for (size_t i = 0; i < set_.devices.size(); ++i) {
    Device &device = *set_.devices[i];
    if (lost_[i])
      continue;
    bool ok = device.own(next[i], err);
    // Externals go too: waves that keep them on the device upload none.
    if (ok && !device.deviceStale)
      for (CellRange r : minus(next[i], ranges_[i]))
        ok = ok &&
             device.upload(r, kStateRows | kExternalRows | kParamRows, err);
    if (!ok)
      return dropFromMigration(static_cast<int>(i), next, why, err);
  }
  if (bio.on)
    for (size_t i = 0; i < set_.devices.size(); ++i)
      for (CellRange r :
           lost_[i] ? std::vector<CellRange>{} : minus(next[i], ranges_[i]))
        if (!set_.devices[i]->upload(r, kBioRows, err))
          return fail(*set_.devices[i], err);
  double after = 0;
  for (auto &device : set_.devices)
    after += device->bytesToDevice + device->bytesToHost;
  RepartitionRecord rec;
  rec.step = migrateStep_ >= 0 ? migrateStep_ : step_;
  rec.imbalance = imbalance;
  rec.from = ranges_;
  rec.to = next;
  rec.speeds = speeds_;
  rec.bytes = after - before;
  rec.reason = why;
  // The fastest move seen: one slowed by another process on a shared
  // machine says little about the next (and would refuse every split).
  if (rec.bytes > 0) {
    double perByte = (now() - t0) / rec.bytes;
    moveSecondsPerByte_ = moveSecondsPerByte_ > 0
                              ? std::min(moveSecondsPerByte_, perByte)
                              : perByte;
  }
  report.repartitions.push_back(rec);
  report.bytesMoved += rec.bytes;
  ranges_ = next;
  return true;
}

std::vector<CellRange> Scheduler::splitFor(const std::vector<int> &act) const {
  // Measured speeds; an unmeasured device is assumed as fast as the mean
  // of the measured ones (an even split when none is).
  double known = 0;
  int n = 0;
  for (int i : act)
    if (speeds_[i] > 0) {
      known += speeds_[i];
      ++n;
    }
  // In the order the slabs have now (a tissue's balancer may have put
  // them in another than the devices'), devices without cells after.
  std::vector<size_t> order(act.size());
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  auto range = [&](size_t k) {
    return static_cast<size_t>(act[k]) < ranges_.size() ? ranges_[act[k]]
                                                        : CellRange{};
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    CellRange ra = range(a), rb = range(b);
    if (ra.empty() != rb.empty())
      return rb.empty();
    if (!ra.empty() && ra.begin != rb.begin)
      return ra.begin < rb.begin;
    return a < b;
  });
  std::vector<double> speeds;
  for (size_t k : order) {
    int i = act[k];
    speeds.push_back(speeds_[i] > 0 ? speeds_[i] : (n ? known / n : 1.0));
  }
  std::vector<CellRange> split = splitCells(store_->cells(), speeds, align_);
  std::vector<CellRange> out(act.size());
  for (size_t k = 0; k < order.size(); ++k)
    out[order[k]] = split[k];
  return out;
}

bool Scheduler::useConfig(const DeviceConfig &config, const std::string &why) {
  std::vector<int> act;
  if (config.cpu && set_.cpu >= 0)
    act.push_back(set_.cpu);
  for (int g = 0; g < config.gpus && g < static_cast<int>(set_.gpus.size());
       ++g)
    act.push_back(set_.gpus[g]);
  std::vector<CellRange> r = splitFor(act);
  std::vector<CellRange> next(set_.devices.size());
  for (size_t k = 0; k < act.size(); ++k)
    next[act[k]] = r[k];
  if (next != ranges_ && !migrate(next, why, 0))
    return false;
  balanced_ = act;
  resetBalancer(balancer_->options());
  return true;
}

int64_t Scheduler::windowLength() {
  int64_t steps = std::max<int64_t>(1, options_.dimension.windowSteps);
  // Under periodic pacing the cost per step follows the cycle (an
  // upstroke can cost ten times a diastolic step, and not by the same
  // factor on every device): device sets measured over different parts
  // of a cycle do not compare. Windows of a whole cycle (after a settling
  // wave) do, where pacing starts within the first cycle, lasts through
  // every window, and the run holds them and two cycles more. Decided at
  // the first window, for all of them.
  if (cycleWindow_ < 0) {
    cycleWindow_ = 0;
    int64_t left = dimensioner_->maxWindows();
    int64_t probe = std::max<int64_t>(1, options_.probeSteps);
    for (const Stimulus &s : timeline.stimuli()) {
      int64_t p = s.period;
      if (p <= steps || s.count < 2 || s.start >= step_ + p)
        continue;
      int64_t windowsEnd = step_ + left * (p + probe);
      bool paced = (windowsEnd - s.start) / p <= s.count - 1;
      if (paced && runUntil_ - step_ >= left * (p + probe) + 2 * p) {
        cycleWindow_ = p;
        break;
      }
    }
  }
  return cycleWindow_ > 0 ? cycleWindow_ : steps;
}

bool Scheduler::allMeasured() const {
  return std::all_of(balanced_.begin(), balanced_.end(),
                     [&](int i) { return speeds_[i] > 0; });
}

void Scheduler::startWindow() {
  DeviceConfig c = dimensioner_->next();
  char why[128];
  std::snprintf(why, sizeof why, "dimensioning: measuring %s", c.str().c_str());
  if (!useConfig(c, why))
    return;
  window_ = Window{};
  window_.open = true;
  window_.start = step_;
  window_.steps = windowLength();
  window_.cycle = cycleWindow_ > 0;
  window_.end = step_ + window_.steps;
  // A window of cycles measures whole cycles after its settling wave.
  if (window_.cycle)
    window_.end += std::max<int64_t>(1, options_.probeSteps);
  // The balancer judges every wave while measuring.
  BalanceOptions fast = options_.balance;
  fast.minWindowSeconds = 0;
  resetBalancer(fast);
}

/// Where a stretch a whole-cell model crosses as one interval from the
/// current step ends, or -1: before spanUntil, without stimulus, without
/// samples to take. It ends only where the protocol stops, so no split of
/// the devices changes it; and one step short of a stimulus onset, so that
/// no long sub-step evaluates the model at the onset itself (a pacing
/// current the model computes from t switches on there: its last step
/// stays as short as the grid's).
int64_t Scheduler::spanEnd(int64_t stop) const {
  if (step_ >= spanUntil || !(desc_.features & EASYML_FEATURE_WHOLE_CELL) ||
      timeline.stimulusAt(step_) != 0)
    return -1;
  int64_t end = std::min(stop, spanUntil);
  if (timeline.stimulusStartsAt(end) && end - 1 > step_)
    --end;
  int64_t sampled = end;
  if (timeline.samplesIn(step_, sampled, recording.plan.capacity).count > 0)
    return -1;
  return end;
}

/// Where a wave from the current step ends, at the latest at `stop` (the
/// next event or stimulus edge): cut for the balancer and the measuring
/// windows.
int64_t Scheduler::waveEnd(int64_t stop) const {
  int64_t end = stop;
  if (options_.maxWaveSteps > 0)
    end = std::min(end, step_ + options_.maxWaveSteps);
  if (window_.open) {
    end = std::min(end, window_.end);
    // A window is cut in three so the balancer settles before the last
    // two are measured. A cycle window on one device has nothing to
    // balance: it runs the waves that device will run once chosen (cut
    // at stimulus edges), where hundred-step waves cost a GPU a
    // synchronisation each (5% of its rate on an H100 at 16,384 cells).
    // On several devices, waves that long would keep for a whole cycle
    // a split measured at one phase of it.
    if (!window_.cycle || balanced_.size() > 1)
      end = std::min(end, step_ + std::max<int64_t>(
                                      1, options_.dimension.windowSteps / 3));
    // The window's first wave settles the split and is not measured: it
    // stays short where a device not measured yet got a guessed share,
    // and where the rest of the window must be whole cycles.
    if (window_.waves == 0 && (window_.cycle || !allMeasured()))
      end = std::min(end, step_ + std::max<int64_t>(1, options_.probeSteps));
  } else if (balanced_.size() > 1 && settling_ && options_.probeSteps > 0) {
    end = std::min(end, step_ + settleSteps_);
  }
  return end;
}

bool Scheduler::run(int64_t until) {
  if (!usable() || bad_)
    return false;
  if (!initialized_) {
    failure_ = "initialize() must come before run()";
    return false;
  }
  double t0 = now();
  bool ok = true;
  runUntil_ = until;
  while (step_ < until && ok) {
    // A stimulus onset starts a beat.
    // The time before the first stimulus is not a beat.
    if (bio.on && step_ > bio.beatStart && timeline.stimulusStartsAt(step_) &&
        !closeBeat(bio.beat > 0 || timeline.stimulusStartsAt(bio.beatStart)))
      return false;
    std::string stopped;
    if (!timeline.fireDue(step_, stopped)) {
      // An event that stops the run says why.
      if (!stopped.empty())
        failure_ = stopped;
      report.wallSeconds += now() - t0;
      return false;
    }
    if (!usable())
      return false;
    if (dimensioner_ && !dimensioner_->done() && !window_.open)
      startWindow();
    if (!usable())
      return false;
    int64_t stop = timeline.nextStop(step_, until, /*stimulusEdges=*/true);
    int64_t spanned = spanEnd(stop);
    bool span = spanned > step_;
    int64_t end = span ? spanned : waveEnd(stop);
    WaveTask task;
    task.dt = dt_;
    task.step0 = step_;
    task.stim = timeline.stimulusAt(step_);
    task.integrateVm = true;
    task.oneInterval = span;
    task.keepExternals = keepExternals;
    Timeline::Samples samples =
        timeline.samplesIn(step_, end, recording.plan.capacity);
    if (timeline.recording()) {
      task.record = &recording.plan;
      task.recFirst = samples.first;
      task.recEvery = timeline.recordEvery();
      task.recSamples = samples.count;
    }
    task.nsteps = end - step_;
    // A fused tissue step keeps the one device that holds every cell (as
    // the tissue was told): no phase split gives cells back to another.
    bool fuse = fused && task.nsteps == 1 && canFuse();
    task.fused = fuse ? fused : nullptr;
    lastWaveFused = fuse;
    ok = (fuse || splitForPhase(step_, end)) && runWave(task);
    if (!ok)
      break;
    if (samples.count > 0) {
      int64_t stride = recording.plan.num * recording.plan.cells.size();
      for (int64_t k = 0; k < samples.count; ++k)
        recording.fn(samples.first + k * timeline.recordEvery(),
                     recording.plan.cells,
                     recording.plan.host.data() + k * stride);
    }
    step_ = end;
    // A cycle window measures one whole cycle after its settling wave,
    // however short that wave was cut.
    if (window_.open && window_.cycle && window_.waves == 1 &&
        !window_.settled) {
      window_.settled = true;
      window_.end = step_ + window_.steps;
    }
    if (window_.open && step_ >= window_.end) {
      double rate = window_.seconds > 0 ? window_.cellSteps / window_.seconds
                    : window_.firstSeconds > 0
                        ? window_.firstCellSteps / window_.firstSeconds
                        : 0;
      DeviceConfig measured = dimensioner_->next();
      dimensioner_->observe(rate);
      report.dimensioning.windows.push_back(
          {measured.str(), window_.start, window_.end - window_.start, rate});
      window_.open = false;
      resetBalancer(options_.balance);
      if (dimensioner_->done()) {
        DeviceConfig c = dimensioner_->chosen();
        report.dimensioning.complete = true;
        report.dimensioning.chosen = c.str();
        report.dimensioning.reason = dimensioner_->reason();
        ok = useConfig(c, "dimensioning chose " + c.str());
      }
    }
    for (auto &fn : syncFns) {
      std::string error;
      if (ok && !fn(step_, error)) {
        failure_ = error;
        ok = false;
      }
    }
    if (progress)
      progress(step_);
  }
  report.wallSeconds += now() - t0;
  if (!ok && !usable())
    return false;
  return ok;
}
