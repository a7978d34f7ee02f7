//===- HostCpusTest.cpp - which CPUs two host pools compute on ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/HostCpus.h"
#include "easyml/Runtime/Devices/HostWorker.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <omp.h>
#include <sys/stat.h>

using namespace easyml::rt;

TEST(HostCpusTest, SplitsInProportionToThreads) {
  auto s = splitCpus({0, 1}, 1, 1);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first, CpuList({0}));
  EXPECT_EQ(s->second, CpuList({1}));
  s = splitCpus({0, 1, 2, 3, 4, 5, 6, 7}, 2, 6);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first, CpuList({0, 1}));
  EXPECT_EQ(s->second, CpuList({2, 3, 4, 5, 6, 7}));
  // Spare CPUs go in proportion; every thread keeps a CPU of its own.
  s = splitCpus({4, 5, 6, 7, 12}, 1, 1);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first, CpuList({4, 5, 6}));
  EXPECT_EQ(s->second, CpuList({7, 12}));
  s = splitCpus({0, 1, 2, 3}, 3, 1);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first.size(), 3u);
  EXPECT_EQ(s->second, CpuList({3}));
}

TEST(HostCpusTest, NoSplitWithFewerCpusThanThreads) {
  EXPECT_FALSE(splitCpus({0, 1}, 2, 1));
  EXPECT_FALSE(splitCpus({0}, 1, 1));
  EXPECT_FALSE(splitCpus({0, 1, 2}, 0, 1));
}

TEST(HostCpusTest, RespectsBindingsFromTheEnvironment) {
  for (const char *v : {"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY",
                        "KMP_AFFINITY", "EASYML_BIND_POOLS"})
    unsetenv(v);
  EXPECT_TRUE(mayBindPools());
  setenv("OMP_PROC_BIND", "false", 1);
  EXPECT_TRUE(mayBindPools());
  setenv("OMP_PROC_BIND", "close", 1);
  std::string why;
  EXPECT_FALSE(mayBindPools(&why));
  EXPECT_EQ(why, "OMP_PROC_BIND");
  unsetenv("OMP_PROC_BIND");
  setenv("OMP_PLACES", "cores", 1);
  EXPECT_FALSE(mayBindPools(&why));
  EXPECT_EQ(why, "OMP_PLACES");
  unsetenv("OMP_PLACES");
  setenv("EASYML_BIND_POOLS", "0", 1);
  EXPECT_FALSE(mayBindPools(&why));
  EXPECT_EQ(why, "EASYML_BIND_POOLS=0");
  unsetenv("EASYML_BIND_POOLS");
}

TEST(HostCpusTest, FormatsRanges) {
  EXPECT_EQ(formatCpus({0, 1, 2, 3, 8}), "0-3,8");
  EXPECT_EQ(formatCpus({5}), "5");
  EXPECT_EQ(formatCpus({1, 3, 4}), "1,3-4");
  EXPECT_EQ(formatCpus({}), "");
}

TEST(HostCpusTest, ABoundWorkerRunsOnItsCpus) {
  CpuList all = allowedCpus();
  ASSERT_FALSE(all.empty());
  CpuList last{all.back()};
  HostWorker worker(last);
  EXPECT_EQ(worker.cpus(), last);
  CpuList seen;
  worker.start([&] { seen = allowedCpus(); });
  worker.wait();
  EXPECT_EQ(seen, last);
  // The caller's thread keeps its CPUs.
  EXPECT_EQ(allowedCpus(), all);
}

namespace {
/// A fake /sys/devices/system/cpu: CPU c on core cores[c] (-1: no
/// topology); empty where it cannot be made.
std::string fakeSysfs(const std::vector<int> &cores) {
  char dir[] = "/tmp/easyml-sysfs-XXXXXX";
  if (!mkdtemp(dir))
    return "";
  for (size_t c = 0; c < cores.size(); ++c) {
    if (cores[c] < 0)
      continue;
    std::string topo = std::string(dir) + "/cpu" + std::to_string(c);
    mkdir(topo.c_str(), 0755);
    topo += "/topology";
    mkdir(topo.c_str(), 0755);
    std::string siblings;
    for (size_t d = 0; d < cores.size(); ++d)
      if (cores[d] == cores[c])
        siblings += (siblings.empty() ? "" : ",") + std::to_string(d);
    std::ofstream(topo + "/thread_siblings_list") << siblings << "\n";
  }
  return dir;
}

/// The CPUs of each thread of a parallel region of `threads` threads
/// started on the calling thread, each holding the caller's binding.
std::vector<CpuList> regionCpus(int threads) {
  std::vector<CpuList> seen(threads);
  const PoolBinding bind = PoolBinding::current();
#pragma omp parallel num_threads(threads)
  {
    bind.hold();
    seen[omp_get_thread_num()] = allowedCpus();
  }
  return seen;
}
} // namespace

