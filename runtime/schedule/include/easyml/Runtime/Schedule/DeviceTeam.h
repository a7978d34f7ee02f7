//===- DeviceTeam.h - the devices of a run and the cells each holds -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The devices one simulation runs on, which cells each holds and whether
// the host's copy of them is current: the state the time loop, the wave
// executor, the partitioner and the recovery policy share. The team owns
// the data movement between the host store and the devices (bringing
// cells to the host, sending back what the host wrote, moving cells from
// one device to another) and keeps the run's first failure.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SCHEDULE_DEVICETEAM_H
#define EASYML_RUNTIME_SCHEDULE_DEVICETEAM_H

#include "easyml/Runtime/Core/CellStore.h"
#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Schedule/Report.h"
#include "easyml/Runtime/Support/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

/// The devices a simulation may use, opened.
struct DeviceSet {
  /// CPU pools first (when any), then GPUs in request order.
  std::vector<std::unique_ptr<Device>> devices;
  /// The CPU pools; `cpu` is the first (the one dimensioning adds).
  std::vector<int> cpus;
  std::vector<bool> cpuThreadsGiven;
  int cpu = -1;
  std::vector<int> gpus;
  /// Devices in use at the start (all requested; auto: decided later).
  std::vector<int> initial;
  bool automatic = false;
};

/// The outcome of moving cells between devices (DeviceTeam::move).
struct MoveResult {
  bool ok = true;
  /// The device that failed to take its new cells (-1: none), and why.
  /// The caller decides whether the run goes on without it.
  int failedDevice = -1;
  std::string error;
};

class DeviceTeam {
public:
  DeviceTeam(const easyml_model_desc &desc, CellStore &store,
             RunReport &report);

  /// Takes the opened devices and binds each to the store; an error
  /// naming the device when one cannot be.
  Status adopt(DeviceSet set);

  const easyml_model_desc &desc() const { return desc_; }
  CellStore &store() const { return store_; }
  RunReport &report() const { return report_; }
  DeviceSet &set() { return set_; }
  const DeviceSet &set() const { return set_; }
  const std::vector<std::unique_ptr<Device>> &devices() const {
    return set_.devices;
  }
  Device &device(int i) const { return *set_.devices[i]; }
  int size() const { return static_cast<int>(set_.devices.size()); }

  /// Per device: its cells (empty: none), its measured speed in
  /// cell-steps/s (0: not known), whether it is lost for good, and whether
  /// the host holds a copy of its cells as of the current step.
  std::vector<CellRange> ranges;
  std::vector<double> speeds;
  std::vector<char> lost, hostCopy;
  /// Ranges start on multiples of this (the devices' largest alignment),
  /// but where two host devices sharing waves met.
  int64_t align = kCellAlignment;
  /// The step the cells are at.
  int64_t step = 0;
  /// Biomarker accumulators travel with the cells.
  bool bio = false;
  /// Compute waves keep the externals on the devices (a tissue's steps).
  bool keepExternals = false;
  /// The model's counters, summed over every wave.
  std::vector<int64_t> counters;
  /// Measured seconds per byte of earlier moves (0: none yet).
  double moveSecondsPerByte = 0;

  /// The devices holding cells.
  std::vector<int> active() const;
  /// The first device holding cells (or the first device).
  Device *firstActive() const;

  //===--- The first failure -----------------------------------------===//
  /// Records the failure of `device` (the first only); false.
  bool fail(const Device &device, const std::string &what);
  /// Records a failure not made by a device (the first only); false.
  bool fail(const std::string &what);
  const std::string &failure() const { return failure_; }
  /// The index of the device whose call made the failure (-1: none), and
  /// what failed without the device's description.
  int failedIndex() const { return failedIndex_; }
  const std::string &failedCall() const { return failedCall_; }
  bool usable() const { return failure_.empty(); }
  /// Forgets the failure: the run went on without the device that made it
  /// (RecoveryPolicy::recoverStep).
  void clearFailure();

  //===--- Host and device copies ------------------------------------===//
  /// States, externals and parameter values the host wrote since the
  /// devices `act` last had them, uploaded.
  bool refresh(const std::vector<int> &act);
  /// Per-cell parameter values changed on the host.
  void paramValuesWritten() { paramValuesStale_ = true; }
  /// Every device was sent its cells' parameter values.
  void paramValuesSent() { paramValuesStale_ = false; }
  /// The host store holds every device's newest states afterwards.
  bool syncStates();
  /// The host store holds every device's newest externals afterwards.
  bool syncExternals();
  /// The host store's states were written: devices reload them.
  void statesWritten();
  /// Moves cells so device d holds next[d] (empty: none), recorded in the
  /// report as a repartition at `atStep` for `why`.
  MoveResult move(const std::vector<CellRange> &next, const std::string &why,
                  double imbalance, int64_t atStep);
  /// Ranges over devices `act` from the speeds known so far.
  std::vector<CellRange> splitFor(const std::vector<int> &act) const;

  //===--- A tissue's diffusion (TeamDiffusion.cpp) ------------------===//
  /// One diffusion sub-step of a tissue on every active device over its
  /// range: sendHalos() (Device::sendHalo; `always`: even with one
  /// device, for a neighbour rank), then diffuse() (Device::diffuse and
  /// finishDiffusion).
  bool sendHalos(const DiffusionTask &task, bool always);
  bool diffuse(const DiffusionTask &task);
  /// Seconds sendHalos() spent bringing halos to the host.
  double haloSeconds() const { return haloSeconds_; }
  /// A tissue's activation pass on the devices (DeviceActivation): every
  /// device brings what it keeps of the arrays to the host (`keep`: and
  /// keeps it), or forgets it.
  bool releaseActivation(bool keep);
  void dropActivation();

private:
  const easyml_model_desc &desc_;
  CellStore &store_;
  RunReport &report_;
  DeviceSet set_;
  std::string failure_, failedCall_;
  int failedIndex_ = -1;
  bool paramValuesStale_ = false;
  double haloSeconds_ = 0;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SCHEDULE_DEVICETEAM_H
