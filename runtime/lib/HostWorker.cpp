//===- HostWorker.cpp - one persistent thread for a second host pool ------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "HostWorker.h"

using namespace easyml::rt;

HostWorker::HostWorker() : thread_([this] { loop(); }) {}

HostWorker::~HostWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void HostWorker::start(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(job);
    busy_ = true;
  }
  wake_.notify_one();
}

void HostWorker::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return !busy_; });
}

void HostWorker::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return busy_ || stop_; });
    if (busy_) {
      std::function<void()> job = std::move(job_);
      lock.unlock();
      job();
      lock.lock();
      busy_ = false;
      done_.notify_all();
      continue;
    }
    return;
  }
}
