//===- TissueCoupling.h - what a tissue needs of its cells ------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The diffusion coupling between a tissue and the cells a process holds,
// beyond SimulationInterface: the cells' Vm where it lives, and one
// explicit diffusion sub-step on the devices that hold them. A tissue
// depends on this interface and on SimulationInterface only; a process's
// Simulation provides it (SimulationInterface::coupling()), and the devices
// implement the sub-step itself (Device's diffusion calls).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_TISSUECOUPLING_H
#define EASYML_RUNTIME_SIMULATION_TISSUECOUPLING_H

#include "easyml/ABI/ABI.h"

#include <cstdint>
#include <string>
#include <vector>

namespace easyml::rt {

struct DiffusionTask;
struct FusedStep;

/// A device lost mid-run: its id, what failed, the step, and the devices
/// in play after it ("cpu+cuda:0").
struct DeviceLoss {
  std::string device, error, survivors;
  int64_t step = 0;
};

class TissueCoupling {
public:
  virtual ~TissueCoupling() = default;

  /// The variant the cells run (its compiled diffusion operator, if any).
  virtual const easyml_variant &variant() const = 0;
  /// The cells' Vm on the host (current where syncVm() was called since
  /// the last wave).
  virtual double *vm() = 0;

  /// Compute waves leave the externals on the GPUs (the host's Vm is stale
  /// between a wave and the diffusion sub-step that brings it back).
  virtual void keepExternalsOnDevices(bool keep) = 0;
  /// One explicit diffusion sub-step on every device over its cells:
  /// sendHalos() brings the devices' boundary planes to the host
  /// (`always`: even from a single device, for neighbour ranks), diffuse()
  /// runs it. False with the simulation's failure() when a device fails.
  virtual bool sendHalos(const DiffusionTask &task, bool always = false) = 0;
  virtual bool diffuse(const DiffusionTask &task) = 0;
  /// Seconds sendHalos() has spent bringing halos to the host so far.
  virtual double haloSeconds() const = 0;

  /// The activation pass on the devices that keep Vm (a DiffusionTask's
  /// DeviceActivation): releaseActivation() brings what the devices keep
  /// of its arrays to the host (`keep`: they keep it too, for a host that
  /// only reads), dropActivation() makes them forget it (the host wrote
  /// the arrays), syncVm() brings Vm, which such steps leave on the
  /// devices, to the host.
  virtual bool releaseActivation(bool keep) = 0;
  virtual void dropActivation() = 0;
  virtual bool syncVm() = 0;

  /// Seconds the last step spent outside its ionic wave (diffusion, halos,
  /// activation pass): `auto`'s measuring windows count them, so that they
  /// compare device sets by whole steps.
  virtual void addStepSeconds(double seconds) = 0;
  /// A tissue step in one pass (FusedStep): where canFuse() holds when a
  /// one-step compute wave starts, the wave runs `step` (null: no longer),
  /// and lastWaveFused() says so after it.
  virtual void fuseDiffusion(FusedStep *step) = 0;
  virtual bool canFuse() const = 0;
  virtual bool lastWaveFused() const = 0;

  /// A lost GPU (one process). With `keep`, while a GPU holds cells and
  /// another device is in play (stepCopiesArmed()), a step can start
  /// again from a host copy of every cell as of its start: keepStepCopy()
  /// takes it (`held`: a copy of the current step is held afterwards;
  /// false with failure() when a device fails to give its cells), and
  /// after a failure in the step that started at `step`, recoverStep()
  /// drops the GPU whose call failed and puts every cell back as of that
  /// copy on the other devices, to run the step again (false where it
  /// cannot: the failure stays). lostDevices(): every device the run went
  /// on without so far.
  virtual void keepStepCopies(bool keep) = 0;
  virtual bool stepCopiesArmed() const = 0;
  virtual bool keepStepCopy(bool &held) = 0;
  virtual bool recoverStep(int64_t step) = 0;
  virtual std::vector<DeviceLoss> lostDevices() = 0;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_TISSUECOUPLING_H
