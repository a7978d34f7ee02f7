//===- SharedWave.cpp - two host devices sharing a wave -------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Two devices computing on the host (CPU pools side by side) need not split
// a wave in advance: their cells are adjacent, so each computes chunks from
// its own end of them, one chunk after another, until they meet. Whatever
// the cost of a cell does during the wave (an upstroke costing the scalar
// code more than the vector code, another process taking a core for a
// while), both finish within one chunk of each other, and the meeting
// point is the next wave's split. Which chunk each takes next is
// MeetingFronts' policy. Each side runs on a thread kept for the whole
// simulation, bound to CPUs of its own where the pools fit (HostCpus.h).
//
// A chunk taken from the other device's side starts from that device's
// copy of the cells' states: brought to the host store first where that
// device keeps its own copy (`baseline` keeps openCARP's record per cell),
// and into the taker's own copy where it keeps one. Every cell is computed
// by one device for the whole wave, so the result is the one the two
// variants give cell by cell, whatever the chunks.
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"

#include "easyml/Runtime/Schedule/Balancer.h"
#include "easyml/Runtime/Devices/HostCpus.h"
#include "easyml/Runtime/Devices/HostWorker.h"
#include "easyml/Runtime/Schedule/MeetingFronts.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

using namespace easyml::rt;

namespace {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

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

bool Scheduler::sharePair(int &a, int &b) const {
  if (!options_.balance.share || options_.balance.fixed || window_.open ||
      balanced_.size() != 2)
    return false;
  std::vector<int> act = active();
  if (act.size() != 2)
    return false;
  a = act[0];
  b = act[1];
  for (int i : act)
    if (!set_.devices[i]->runsOnHost() || !set_.devices[i]->computesChunks())
      return false;
  if (ranges_[a].begin > ranges_[b].begin)
    std::swap(a, b);
  return ranges_[a].end == ranges_[b].begin &&
         ranges_[a].size() + ranges_[b].size() >= 2 * align_;
}

void Scheduler::preparePairWorkers(int a, int b) {
  // Workers copied into a forked child have no threads there: new ones.
  // Pools re-made with other threads (setThreads) get CPUs anew.
  const int ta = set_.devices[a]->hostThreads(),
            tb = set_.devices[b]->hostThreads();
  const PairKey key{a, b, ta, tb};
  if (pairWorkers_[1] && pairWorkers_[1]->inThisProcess() && pairKey_ == key)
    return;
  pairKey_ = key;
  for (std::unique_ptr<HostWorker> &w : pairWorkers_)
    w.reset();
  std::optional<std::pair<CpuList, CpuList>> cpus;
  if (mayBindPools())
    cpus = splitCores(coresOf(allowedCpus()), ta, tb);
  if (cpus) {
    // Each side on a worker bound to its CPUs, the caller waiting.
    pairWorkers_[0] = std::make_unique<HostWorker>(cpus->first);
    pairWorkers_[1] = std::make_unique<HostWorker>(cpus->second);
    if (!pairWorkers_[0]->cpus().empty() && !pairWorkers_[1]->cpus().empty() &&
        !pairCpusLost_) {
      report.pairCpus = {formatCpus(cpus->first), formatCpus(cpus->second)};
      return;
    }
    pairWorkers_[0].reset();
  }
  // Unbound: the lower side on the caller's thread, the upper on a worker.
  pairWorkers_[1] = std::make_unique<HostWorker>();
  report.pairCpus.clear();
}

bool Scheduler::shareWave(const WaveTask &task, int a, int b,
                          std::vector<WaveTiming> &timing,
                          std::vector<std::string> &errs,
                          std::vector<char> &failed) {
  const std::vector<CellRange> before = ranges_;
  CellRange all{before[a].begin, before[b].end};
  // The lower device's part of the work from the speeds measured so far,
  // else from the shares of the last split.
  bool known = speeds_[a] > 0 && speeds_[b] > 0;
  double partA = known ? speeds_[a] / (speeds_[a] + speeds_[b])
                       : static_cast<double>(before[a].size()) / all.size();
  // A chunk computes at least kMinChunkCellSteps cell-steps (a one-step
  // wave of a tissue: a few thousand cells), so that what each costs
  // besides its work (a kernel call, the clock) stays small.
  // Each side's chunks on its own alignment: a scalar pool's last chunks
  // can be a cell or two, and the two end a cell or two apart, not a
  // vector's worth of the scalar pool's time.
  MeetingFronts fronts(all, set_.devices[a]->alignment(),
                       set_.devices[b]->alignment(), partA, known,
                       kMinChunkCellSteps / std::max<int64_t>(1, task.nsteps));
  Side sides[2];
  sides[0].device = a;
  sides[1].device = b;
  sides[1].lower = false;
  // The first chunk of each is taken before either starts, so that both
  // compute in every wave.
  double start = now();
  CellRange first[2] = {fronts.take(true, start), fronts.take(false, start)};
  auto workChunks = [&](int k) {
    Side &me = sides[k];
    Device &device = *set_.devices[me.device];
    Device &other = *set_.devices[sides[1 - k].device];
    CellRange theirs = before[sides[1 - k].device];
    // The device's clock starts with the wave, not with its first chunk.
    device.computeCells(CellRange{}, me.error);
    for (CellRange c = first[k]; !c.empty() && me.error.empty();
         c = fronts.take(me.lower, now())) {
      double t0 = now();
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
      fronts.done(me.lower, c.size(), now() - t0);
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
    sides[k].finished = now();
    if (pairWorkers_[0])
      sides[k].cpus = allowedCpus();
  };
  preparePairWorkers(a, b);
  pairWorkers_[1]->start([&] { work(1); });
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
    } join{pairWorkers_, thrown};
    if (pairWorkers_[0])
      pairWorkers_[0]->start([&] { work(0); });
    else
      work(0);
  }
  if (thrown)
    std::rethrow_exception(thrown);
  // The report claims the binding only while it holds, for good once lost.
  if (pairWorkers_[0]) {
    for (int k = 0; k < 2; ++k)
      pairCpusLost_ |= sides[k].cpus != pairWorkers_[k]->cpus();
    pairCpusLost_ |= poolBindingLost();
    if (pairCpusLost_)
      report.pairCpus.clear();
  }
  // The devices now own what they computed; wait() reports the wave.
  int64_t meet = fronts.meeting();
  std::vector<CellRange> next = before;
  next[a] = {all.begin, meet};
  next[b] = {meet, all.end};
  int bad = -1;
  bool computed = sides[0].error.empty() && sides[1].error.empty();
  for (const Side &s : sides) {
    Device &device = *set_.devices[s.device];
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
    return fail(*set_.devices[bad], errs[bad]);
  ranges_ = next;
  ++report.sharedWaves;
  report.cellsHandedOver += std::abs(meet - before[a].end);
  // The measured speeds split the first chunks of the next wave, and the
  // balancer starts from this split if sharing stops.
  for (const Side &s : sides)
    if (timing[s.device].seconds > 0 && next[s.device].size() > 0)
      speeds_[s.device] = static_cast<double>(next[s.device].size()) *
                          task.nsteps / timing[s.device].seconds;
  balancer_->reset({ranges_[balanced_[0]], ranges_[balanced_[1]]});
  return true;
}
