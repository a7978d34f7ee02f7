//===- StepRecovery.cpp - a tissue's step without a lost GPU --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The recovery policy's step copies (Recovery.h): a tissue's diffusion
// couples its cells, so a step that a GPU fails is not mended cell by
// cell; every cell goes back to the host copy of the step's start, on
// the devices left, and the tissue runs the step again. The devices
// compute the same bits, so the run is the one without the failure.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Schedule/Partitioner.h"
#include "easyml/Runtime/Schedule/Recovery.h"
#include "easyml/Runtime/Support/Clock.h"

using namespace easyml::rt;

bool RecoveryPolicy::keepStepCopy() {
  if (!stepCopies_ || !armed() || stepCopy_.holds(team_.step))
    return true;
  return stepCopy_.take();
}

bool RecoveryPolicy::recoverStep(int64_t step) {
  int f = team_.failedIndex();
  if (!enabled_ || !stepCopies_ || f < 0 || team_.lost[f] ||
      !team_.device(f).isGpu() || !stepCopy_.holds(step))
    return false;
  std::vector<int> survivors;
  for (int i : partitioner_.working())
    if (i != f)
      survivors.push_back(i);
  if (survivors.empty())
    return false;
  double t0 = monotonicSeconds();
  Device &lost = team_.device(f);
  RecoveryRecord record;
  record.device = lost.id();
  record.error = team_.failedCall();
  record.step = step;
  record.steps = 1;
  record.cells = team_.ranges[f].size();
  record.wholeStep = true;
  record.rescuer = "host copy";
  team_.clearFailure();
  // What the devices queued lands before the host's rows go back, and
  // none of them keeps a tissue's activation arrays.
  for (int i = 0; i < team_.size(); ++i)
    if (!team_.lost[i])
      team_.device(i).drain();
  team_.dropActivation();
  drop(f);
  partitioner_.forget(f);
  record.survivors = inPlay();
  RunReport &report = team_.report();
  size_t k = report.recoveries.size();
  report.recoveries.push_back(record);
  bool ok = restoreStep(survivors, lost.id() + " lost", step);
  report.recoveries[k].seconds = monotonicSeconds() - t0;
  return ok;
}

bool RecoveryPolicy::restoreStep(const std::vector<int> &survivors,
                                 const std::string &why, int64_t step) {
  // No device holds newer rows than the copy, nor does the host until it
  // is put back: a device failing to take its cells is not dropped from
  // the host's (the caller recovers from the copy again).
  for (int i = 0; i < team_.size(); ++i) {
    Device &device = team_.device(i);
    device.hostStale = device.externalsOnDevice = device.deviceStale = false;
    team_.hostCopy[i] = 0;
  }
  std::vector<CellRange> next(team_.size());
  std::vector<CellRange> split = team_.splitFor(survivors);
  for (size_t k = 0; k < survivors.size(); ++k)
    next[survivors[k]] = split[k];
  if (!partitioner_.moveTo(next, why, 0, step))
    return false;
  stepCopy_.restore();
  // The moves sent the host's rows of before: every device its whole
  // range again, from the copy.
  unsigned rows = kStateRows | kExternalRows | (team_.bio ? kBioRows : 0u);
  std::string err;
  for (int i : team_.active()) {
    Device &device = team_.device(i);
    if (!device.sharesHostStore() && !device.upload(device.range(), rows, err))
      return team_.fail(device, "putting its cells back as of the step's "
                                "start: " +
                                    err);
    team_.hostCopy[i] = 1;
  }
  partitioner_.restartBalancing();
  return team_.usable();
}
