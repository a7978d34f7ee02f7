//===- SharedWave.h - two host devices sharing a wave -----------*- C++ -*-===//
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

#ifndef EASYML_RUNTIME_SCHEDULE_SHAREDWAVE_H
#define EASYML_RUNTIME_SCHEDULE_SHAREDWAVE_H

#include "easyml/Runtime/Schedule/DeviceTeam.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

class HostWorker;

class SharedWave {
public:
  explicit SharedWave(DeviceTeam &team);
  ~SharedWave();

  /// Runs the launched `task` on devices `a` (lower cells) and `b` in
  /// chunks until they meet; their ranges become what each computed and
  /// their speeds what they measured. False (the team's failure) when a
  /// device failed.
  bool run(const WaveTask &task, int a, int b,
           std::vector<WaveTiming> &timing, std::vector<std::string> &errs,
           std::vector<char> &failed);

private:
  /// The threads for the waves of devices `a` (lower) and `b`: kept while
  /// the pair is the same, bound to CPUs where HostCpus allows.
  void prepareWorkers(int a, int b);

  DeviceTeam &team_;
  /// The threads of the two sides (lower, upper), kept between waves, and
  /// the devices and threads they were made for. Without a lower one, the
  /// lower side runs on the caller's thread.
  std::unique_ptr<HostWorker> workers_[2];
  using PairKey = std::array<int, 4>;
  PairKey key_ = {-1, -1, 0, 0};
  /// A pool's thread was once found off its CPUs: the report no longer
  /// names any.
  bool cpusLost_ = false;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SCHEDULE_SHAREDWAVE_H
