//===- DimensionerTest.cpp - how many GPUs, and the CPU or not ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/Dimensioner.h"

#include <gtest/gtest.h>

#include <functional>

using namespace easyml::rt;

namespace {

/// Runs the search against a throughput model; returns the configurations
/// in the order they were measured.
std::vector<DeviceConfig>
search(Dimensioner &d, const std::function<double(DeviceConfig)> &rate) {
  std::vector<DeviceConfig> seen;
  for (int guard = 0; !d.done() && guard < 100; ++guard) {
    seen.push_back(d.next());
    d.observe(rate(d.next()));
  }
  EXPECT_TRUE(d.done());
  return seen;
}

TEST(Dimensioner, NoGpuMeansTheCpu) {
  Dimensioner d(0, true);
  EXPECT_TRUE(d.done());
  EXPECT_EQ(d.chosen().gpus, 0);
  EXPECT_TRUE(d.chosen().cpu);
  EXPECT_EQ(d.maxWindows(), 0);
  EXPECT_NE(d.reason().find("no GPU"), std::string::npos);
}

TEST(Dimensioner, StartsFromAllGpus) {
  Dimensioner d(8, true);
  EXPECT_EQ(d.next().gpus, 8);
  EXPECT_FALSE(d.next().cpu);
}

TEST(Dimensioner, LinearScalingKeepsEveryGpu) {
  Dimensioner d(4, true);
  auto seen = search(d, [](DeviceConfig c) {
    return c.gpus * 1e9 + (c.cpu ? 5e6 : 0); // the CPU adds 0.1%
  });
  EXPECT_EQ(d.chosen().gpus, 4);
  EXPECT_FALSE(d.chosen().cpu) << "0.1% is below the 2% the CPU must add";
  EXPECT_LE(static_cast<int>(seen.size()), d.maxWindows());
}

TEST(Dimensioner, SaturationPicksTheFewestGpusWithinTolerance) {
  // Throughput saturates at 3 GPUs (too few cells for more).
  Dimensioner d(8, false);
  auto seen =
      search(d, [](DeviceConfig c) { return std::min(c.gpus, 3) * 1e9; });
  EXPECT_EQ(d.chosen().gpus, 3);
  EXPECT_LE(static_cast<int>(seen.size()), d.maxWindows());
  EXPECT_EQ(d.maxWindows(), 4); // 8, then 3 halvings
  EXPECT_NE(d.reason().find("3 gpus"), std::string::npos) << d.reason();
}

TEST(Dimensioner, FewerGpusWithinTheTolerance) {
  // 2 GPUs reach 97% of 4: within 5%, so 2 are enough.
  Dimensioner d(4, false);
  search(d, [](DeviceConfig c) {
    return c.gpus >= 4 ? 1.0e9 : c.gpus >= 2 ? 0.97e9 : 0.6e9;
  });
  EXPECT_EQ(d.chosen().gpus, 2);
}

TEST(Dimensioner, TheCpuJoinsWhenItHelps) {
  Dimensioner d(2, true);
  search(d, [](DeviceConfig c) {
    return c.gpus * 1e7 + (c.cpu ? 3e7 : 0); // slow GPUs, a strong CPU
  });
  EXPECT_EQ(d.chosen().gpus, 2);
  EXPECT_TRUE(d.chosen().cpu);
  EXPECT_NE(d.reason().find("kept"), std::string::npos) << d.reason();
}

TEST(Dimensioner, OneGpu) {
  Dimensioner d(1, true);
  auto seen = search(d, [](DeviceConfig c) { return c.cpu ? 1.1 : 1.0; });
  EXPECT_EQ(seen.size(), 2u); // 1 gpu, then cpu+1 gpu
  EXPECT_TRUE(d.chosen().cpu);
  EXPECT_EQ(d.maxWindows(), 2);
}

TEST(DeviceConfig, Names) {
  EXPECT_EQ((DeviceConfig{0, true}).str(), "cpu");
  EXPECT_EQ((DeviceConfig{1, false}).str(), "1 gpu");
  EXPECT_EQ((DeviceConfig{3, true}).str(), "cpu+3 gpus");
}

} // namespace
