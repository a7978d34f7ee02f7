//===- SharedWave.cpp - two host devices sharing a wave -------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "SharedWave.h"
#include "easyml/Runtime/Devices/HostCpus.h"
#include "easyml/Runtime/Devices/HostWorker.h"
#include "easyml/Runtime/Schedule/MeetingFronts.h"
#include "easyml/Runtime/Support/Clock.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

using namespace easyml::rt;

namespace {

/// The fewest cell-steps a chunk computes.
constexpr int64_t kMinChunkCellSteps = 1024;

/// What one device of the pair did in the wave.
struct Side {
  int device = -1;
  bool lower = true;
  /// When its last chunk ended.
  double finished = 0;
  std::string error;
  /// The CPUs its thread ran on at the end (bound workers only).
  CpuList cpus;
};

} // namespace

SharedWave::SharedWave(DeviceTeam &team) : team_(team) {}

SharedWave::~SharedWave() = default;

void SharedWave::prepareWorkers(int a, int b) {
  // Workers copied into a forked child have no threads there: new ones.
  // Pools re-made with other threads (setThreads) get CPUs anew.
  const int ta = team_.device(a).hostThreads(),
            tb = team_.device(b).hostThreads();
  const PairKey key{a, b, ta, tb};
  if (workers_[1] && workers_[1]->inThisProcess() && key_ == key)
    return;
  key_ = key;
  for (std::unique_ptr<HostWorker> &w : workers_)
    w.reset();
  std::optional<std::pair<CpuList, CpuList>> cpus;
  if (mayBindPools())
    cpus = splitCores(coresOf(allowedCpus()), ta, tb);
  if (cpus) {
    // Each side on a worker bound to its CPUs, the caller waiting.
    workers_[0] = std::make_unique<HostWorker>(cpus->first);
    workers_[1] = std::make_unique<HostWorker>(cpus->second);
    if (!workers_[0]->cpus().empty() && !workers_[1]->cpus().empty() &&
        !cpusLost_) {
      team_.report().pairCpus = {formatCpus(cpus->first), formatCpus(cpus->second)};
      return;
    }
    workers_[0].reset();
  }
  // Unbound: the lower side on the caller's thread, the upper on a worker.
  workers_[1] = std::make_unique<HostWorker>();
  team_.report().pairCpus.clear();
}

