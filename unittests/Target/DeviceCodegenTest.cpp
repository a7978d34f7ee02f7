//===- DeviceCodegenTest.cpp - LLVM back-end settings for GPU kernels -----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Target/DeviceCodegen.h"

#include "llvm/Support/CommandLine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace easyml;

namespace {
DeviceCodegenSettings withSink(bool on) {
  DeviceCodegenSettings s;
  s.machineSink = on;
  return s;
}

void setDisableMachineSink(bool value) {
  auto &options = llvm::cl::getRegisteredOptions();
  ASSERT_TRUE(options.count("disable-machine-sink"));
  static_cast<llvm::cl::opt<bool> *>(options["disable-machine-sink"])
      ->setValue(value);
}

TEST(DeviceCodegen, ScopeTurnsMachineSinkOffAndRestores) {
  ASSERT_FALSE(machineSinkDisabled());
  {
    DeviceCodegenScope scope(withSink(false));
    EXPECT_FALSE(bool(scope.status()));
    EXPECT_TRUE(machineSinkDisabled());
    {
      DeviceCodegenScope nested(withSink(false));
      EXPECT_TRUE(machineSinkDisabled());
    }
    // The outer scope still holds it.
    EXPECT_TRUE(machineSinkDisabled());
  }
  EXPECT_FALSE(machineSinkDisabled());
}

TEST(DeviceCodegen, DefaultSettingsChangeNothing) {
  {
    DeviceCodegenScope scope(withSink(true));
    EXPECT_FALSE(machineSinkDisabled());
  }
  // Given on the command line: left as given, during and after.
  setDisableMachineSink(true);
  {
    DeviceCodegenScope scope(withSink(true));
    EXPECT_TRUE(machineSinkDisabled());
  }
  {
    DeviceCodegenScope scope(withSink(false));
    EXPECT_TRUE(machineSinkDisabled());
  }
  EXPECT_TRUE(machineSinkDisabled());
  setDisableMachineSink(false);
}

TEST(DeviceCodegen, OtherSettingsWaitForTheHolders) {
  std::atomic<bool> released{false}, entered{false};
  auto holder = std::make_unique<DeviceCodegenScope>(withSink(false));
  std::thread other([&] {
    DeviceCodegenScope scope(withSink(true));
    // Only after the first scope went away, with MachineSink back on.
    entered = true;
    EXPECT_TRUE(released.load());
    EXPECT_FALSE(machineSinkDisabled());
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(entered.load());
  EXPECT_TRUE(machineSinkDisabled());
  released = true;
  holder.reset();
  other.join();
  EXPECT_TRUE(entered.load());
  EXPECT_FALSE(machineSinkDisabled());
}
} // namespace
