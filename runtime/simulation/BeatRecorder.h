//===- BeatRecorder.h - per-cell biomarkers, beat by beat -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The devices accumulate each cell's beat (resting and peak Vm, upstroke
// and repolarisation times, calcium) in rows of the cell store; at every
// stimulus onset the recorder brings them to the host, turns them into a
// row of the biomarker table per cell (docs/biomarkers.md) and starts the
// next beat with fresh accumulators.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_BEATRECORDER_H
#define EASYML_RUNTIME_LIB_BEATRECORDER_H

#include "StepObserver.h"

#include "easyml/Runtime/Core/Timeline.h"
#include "easyml/Runtime/Schedule/DeviceTeam.h"
#include "easyml/Runtime/Schedule/Recovery.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <string>
#include <vector>

namespace easyml::rt {

class BeatRecorder : public StepObserver {
public:
  BeatRecorder(DeviceTeam &team, RecoveryPolicy &recovery,
               const Timeline &timeline, const double &dt);

  /// Starts recording at the team's step; false with `error` when the
  /// model cannot give biomarkers.
  bool enable(const BiomarkerOptions &options, std::string &error);
  bool on() const { return team_.bio; }
  /// Closes the beat at the team's step: accumulators to rows (unless
  /// `keep` is false), then reset.
  bool close(bool keep = true);
  /// A stimulus onset closes the beat before it (the time before the first
  /// stimulus is not a beat).
  bool beforeStep(int64_t step, std::string &error) override;

  BiomarkerTable &table() { return table_; }
  int64_t beat() const { return beat_; }
  int64_t beatStart() const { return beatStart_; }
  void setClock(int64_t beat, int64_t beatStart) {
    beat_ = beat;
    beatStart_ = beatStart;
  }
  /// Per cell: the last two beats' APD90 and its last change (alternans).
  std::vector<double> &lastApd90() { return lastApd90_; }
  std::vector<double> &lastChange() { return lastChange_; }

private:
  /// Reset accumulators to the devices at a beat.
  bool uploadNewAccumulators(const std::string &why, std::string &err);

  DeviceTeam &team_;
  RecoveryPolicy &recovery_;
  const Timeline &timeline_;
  const double &dt_;
  BiomarkerOptions options_;
  BiomarkerTable table_;
  int64_t beat_ = 0, beatStart_ = 0;
  std::vector<double> lastApd90_, lastChange_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_BEATRECORDER_H
