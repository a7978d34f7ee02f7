//===- HostWorkerTest.cpp - one persistent thread for a second host pool --===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/HostWorker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <stdexcept>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

using namespace easyml::rt;

TEST(HostWorkerTest, RunsEveryJobOnOneOtherThread) {
  HostWorker worker;
  std::thread::id first;
  int runs = 0;
  for (int k = 0; k < 100; ++k) {
    std::thread::id id;
    worker.start([&] {
      id = std::this_thread::get_id();
      ++runs;
    });
    worker.wait();
    EXPECT_NE(id, std::this_thread::get_id());
    if (k == 0)
      first = id;
    EXPECT_EQ(id, first) << "job " << k;
  }
  EXPECT_EQ(runs, 100);
  EXPECT_TRUE(worker.inThisProcess());
}

TEST(HostWorkerTest, AForkedChildMakesANewWorker) {
  // The child has the worker's state but not its thread: it must neither
  // hang destroying it nor run a job on it.
  auto worker = std::make_unique<HostWorker>();
  worker->start([] {});
  worker->wait();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    bool ok = !worker->inThisProcess();
    worker.reset();
    worker = std::make_unique<HostWorker>();
    int runs = 0;
    worker->start([&] { ++runs; });
    worker->wait();
    worker.reset();
    _exit(ok && runs == 1 ? 0 : 1);
  }
  int status = 0;
  pid_t done = 0;
  for (int k = 0; k < 1000 && done == 0; ++k) {
    done = waitpid(child, &status, WNOHANG);
    if (done == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the forked child hung";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(worker->inThisProcess());
}

TEST(HostWorkerTest, AJobsExceptionReachesTheCaller) {
  HostWorker worker;
  worker.start([] { throw std::runtime_error("out of memory"); });
  try {
    worker.wait();
    FAIL() << "wait() did not throw";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "out of memory");
  }
  // Thrown once; the worker goes on with the next job.
  int ran = 0;
  worker.start([&] { ran = 1; });
  EXPECT_NO_THROW(worker.wait());
  EXPECT_EQ(ran, 1);
}
