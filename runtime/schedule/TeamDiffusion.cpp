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
#include "easyml/Runtime/Support/Clock.h"

using namespace easyml::rt;

bool DeviceTeam::sendHalos(const DiffusionTask &task, bool always) {
  std::vector<int> act = active();
  std::string err;
  // A device's Vm is read where it lives: states the host wrote since
  // (cells that came from another rank) go there first.
  if (!refresh(act))
    return false;
  double t0 = monotonicSeconds();
  // One device has no neighbour to send a halo to, but another rank's.
  for (int i : act)
    if ((always || act.size() > 1) && !set_.devices[i]->runsOnHost() &&
        !set_.devices[i]->sendHalo(task, err))
      return fail(*set_.devices[i], err);
  haloSeconds_ += monotonicSeconds() - t0;
  return true;
}

bool DeviceTeam::diffuse(const DiffusionTask &task) {
  std::vector<int> act = active();
  if (!refresh(act))
    return false;
  std::string err;
  for (bool host : {false, true})
    for (int i : act)
      if (set_.devices[i]->runsOnHost() == host &&
          !set_.devices[i]->diffuse(task, err))
        return fail(*set_.devices[i], err);
  for (bool host : {false, true})
    for (int i : act)
      if (set_.devices[i]->runsOnHost() == host &&
          !set_.devices[i]->finishDiffusion(task, err))
        return fail(*set_.devices[i], err);
  return true;
}

bool DeviceTeam::releaseActivation(bool keep) {
  std::string err;
  for (int i = 0; i < size(); ++i)
    if (!lost[i] && !set_.devices[i]->releaseActivation(keep, err))
      return fail(*set_.devices[i], err);
  return true;
}

void DeviceTeam::dropActivation() {
  for (auto &device : set_.devices)
    device->dropActivation();
}
