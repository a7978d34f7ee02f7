//===- Worker.h - a thread that runs one job at a time ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_WORKER_H
#define EASYML_RUNTIME_LIB_WORKER_H

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace easyml::rt {

/// A persistent thread that runs the jobs posted to it, one at a time:
/// post() returns at once, join() waits until the job has finished.
class Worker {
public:
  Worker() = default;
  ~Worker() {
    if (!thread_.joinable())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Worker(const Worker &) = delete;
  Worker &operator=(const Worker &) = delete;

  void post(std::function<void()> job) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!thread_.joinable())
      thread_ = std::thread([this] { loop(); });
    done_.wait(lock, [this] { return !busy_; });
    job_ = std::move(job);
    busy_ = true;
    wake_.notify_all();
  }

  void join() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return !busy_; });
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return quit_ || (busy_ && job_); });
      if (quit_)
        return;
      std::function<void()> job = std::move(job_);
      job_ = nullptr;
      lock.unlock();
      job();
      lock.lock();
      busy_ = false;
      done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::function<void()> job_;
  bool busy_ = false, quit_ = false;
  std::thread thread_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_WORKER_H
