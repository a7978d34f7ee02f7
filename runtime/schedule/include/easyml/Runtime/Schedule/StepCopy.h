//===- StepCopy.h - every cell on the host as of one step -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A host copy of every cell of a DeviceTeam as of one step: the states,
// the externals and the biomarker accumulators, apart from the host store
// that the CPU pools compute in and that a tissue's diffusion writes. A
// tissue's step that a GPU fails starts again from it (RecoveryPolicy).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SCHEDULE_STEPCOPY_H
#define EASYML_RUNTIME_SCHEDULE_STEPCOPY_H

#include "easyml/Runtime/Schedule/DeviceTeam.h"

#include <cstdint>
#include <vector>

namespace easyml::rt {

class StepCopy {
public:
  explicit StepCopy(DeviceTeam &team) : team_(team) {}

  /// Whether the copy holds the cells as of `step`.
  bool holds(int64_t step) const { return step_ >= 0 && step_ == step; }
  /// The host wrote cells: the copy no longer holds them.
  void forget() { step_ = -1; }

  /// Brings the rows the devices hold newer to the host store and copies
  /// every cell as of the team's step. False (the team's failure, naming
  /// the device) when a device fails to give its cells: the copy held
  /// before stays.
  bool take();
  /// The host wrote new biomarker accumulators (a beat closed): the copy
  /// takes them where it holds the team's step.
  void takeAccumulators();
  /// Puts every cell back in the host store as of the copy, and the team
  /// at its step.
  void restore();
  /// Bytes of the copy.
  double bytes() const { return rows_.size() * sizeof(double); }

private:
  /// The host rows a copy holds: states, externals, accumulators.
  std::vector<double *> hostRows(bool states, bool bio) const;

  DeviceTeam &team_;
  std::vector<double> rows_;
  int64_t step_ = -1;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SCHEDULE_STEPCOPY_H
