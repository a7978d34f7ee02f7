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
// pools, against a steady 95% with one kept thread).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_HOSTWORKER_H
#define EASYML_RUNTIME_HOSTWORKER_H

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace easyml::rt {

class HostWorker {
public:
  HostWorker();
  ~HostWorker();
  HostWorker(const HostWorker &) = delete;
  HostWorker &operator=(const HostWorker &) = delete;

  /// Starts `job` on the worker thread; one job at a time.
  void start(std::function<void()> job);
  /// Waits until the job started last has returned.
  void wait();

private:
  void loop();
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::function<void()> job_;
  bool busy_ = false, stop_ = false;
  std::thread thread_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_HOSTWORKER_H