bool SharedWave::run(const WaveTask &task, int a, int b,
                     std::vector<WaveTiming> &timing,
                     std::vector<std::string> &errs,
                     std::vector<char> &failed) {
  const std::vector<CellRange> before = team_.ranges;
  CellRange all{before[a].begin, before[b].end};
  // The lower device's part of the work from the speeds measured so far,
  // else from the shares of the last split.
  bool known = team_.speeds[a] > 0 && team_.speeds[b] > 0;
  double partA = known ? team_.speeds[a] / (team_.speeds[a] + team_.speeds[b])
                       : static_cast<double>(before[a].size()) / all.size();
  // A chunk computes at least kMinChunkCellSteps cell-steps (a one-step
  // wave of a tissue: a few thousand cells), so that what each costs
  // besides its work (a kernel call, the clock) stays small.
  // Each side's chunks on its own alignment: a scalar pool's last chunks
  // can be a cell or two, and the two end a cell or two apart, not a
  // vector's worth of the scalar pool's time.
  MeetingFronts fronts(all, team_.device(a).alignment(),
                       team_.device(b).alignment(), partA, known,
                       kMinChunkCellSteps / std::max<int64_t>(1, task.nsteps));
  Side sides[2];
  sides[0].device = a;
  sides[1].device = b;
  sides[1].lower = false;
  // The first chunk of each is taken before either starts, so that both
  // compute in every wave.
  double start = monotonicSeconds();
  CellRange first[2] = {fronts.take(true, start), fronts.take(false, start)};
  auto workChunks = [&](int k) {
    Side &me = sides[k];
    Device &device = team_.device(me.device);
    Device &other = team_.device(sides[1 - k].device);
    CellRange theirs = before[sides[1 - k].device];
    // The device's clock starts with the wave, not with its first chunk.
    device.computeCells(CellRange{}, me.error);
    for (CellRange c = first[k]; !c.empty() && me.error.empty();
         c = fronts.take(me.lower, monotonicSeconds())) {
      double t0 = monotonicSeconds();
      // Cells from the other side: their states where this device reads
      // them.
      CellRange taken = c.intersect(theirs);
      if (!taken.empty() && ((!other.sharesHostStore() &&
                              !other.download(taken, kStateRows, me.error)) ||
                             (!device.sharesHostStore() &&
                              !device.upload(taken, kStateRows, me.error))))
        break;
      if (!device.computeCells(c, me.error))
        break;
      fronts.done(me.lower, c.size(), monotonicSeconds() - t0);
    }
  };
  auto work = [&](int k) {
    // What throws here (memory for a chunk's copies) fails the wave like
    // a device's error: the simulation is stopped, not left half a wave on.
    try {
      workChunks(k);
    } catch (const std::exception &e) {
      sides[k].error = std::string("shared wave: ") + e.what();
    }
    sides[k].finished = monotonicSeconds();
    if (workers_[0])
      sides[k].cpus = allowedCpus();
  };
  prepareWorkers(a, b);
  workers_[1]->start([&] { work(1); });
  std::exception_ptr thrown;
  {
    // The workers use this frame: they are waited for however the rest
    // ends, and what a side threw is thrown here once both are done.
    struct Join {
      std::unique_ptr<HostWorker> *workers;
      std::exception_ptr &thrown;
      ~Join() {
        for (int k = 0; k < 2; ++k)
          try {
            if (workers[k])
              workers[k]->wait();
          } catch (...) {
            if (!thrown)
              thrown = std::current_exception();
          }
      }
    } join{workers_, thrown};
    if (workers_[0])
      workers_[0]->start([&] { work(0); });
    else
      work(0);
  }
  if (thrown)
    std::rethrow_exception(thrown);
  // The report claims the binding only while it holds, for good once lost.
  if (workers_[0]) {
    for (int k = 0; k < 2; ++k)
      cpusLost_ |= sides[k].cpus != workers_[k]->cpus();
    cpusLost_ |= poolBindingLost();
    if (cpusLost_)
      team_.report().pairCpus.clear();
  }
  // The devices now own what they computed; wait() reports the wave.
  int64_t meet = fronts.meeting();
  std::vector<CellRange> next = before;
  next[a] = {all.begin, meet};
  next[b] = {meet, all.end};
  int bad = -1;
  bool computed = sides[0].error.empty() && sides[1].error.empty();
  for (const Side &s : sides) {
    Device &device = team_.device(s.device);
    std::string &err = errs[s.device];
    err = s.error;
    // A failed wave stops the simulation with the ranges it had.
    if (err.empty() && computed)
      device.own(next[s.device], err);
    if (err.empty())
      device.wait(timing[s.device], err);
    // A device's time is until its last chunk ended: the wave's imbalance
    // is the wait of the one that ran out of chunks first.
    timing[s.device].seconds = timing[s.device].kernelSeconds =
        s.finished - start;
    failed[s.device] = !err.empty();
    if (bad < 0 && failed[s.device])
      bad = s.device;
  }
  if (bad >= 0)
    return team_.fail(team_.device(bad), errs[bad]);
  team_.ranges = next;
  ++team_.report().sharedWaves;
  team_.report().cellsHandedOver += std::abs(meet - before[a].end);
  // The measured speeds split the first chunks of the next wave.
  for (const Side &s : sides)
    if (timing[s.device].seconds > 0 && next[s.device].size() > 0)
      team_.speeds[s.device] = static_cast<double>(next[s.device].size()) *
                               task.nsteps / timing[s.device].seconds;
  return true;
}
