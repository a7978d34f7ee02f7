//===- HostWorker.h - one persistent thread for a second host pool -*- C++ -*-//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The thread that runs the second CPU pool's side of every shared wave.
// It is started once and kept: a thread started for each wave is placed
// by the operating system next to the thread that started it, and two
// pools then share one core until the load balancer moves one (measured:
// the hybrid of two pools on a 2-core machine at 75-95% of the summed
// pools, against a steady 95% with one kept thread). Where the pools may
// have CPUs of their own (HostCpus.h), each pool has a worker bound to
// them.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_HOSTWORKER_H
#define EASYML_RUNTIME_HOSTWORKER_H

#include "easyml/Runtime/Devices/HostCpus.h"

#include <functional>
#include <memory>

#include <sys/types.h>

namespace easyml::rt {

class HostWorker {
public:
  /// A worker whose thread runs on `cpus` (where the system allows it),
  /// or wherever the system puts it when `cpus` is empty.
  explicit HostWorker(CpuList cpus = {});
  ~HostWorker();
  HostWorker(const HostWorker &) = delete;
  HostWorker &operator=(const HostWorker &) = delete;

  /// Starts `job` on the worker thread; one job at a time (the last one
  /// waited for).
  void start(std::function<void()> job);
  /// Waits until the job started last has returned, and throws what it
  /// threw.
  void wait();
  /// The worker's thread runs in this process: false in a child forked
  /// since, where it does not exist. Destroying the worker there leaves
  /// its state alone (its thread handle, and a condition variable the
  /// parent's thread waits on, cannot be destroyed in the child).
  bool inThisProcess() const;
  /// The CPUs the worker's thread is bound to (empty: not bound).
  const CpuList &cpus() const { return cpus_; }

private:
  struct State;
  static void loop(State &s);
  pid_t pid_;
  CpuList cpus_;
  std::unique_ptr<State> state_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_HOSTWORKER_H
