//===- ScheduleTest.cpp - device team, partitioner, recovery, waves ------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The schedule layer's jobs on fake devices: how the team splits and moves
// cells, the partitioner's first split and its errors, when the recovery
// policy is armed, a wave that goes on after a GPU fails, and a tissue's
// step that goes back to its copy without the GPU.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/DeviceTeam.h"
#include "easyml/Runtime/Schedule/Partitioner.h"
#include "easyml/Runtime/Schedule/Recovery.h"
#include "easyml/Runtime/Schedule/WaveExecutor.h"

#include <gtest/gtest.h>

#include <memory>

using namespace easyml::rt;

namespace {

easyml_model_desc fakeModel() {
  easyml_model_desc d{};
  d.name = "fake";
  d.num_states = 2;
  d.sv_size = 2;
  d.sv_rows = 2;
  d.num_externals = 1;
  d.vm_index = 0;
  return d;
}

/// A device that computes nothing and can be told to fail.
class FakeDevice final : public Device {
public:
  FakeDevice(std::string id, Backend kind, const easyml_model_desc &desc,
             const easyml_variant &variant)
      : Device(std::move(id), desc, variant), kind_(kind) {}

  Backend kind() const override { return kind_; }
  std::string description() const override { return "fake " + id(); }
  int64_t alignment() const override { return 1; }
  bool runsOnHost() const override { return kind_ == Backend::Cpu; }
  bool sharesHostStore() const override { return kind_ == Backend::Cpu; }
  bool bind(CellStore &, std::string &) override { return true; }
  bool setUniforms(const std::vector<double> &, const std::vector<double> &,
                   const std::vector<double> &, std::string &) override {
    return true;
  }
  bool own(CellRange range, std::string &error) override {
    if (failOwn && !range.empty())
      return error = "out of memory", false;
    range_ = range;
    return true;
  }
  bool upload(CellRange r, unsigned, std::string &) override {
    bytesToDevice += 8.0 * r.size();
    return true;
  }
  bool download(CellRange r, unsigned, std::string &) override {
    bytesToHost += 8.0 * r.size();
    return true;
  }
  bool launch(const WaveTask &, std::string &error) override {
    ++launches;
    if (failLaunch)
      return error = "device lost", false;
    return true;
  }
  bool wait(WaveTiming &timing, std::string &) override {
    timing.seconds = 1e-3;
    return true;
  }
  bool diagnose(const WaveTask &, NonFinite &, std::string &) override {
    return true;
  }

  bool failOwn = false, failLaunch = false;
  int launches = 0;

private:
  Backend kind_;
};

/// A team of fake devices over `cells` cells: a CPU pool first when
/// `cpu`, then `gpus` GPUs, all in use.
struct Fixture {
  easyml_model_desc desc = fakeModel();
  easyml_variant variant{};
  RunReport report;
  Timeline timeline;
  std::unique_ptr<CellStore> store;
  std::unique_ptr<DeviceTeam> team;

  Fixture(int64_t cells, bool cpu, int gpus) {
    store = std::make_unique<CellStore>(desc, cells);
    team = std::make_unique<DeviceTeam>(desc, *store, report);
    DeviceSet set;
    if (cpu) {
      set.cpu = 0;
      set.cpus.push_back(0);
      set.cpuThreadsGiven.push_back(false);
      set.devices.push_back(
          std::make_unique<FakeDevice>("cpu", Backend::Cpu, desc, variant));
    }
    for (int g = 0; g < gpus; ++g) {
      set.gpus.push_back(static_cast<int>(set.devices.size()));
      set.devices.push_back(std::make_unique<FakeDevice>(
          "cuda:" + std::to_string(g), Backend::Cuda, desc, variant));
    }
    for (size_t i = 0; i < set.devices.size(); ++i)
      set.initial.push_back(static_cast<int>(i));
    EXPECT_TRUE(team->adopt(std::move(set)).ok());
    for (auto &device : team->devices())
      report.devices.push_back({device->id(), device->description()});
  }
  FakeDevice &device(int i) {
    return static_cast<FakeDevice &>(team->device(i));
  }
};

TEST(DeviceTeam, SplitsByMeasuredSpeeds) {
  Fixture f(1000, /*cpu=*/true, /*gpus=*/2);
  f.team->speeds = {1, 3, 0};
  f.team->align = 1; // the partitioner's choice (the devices' largest)
  // The unmeasured device counts as the mean of the measured ones (2).
  std::vector<CellRange> r = f.team->splitFor({0, 1, 2});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].size() + r[1].size() + r[2].size(), 1000);
  EXPECT_NEAR(static_cast<double>(r[1].size()) / r[0].size(), 3.0, 0.05);
  EXPECT_NEAR(static_cast<double>(r[2].size()) / r[0].size(), 2.0, 0.05);
}

