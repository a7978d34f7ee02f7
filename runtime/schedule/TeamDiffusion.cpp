//===- TeamDiffusion.cpp - a tissue's diffusion on every device ----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A tissue's diffusion sub-step runs where each device's cells are: the
// GPUs' sub-steps are queued first, the host's devices compute while they
// run, then every device's result is left in place.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/DeviceTeam.h"
#include "easyml/Runtime/Devices/DiffusionDevice.h"
#include "easyml/Runtime/Support/Clock.h"

using namespace easyml::rt;

namespace {
/// Device `d`'s diffusion calls; a device without them fails `team`.
DiffusionDevice *diffusionOf(DeviceTeam &team, Device &d) {
  DiffusionDevice *x = d.diffusion();
  if (!x)
    team.fail(d, "it cannot run a tissue's diffusion");
  return x;
}
} // namespace

bool DeviceTeam::sendHalos(const DiffusionTask &task, bool always) {
  std::vector<int> act = active();
  std::string err;
  // A device's Vm is read where it lives: states the host wrote since
  // (cells that came from another rank) go there first.
  if (!refresh(act))
    return false;
  double t0 = monotonicSeconds();
  // One device has no neighbour to send a halo to, but another rank's.
  for (int i : act) {
    Device &device = *set_.devices[i];
    if (!(always || act.size() > 1) || device.runsOnHost())
      continue;
    DiffusionDevice *x = diffusionOf(*this, device);
    if (!x || !x->sendHalo(task, err))
      return fail(device, err);
  }
  haloSeconds_ += monotonicSeconds() - t0;
  return true;
}

bool DeviceTeam::diffuse(const DiffusionTask &task) {
  std::vector<int> act = active();
  if (!refresh(act))
    return false;
  std::string err;
  // GPUs first (their sub-steps queued), then the host's devices; then
  // every device's result in the same order.
  for (bool finish : {false, true})
    for (bool host : {false, true})
      for (int i : act) {
        Device &device = *set_.devices[i];
        if (device.runsOnHost() != host)
          continue;
        DiffusionDevice *x = diffusionOf(*this, device);
        if (!x || !(finish ? x->finishDiffusion(task, err)
                           : x->diffuse(task, err)))
          return fail(device, err);
      }
  return true;
}

bool DeviceTeam::releaseActivation(bool keep) {
  std::string err;
  for (int i = 0; i < size(); ++i) {
    DiffusionDevice *x = set_.devices[i]->diffusion();
    if (!lost[i] && x && !x->releaseActivation(keep, err))
      return fail(*set_.devices[i], err);
  }
  return true;
}

void DeviceTeam::dropActivation() {
  for (auto &device : set_.devices)
    if (DiffusionDevice *x = device->diffusion())
      x->dropActivation();
}
