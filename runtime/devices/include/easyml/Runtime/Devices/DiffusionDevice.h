//===- DiffusionDevice.h - a device that runs a tissue's diffusion -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What a device does for a tissue besides its cells' ionic waves: one
// explicit diffusion sub-step over its range (DiffusionTask), a tissue
// step fused with a one-step wave (FusedStep), and the activation pass on
// the arrays it keeps (DeviceActivation). A Device that can offers this
// interface through Device::diffusion().
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_DEVICES_DIFFUSIONDEVICE_H
#define EASYML_RUNTIME_DEVICES_DIFFUSIONDEVICE_H

#include "easyml/Runtime/Devices/Device.h"

#include <string>

namespace easyml::rt {

class DiffusionDevice {
public:
  virtual ~DiffusionDevice() = default;

  /// A tissue's diffusion sub-step (DiffusionTask), in three calls made on
  /// every device in turn: sendHalo() brings the boundary planes of the
  /// range's Vm to the host; diffuse() starts the sub-step (a device
  /// computing in the host store writes task.hostOut); finishDiffusion()
  /// waits for it and leaves the range's new Vm on the device (and on the
  /// host if task.downloadVm; host devices copy hostOut into hostVm).
  /// False with `error` when the device cannot.
  virtual bool sendHalo(const DiffusionTask &task, std::string &error) = 0;
  virtual bool diffuse(const DiffusionTask &task, std::string &error) = 0;
  virtual bool finishDiffusion(const DiffusionTask &task,
                               std::string &error) = 0;
  /// The device runs a WaveTask's `fused` step (FusedStep).
  virtual bool fusesDiffusion() const { return false; }
  /// Brings the part of a DeviceActivation's arrays the device keeps to
  /// the host and stops keeping it (before cells move, before the host
  /// reads or writes them). `keep`: the device keeps its copy, which
  /// stays valid (the host only reads).
  virtual bool releaseActivation(bool keep, std::string &error) {
    (void)keep;
    (void)error;
    return true;
  }
  /// Forgets the part it keeps (the host wrote the arrays).
  virtual void dropActivation() {}
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_DEVICES_DIFFUSIONDEVICE_H