TEST(DeviceTeam, MoveRecordsTheRepartition) {
  Fixture f(100, /*cpu=*/true, /*gpus=*/1);
  f.team->ranges = {{0, 50}, {50, 100}};
  MoveResult m = f.team->move({{0, 80}, {80, 100}}, "test", 0.25, 7);
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(f.team->ranges[0], (CellRange{0, 80}));
  EXPECT_EQ(f.device(1).range(), (CellRange{80, 100}));
  ASSERT_EQ(f.report.repartitions.size(), 1u);
  EXPECT_EQ(f.report.repartitions[0].step, 7);
  EXPECT_EQ(f.report.repartitions[0].reason, "test");
}

TEST(DeviceTeam, MoveNamesTheDeviceThatCannotTakeItsCells) {
  Fixture f(100, /*cpu=*/true, /*gpus=*/1);
  f.team->ranges = {{0, 50}, {50, 100}};
  f.device(1).failOwn = true;
  MoveResult m = f.team->move({{0, 20}, {20, 100}}, "test", 0, 0);
  EXPECT_FALSE(m.ok);
  EXPECT_EQ(m.failedDevice, 1);
  EXPECT_EQ(m.error, "out of memory");
  // The caller decides: the team records no failure of its own.
  EXPECT_TRUE(f.team->usable());
}

TEST(Partitioner, SharesMustMatchTheDevices) {
  Fixture f(100, /*cpu=*/true, /*gpus=*/1);
  PartitionOptions o;
  o.shares = {1, 1, 1};
  Partitioner p(*f.team, f.timeline, o);
  Status s = p.start();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.kind(), ErrorKind::Invalid);
  EXPECT_EQ(s.message(), "3 shares given for 2 devices");
}

TEST(Partitioner, FirstSplitFollowsTheShares) {
  Fixture f(100, /*cpu=*/true, /*gpus=*/1);
  PartitionOptions o;
  o.shares = {1, 3};
  Partitioner p(*f.team, f.timeline, o);
  ASSERT_TRUE(p.start().ok());
  EXPECT_EQ(f.device(0).range().size(), 25);
  EXPECT_EQ(f.device(1).range().size(), 75);
  EXPECT_EQ(p.working(), (std::vector<int>{0, 1}));
}

TEST(Partitioner, AMoveFailureGoesToItsHandler) {
  Fixture f(100, /*cpu=*/true, /*gpus=*/1);
  Partitioner p(*f.team, f.timeline, PartitionOptions());
  ASSERT_TRUE(p.start().ok());
  f.device(1).failOwn = true;
  int handled = -1;
  p.onMoveFailure([&](int i, const std::vector<CellRange> &,
                      const std::string &, const std::string &) {
    handled = i;
    return true;
  });
  EXPECT_TRUE(p.moveTo({{0, 10}, {10, 100}}, "test", 0));
  EXPECT_EQ(handled, 1);
}

TEST(RecoveryPolicy, ArmedOnlyWithAGpuAmongSeveralDevices) {
  Fixture one(100, /*cpu=*/true, /*gpus=*/0);
  Partitioner p1(*one.team, one.timeline, PartitionOptions());
  ASSERT_TRUE(p1.start().ok());
  EXPECT_FALSE(RecoveryPolicy(*one.team, p1, true).armed());

  Fixture two(100, /*cpu=*/true, /*gpus=*/1);
  Partitioner p2(*two.team, two.timeline, PartitionOptions());
  ASSERT_TRUE(p2.start().ok());
  EXPECT_TRUE(RecoveryPolicy(*two.team, p2, true).armed());
  EXPECT_FALSE(RecoveryPolicy(*two.team, p2, false).armed());
  // Waves that keep the externals on the GPUs leave no host copy.
  two.team->keepExternals = true;
  EXPECT_FALSE(RecoveryPolicy(*two.team, p2, true).armed());
  // A tissue's step copies go with them, and with a GPU holding every
  // cell while another device is in play.
  RecoveryPolicy steps(*two.team, p2, true);
  steps.useStepCopies(true);
  EXPECT_TRUE(steps.armed());
  two.team->ranges = {{}, {0, 100}};
  EXPECT_TRUE(steps.armed());
  two.team->ranges = {{0, 100}, {}};
  EXPECT_FALSE(steps.armed());
}

