//===- Recovery.h - going on without a lost device --------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A GPU can fail mid-run (a lost device, an ECC error, a launch that does
// not come back). While more than one device runs and a GPU is among them,
// the recovery policy keeps a host copy of every GPU's cells after each
// wave. When a device fails a wave, the others finish theirs; a survivor
// (the CPU pool when there is one) then recomputes the lost device's cells
// for that wave from the host copy of its start, recording their samples
// as the lost device would have; the lost device is dropped and the cells
// are split over the others. Each cell is computed by the same steps from
// the same state, so with the same variant everywhere the results are
// bit-identical to a run without the failure.
//
// A tissue's steps couple the cells (diffusion), so a tissue in one
// process asks for step copies instead: while a GPU holds cells and
// another device is in play, every step starts from a host copy of every
// cell (StepCopy). A GPU failing anywhere in the step (its wave, a halo,
// a diffusion sub-step, a copy) is dropped, every cell goes back to the
// copy on the others, and the tissue runs the step again.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SCHEDULE_RECOVERY_H
#define EASYML_RUNTIME_SCHEDULE_RECOVERY_H

#include "easyml/Runtime/Schedule/DeviceTeam.h"
#include "easyml/Runtime/Schedule/StepCopy.h"

#include <string>
#include <vector>

namespace easyml::rt {

class Partitioner;

class RecoveryPolicy {
public:
  /// `enabled`: SimulationOptions::recover.
  RecoveryPolicy(DeviceTeam &team, Partitioner &partitioner, bool enabled);

  /// Whether a lost GPU's cells can be recomputed now (host copies kept).
  bool armed() const;

  //===--- A tissue's steps --------------------------------------------===//
  /// Step copies instead of the waves' host copies (a tissue's steps).
  void useStepCopies(bool on) { stepCopies_ = on; }
  bool stepCopies() const { return stepCopies_; }
  /// Where step copies are armed, the copy of the team's step unless it is
  /// held; false (the team's failure) when a device fails to give its
  /// cells.
  bool keepStepCopy();
  /// Whether the copy holds the team's step.
  bool stepCopyHeld() const {
    return stepCopies_ && stepCopy_.holds(team_.step);
  }
  /// The host wrote states or externals: the copy no longer holds them.
  void forgetStepCopy() { stepCopy_.forget(); }
  /// The host wrote new biomarker accumulators (a beat closed, every
  /// device given them): the copy takes them.
  void accumulatorsWritten() { stepCopy_.takeAccumulators(); }
  /// After the team failed in the step that started at `step`: where a
  /// GPU's call failed, the copy holds that step and another device is in
  /// play, the GPU is dropped (a record in the report), the failure
  /// cleared, and every cell goes back to the copy, split over the others
  /// by their speeds. False where it cannot be: the failure stays, or a
  /// device failing while the cells go back made a new one (which a
  /// second call may recover from).
  bool recoverStep(int64_t step);

  /// Before a compute wave: the GPUs' cells' externals on the host (the
  /// wave's start), which a copy failing after it puts back.
  void saveWaveStartExternals();
  /// After a wave: the GPUs' cells to the host, the copy a recovery starts
  /// from. A device whose copy fails is put in `copyLost` (its error in
  /// `copyErrs`) with the host's copy of the wave's start restored.
  bool keepHostCopies(std::vector<int> &copyLost,
                      std::vector<std::string> &copyErrs);
  /// keepHostCopies, with a device whose copy fails recovered at once;
  /// after a recovery, the survivors' copies again.
  bool keepHostCopies(const WaveTask &task);
  /// Devices `lostNow` failed the wave `task` (errs): recompute their cells
  /// on a survivor, drop them, split the cells over the others. False
  /// (with the team's failure) when that cannot be done.
  /// `survivorsCounted`: the others' counters of the wave are counted.
  bool recoverWave(const WaveTask &task, const std::vector<int> &lostNow,
                   const std::vector<std::string> &errs,
                   std::vector<WaveTiming> &timing,
                   bool survivorsCounted = false);
  /// Device `i` failed while taking its cells of `next` (out of memory as
  /// its share grew, a failed copy): with every device's cells current on
  /// the host, drop it and move to a split over the others; else fail.
  bool dropFromMove(int i, const std::vector<CellRange> &next,
                    const std::string &why, const std::string &error);
  /// Device `i` failed a copy between waves (`why`: biomarker
  /// accumulators at a beat): its queue drained, dropped as above.
  bool dropBetweenWaves(int i, const std::string &why,
                        const std::string &error);

private:
  /// Armed with the waves' host copies (not a tissue's step copies).
  bool waveCopies() const { return !stepCopies_ && armed(); }
  /// Every cell back to the copy of `step` on `survivors`, split by their
  /// speeds.
  bool restoreStep(const std::vector<int> &survivors, const std::string &why,
                   int64_t step);
  bool rescue(Device &x, CellRange cells, const WaveTask &task,
              WaveTiming &timing, std::string &error);
  /// Device `f` is dropped for good: it holds nothing, is never called.
  void drop(int f);
  /// The devices in play ("cpu+cuda:0").
  std::string inPlay() const;

  DeviceTeam &team_;
  Partitioner &partitioner_;
  bool enabled_;
  /// Per device: its cells' externals on the host at the wave's start and
  /// the cells they are of (saveWaveStartExternals).
  std::vector<std::vector<double>> extCopy_;
  std::vector<CellRange> extCopyRange_;
  bool stepCopies_ = false;
  StepCopy stepCopy_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SCHEDULE_RECOVERY_H
