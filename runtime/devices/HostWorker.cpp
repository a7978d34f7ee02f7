//===- HostWorker.cpp - one persistent thread for a second host pool ------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/HostWorker.h"

#include <cassert>
#include <condition_variable>
#include <exception>
#include <future>
#include <mutex>
#include <thread>
#include <utility>

#include <unistd.h>

using namespace easyml::rt;

struct HostWorker::State {
  std::mutex mutex;
  std::condition_variable wake, done;
  std::function<void()> job;
  /// What the last job threw, for wait() to throw on the caller's thread.
  std::exception_ptr thrown;
  bool busy = false, stop = false;
  std::thread thread;
};

HostWorker::HostWorker(CpuList cpus)
    : pid_(getpid()), state_(std::make_unique<State>()) {
  // Bound before its first job, OpenMP started on it first (HostCpus.h).
  if (!cpus.empty()) {
    std::promise<bool> bound;
    std::future<bool> done = bound.get_future();
    // The promise moves to the thread: it is still in use there when the
    // future is ready.
    state_->thread =
        std::thread([&s = *state_, cpus, bound = std::move(bound)]() mutable {
          bound.set_value(becomePoolThread(cpus));
          loop(s);
        });
    if (done.get())
      cpus_ = std::move(cpus);
    return;
  }
  State &s = *state_;
  s.thread = std::thread([&s] { loop(s); });
}

bool HostWorker::inThisProcess() const { return getpid() == pid_; }

HostWorker::~HostWorker() {
  if (!inThisProcess()) {
    (void)state_.release();
    return;
  }
  State &s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.stop = true;
  }
  s.wake.notify_one();
  s.thread.join();
}

void HostWorker::start(std::function<void()> job) {
  State &s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    assert(!s.busy && "a job started before the last one was waited for");
    s.job = std::move(job);
    s.busy = true;
  }
  s.wake.notify_one();
}

void HostWorker::wait() {
  State &s = *state_;
  std::unique_lock<std::mutex> lock(s.mutex);
  s.done.wait(lock, [&s] { return !s.busy; });
  if (std::exception_ptr e = std::exchange(s.thrown, nullptr))
    std::rethrow_exception(e);
}

void HostWorker::loop(State &s) {
  std::unique_lock<std::mutex> lock(s.mutex);
  for (;;) {
    s.wake.wait(lock, [&s] { return s.busy || s.stop; });
    if (!s.busy)
      return;
    std::function<void()> job = std::move(s.job);
    lock.unlock();
    std::exception_ptr thrown;
    try {
      job();
    } catch (...) {
      thrown = std::current_exception();
    }
    lock.lock();
    s.thrown = thrown;
    s.busy = false;
    s.done.notify_all();
  }
}
