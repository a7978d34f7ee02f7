//===- HostCpusTest.cpp - which CPUs two host pools compute on ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/HostCpus.h"
#include "easyml/Runtime/HostWorker.h"

#include <gtest/gtest.h>

#include <cstdlib>

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