TEST(RecoveryPolicy, AStepAGpuFailsGoesBackToItsCopyWithoutIt) {
  Fixture f(100, /*cpu=*/true, /*gpus=*/1);
  Partitioner p(*f.team, f.timeline, PartitionOptions());
  ASSERT_TRUE(p.start().ok());
  RecoveryPolicy recovery(*f.team, p, true);
  recovery.useStepCopies(true);
  f.team->keepExternals = true;
  f.team->step = 5;
  CellStore &store = *f.store;
  for (int64_t c = 0; c < 100; ++c)
    store.sv(0)[c] = store.ext(0)[c] = static_cast<double>(c);
  ASSERT_TRUE(recovery.keepStepCopy());
  EXPECT_TRUE(recovery.stepCopyHeld());
  // The step writes the host's cells (the CPU pool computes there), then
  // the GPU fails after the team reached the next step.
  for (int64_t c = 0; c < 100; ++c)
    store.sv(0)[c] = store.ext(0)[c] = -1;
  f.team->step = 6;
  f.team->fail(f.device(1), "kernel diffuse on points [50, 100): failed");
  // Another step's copy, or none, cannot be gone back to.
  EXPECT_FALSE(recovery.recoverStep(4));
  ASSERT_TRUE(recovery.recoverStep(5)) << f.team->failure();
  EXPECT_TRUE(f.team->usable());
  EXPECT_EQ(f.team->step, 5);
  EXPECT_TRUE(f.team->lost[1]);
  EXPECT_EQ(f.team->ranges[0], (CellRange{0, 100}));
  EXPECT_EQ(store.sv(0)[70], 70);
  EXPECT_EQ(store.ext(0)[99], 99);
  ASSERT_EQ(f.report.recoveries.size(), 1u);
  EXPECT_EQ(f.report.recoveries[0].device, "cuda:0");
  EXPECT_EQ(f.report.recoveries[0].step, 5);
  EXPECT_EQ(f.report.recoveries[0].survivors, "cpu");
  EXPECT_TRUE(f.report.recoveries[0].wholeStep);
  // The CPU pool alone: nothing to keep copies for, nor to go on with.
  EXPECT_FALSE(recovery.armed());
  f.team->fail(f.device(0), "failed");
  EXPECT_FALSE(recovery.recoverStep(5));
}

TEST(WaveExecutor, ALostGpuIsRecomputedAndDropped) {
  Fixture f(100, /*cpu=*/true, /*gpus=*/1);
  Partitioner p(*f.team, f.timeline, PartitionOptions());
  ASSERT_TRUE(p.start().ok());
  RecoveryPolicy recovery(*f.team, p, true);
  p.onMoveFailure([&](int i, const std::vector<CellRange> &next,
                      const std::string &why, const std::string &error) {
    return recovery.dropFromMove(i, next, why, error);
  });
  WaveExecutor executor(*f.team, p, recovery);
  WaveTask task;
  task.entry = Entry::Compute;
  task.nsteps = 10;
  // A first wave leaves the host a copy of the GPU's cells.
  ASSERT_TRUE(executor.run(task));
  ASSERT_TRUE(f.team->hostCopy[1]);
  f.device(1).failLaunch = true;
  task.step0 = 10;
  ASSERT_TRUE(executor.run(task)) << f.team->failure();
  ASSERT_EQ(f.report.recoveries.size(), 1u);
  EXPECT_EQ(f.report.recoveries[0].device, "cuda:0");
  EXPECT_EQ(f.report.recoveries[0].rescuer, "cpu");
  EXPECT_TRUE(f.team->lost[1]);
  EXPECT_EQ(f.team->ranges[0], (CellRange{0, 100}));
  EXPECT_TRUE(f.team->ranges[1].empty());
  EXPECT_EQ(p.working(), (std::vector<int>{0}));
}

} // namespace