TEST(HostCpusTest, GroupsSmtSiblingsIntoCores) {
  // Siblings numbered i and i+2; CPU 4 without a topology.
  std::string sysfs = fakeSysfs({0, 1, 0, 1, -1});
  ASSERT_FALSE(sysfs.empty());
  std::vector<CpuList> cores = coresOf({0, 1, 2, 3, 4}, sysfs);
  ASSERT_EQ(cores.size(), 3u);
  EXPECT_EQ(cores[0], CpuList({0, 2}));
  EXPECT_EQ(cores[1], CpuList({1, 3}));
  EXPECT_EQ(cores[2], CpuList({4}));
  // Only the CPUs allowed.
  cores = coresOf({2, 3}, sysfs);
  EXPECT_EQ(cores, std::vector<CpuList>({{2}, {3}}));
  std::filesystem::remove_all(sysfs);
}

TEST(HostCpusTest, SplitsWholeCores) {
  // Two cores of two siblings: one core each, never a core shared.
  auto s = splitCores({{0, 2}, {1, 3}}, 1, 1);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first, CpuList({0, 2}));
  EXPECT_EQ(s->second, CpuList({1, 3}));
  s = splitCores({{0, 4}, {1, 5}, {2, 6}, {3, 7}}, 1, 3);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first, CpuList({0, 4}));
  EXPECT_EQ(s->second, CpuList({1, 2, 3, 5, 6, 7}));
  // Three threads and one cannot have whole cores of two: CPU by CPU.
  s = splitCores({{0, 2}, {1, 3}}, 3, 1);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first, CpuList({0, 1, 2}));
  EXPECT_EQ(s->second, CpuList({3}));
  // Without SMT, as splitCpus.
  s = splitCores({{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}, 2, 6);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->first, CpuList({0, 1}));
  EXPECT_FALSE(splitCores({{0, 1}}, 2, 1));
}

TEST(HostCpusTest, OpenMpThreadsKeepTheirPoolsCpus) {
  CpuList all = allowedCpus();
  if (all.size() < 2)
    GTEST_SKIP() << "needs two CPUs to tell a binding from none";
  if (!mayBindPools())
    GTEST_SKIP() << "the environment binds OpenMP's threads itself";
  CpuList last{all.back()};
  std::vector<CpuList> first, second;
  CpuList rootAfter, heldByOther, releasedByOther;
  {
    HostWorker worker(last);
    ASSERT_EQ(worker.cpus(), last);
    PoolBinding pool;
    worker.start([&] {
      first = regionCpus(2);
      second = regionCpus(2);
      rootAfter = allowedCpus();
      pool = PoolBinding::current();
    });
    worker.wait();
    // Any thread holding the pool's binding, then an unbound one's (as an
    // OpenMP thread moving from a pool's region to the caller's does).
    const PoolBinding unbound = PoolBinding::current();
    std::thread other([&] {
      pool.hold();
      heldByOther = allowedCpus();
      unbound.hold();
      releasedByOther = allowedCpus();
    });
    other.join();
  }
  EXPECT_EQ(heldByOther, last);
  EXPECT_EQ(releasedByOther, all);
  // Every thread of the pool's regions, the worker's own included, on the
  // pool's CPU, and the worker still there afterwards.
  for (const auto *seen : {&first, &second})
    for (const CpuList &cpus : *seen)
      EXPECT_EQ(cpus, last);
  EXPECT_EQ(rootAfter, last);
  // The caller's regions run on the process's CPUs, threads that served
  // the pool included.
  for (const CpuList &cpus : regionCpus(2))
    EXPECT_EQ(cpus, all);
  EXPECT_EQ(allowedCpus(), all);
}
