//===- WaveExecutor.cpp - one wave on every device at once ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/WaveExecutor.h"
#include "SharedWave.h"
#include "easyml/Runtime/Schedule/Partitioner.h"
#include "easyml/Runtime/Schedule/Recovery.h"
#include "easyml/Runtime/Support/Clock.h"

#include <algorithm>
#include <cstring>
#include <thread>

using namespace easyml::rt;

WaveExecutor::WaveExecutor(DeviceTeam &team, Partitioner &partitioner,
                           RecoveryPolicy &recovery)
    : team_(team), partitioner_(partitioner), recovery_(recovery),
      shared_(std::make_unique<SharedWave>(team)) {}

WaveExecutor::~WaveExecutor() = default;

bool WaveExecutor::run(const WaveTask &task) {
  std::vector<int> act = team_.active();
  if (!team_.refresh(act))
    return false;
  if (task.entry == Entry::Compute)
    recovery_.saveWaveStartExternals();
  double t0 = monotonicSeconds();
  int n = team_.size();
  std::vector<std::string> errs(n);
  std::vector<char> failed(n, 0);
  std::vector<WaveTiming> timing(n);
  if (!joinAll(task, act, timing, errs, failed))
    return false;
  // The shared wave moved the split: the active devices' ranges now.
  if (waveShared_)
    act = team_.active();
  std::vector<int> lostNow;
  for (int i : act)
    if (failed[i])
      lostNow.push_back(i);
  // The wave is complete once the lost devices' cells are recomputed; it
  // is not measured (nor checked for non-finite values: the next is).
  if (!lostNow.empty())
    return recovery_.recoverWave(task, lostNow, errs, timing) &&
           recovery_.keepHostCopies(task) && team_.usable();
  return finish(task, act, monotonicSeconds() - t0, timing);
}

/// Launches the wave everywhere, has two host devices share it where the
/// partitioner says so, and joins every device: the host's own devices
/// (CPU pools) compute while the GPUs run what was queued, the last one on
/// this thread, any other on a thread of its own. A device that cannot
/// launch is lost like one whose wave fails: the others run theirs.
bool WaveExecutor::joinAll(const WaveTask &task, const std::vector<int> &act,
                           std::vector<WaveTiming> &timing,
                           std::vector<std::string> &errs,
                           std::vector<char> &failed) {
  std::vector<char> launched(team_.size(), 0);
  for (int i : act) {
    launched[i] = team_.device(i).launch(task, errs[i]);
    failed[i] = !launched[i];
  }
  int pairA = -1, pairB = -1;
  waveShared_ = task.entry == Entry::Compute && !task.fused &&
                std::count(launched.begin(), launched.end(), 1) == 2 &&
                partitioner_.sharedPair(pairA, pairB);
  if (waveShared_) {
    if (!shared_->run(task, pairA, pairB, timing, errs, failed))
      return false;
    partitioner_.sharedWaveDone();
  }
  std::vector<int> host;
  for (int i : act)
    if (team_.device(i).runsOnHost() && !waveShared_)
      host.push_back(i);
  auto join = [&](int i) {
    if (launched[i])
      failed[i] = !team_.device(i).wait(timing[i], errs[i]);
  };
  std::vector<std::thread> threads;
  for (size_t k = 0; k + 1 < host.size(); ++k)
    threads.emplace_back(join, host[k]);
  if (!host.empty())
    join(host.back());
  for (std::thread &t : threads)
    t.join();
  for (int i : act)
    if (!team_.device(i).runsOnHost())
      join(i);
  return true;
}

/// A wave every device completed: host copies for recovery, the counters,
/// and for a compute wave the report, the check for non-finite values and
/// the partitioner's judgement.
bool WaveExecutor::finish(const WaveTask &task, const std::vector<int> &act,
                          double wall, std::vector<WaveTiming> &timing) {
  for (int i : act) {
    Device &device = team_.device(i);
    if (task.entry != Entry::Eval && !device.sharesHostStore()) {
      device.hostStale = true;
      team_.hostCopy[i] = 0;
    }
  }
  std::vector<int> copyLost;
  std::vector<std::string> copyErrs;
  if (task.entry != Entry::Eval &&
      !recovery_.keepHostCopies(copyLost, copyErrs))
    return false;
  std::vector<int64_t> &counters = team_.counters;
  for (int i : act) {
    if (std::count(copyLost.begin(), copyLost.end(), i))
      continue;
    for (size_t c = 0; c < counters.size(); ++c)
      counters[c] += timing[i].counters[c];
    if (team_.device(i).isGpu() && task.entry == Entry::Compute)
      gpuKernelMs_ += timing[i].kernelSeconds * 1e3;
  }
  // A copy failed after the wave: the host holds the device's cells as of
  // the wave's start, as when a device fails the wave itself.
  if (!copyLost.empty()) {
    for (int i : copyLost)
      team_.hostCopy[i] = 1;
    return recovery_.recoverWave(task, copyLost, copyErrs, timing,
                                 /*survivorsCounted=*/true) &&
           recovery_.keepHostCopies(task) && team_.usable();
  }
  if (task.entry != Entry::Compute)
    return true;
  computeSeconds_ += wall;
  RunReport &report = team_.report();
  report.waveSeconds += wall;
  report.steps += task.nsteps;
  for (int i : act) {
    DeviceReport &r = report.devices[i];
    r.cellSteps += static_cast<double>(team_.ranges[i].size()) * task.nsteps;
    r.seconds += timing[i].seconds;
    r.kernelSeconds += timing[i].kernelSeconds;
    r.waves += 1;
  }
  if (!checkFinite(task, act, timing))
    return false;
  partitioner_.afterWave(task, wall, timing, waveShared_);
  return team_.usable();
}

bool WaveExecutor::checkFinite(const WaveTask &task,
                               const std::vector<int> &act,
                               const std::vector<WaveTiming> &timing) {
  // A blow-up: the device that counted it replays its first bad cell.
  for (int i : act) {
    if (timing[i].nonFinite == 0)
      continue;
    Device &device = team_.device(i);
    auto where = std::make_unique<NonFinite>();
    std::string err;
    if (!device.diagnose(task, *where, err))
      return team_.fail(device, err);
    // An adaptive integrator forced past its tolerance is the likely cause
    // (easyml-compile's warning counter of each cvode group).
    const easyml_model_desc &desc = team_.desc();
    const std::vector<int64_t> &counters = team_.counters;
    for (size_t c = 0; c < counters.size(); ++c)
      if (counters[c] > 0 && c < static_cast<size_t>(desc.num_counters) &&
          std::strstr(desc.counter_names[c], "accepted above the tolerance"))
        where->cause = "before it, " + std::string(desc.counter_names[c]);
    bad_ = std::move(where);
    return false;
  }
  return true;
}
