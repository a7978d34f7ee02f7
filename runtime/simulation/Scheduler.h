//===- Scheduler.h - the time loop of a simulation --------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The engine behind Simulation: the time loop. It owns the host cell store,
// the parameters and lookup tables, the protocol (stimuli, events, what to
// record) and the jobs it hands each wave to: the DeviceTeam (the devices
// and which cells each holds), the WaveExecutor (one wave on every device
// at once), the Partitioner (the split and how long a wave may be) and the
// RecoveryPolicy (going on without a lost GPU). Studies that follow the
// run (biomarker beats, a tissue) are StepObservers.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_SCHEDULER_H
#define EASYML_RUNTIME_LIB_SCHEDULER_H

#include "BeatRecorder.h"
#include "StepObserver.h"

#include "easyml/Runtime/Core/Params.h"
#include "easyml/Runtime/Core/Timeline.h"
#include "easyml/Runtime/Schedule/DeviceTeam.h"
#include "easyml/Runtime/Schedule/Partitioner.h"
#include "easyml/Runtime/Schedule/Recovery.h"
#include "easyml/Runtime/Schedule/WaveExecutor.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

class Scheduler {
public:
  Scheduler(const ModelHandle &model, int64_t cells,
            const SimulationOptions &options);
  ~Scheduler();

  const SimulationOptions &options() const { return options_; }
  const std::string &setupError() const { return setupError_; }
  const std::string &failure() const { return team_.failure(); }
  bool usable() const { return setupError_.empty() && team_.usable(); }

  CellStore &store() { return *store_; }
  DeviceTeam &team() { return team_; }
  const std::vector<std::unique_ptr<Device>> &devices() const {
    return team_.devices();
  }
  std::vector<int> active() const { return team_.active(); }
  Device *firstActive() const { return team_.firstActive(); }

  //===--- Parameters ------------------------------------------------===//
  ParamSet &params() { return params_; }
  /// Per params index: whether the user gave a per-cell row.
  std::vector<bool> &userRows() { return userRows_; }
  /// Shared values or per-cell rows given by the user changed: the rows of
  /// derived parameters follow.
  void paramsChanged();
  /// Per-cell parameter values changed on the host.
  void paramValuesWritten() { team_.paramValuesWritten(); }

  //===--- The time loop ---------------------------------------------===//
  bool initialize(double dt);
  double dt() const { return dt_; }
  int64_t step() const { return team_.step; }
  /// One wave (or init/eval) on every active device.
  bool runWave(const WaveTask &task);
  bool run(int64_t until);
  /// Before this step, stretches a whole-cell model crosses as one
  /// interval (Simulation::spanIntervalsUntil).
  void spanIntervalsUntil(int64_t step) { spanUntil_ = step; }
  /// Stimuli, events and when to sample.
  Timeline &timeline() { return timeline_; }
  /// The recorded variables' plan and where samples go.
  void setRecording(RecordPlan plan, SimulationInterface::PartSampleFn fn);
  const RecordPlan &recordPlan() const { return recording_.plan; }
  /// Called after every wave with the step reached.
  void setProgress(std::function<void(int64_t)> progress) {
    progress_ = std::move(progress);
  }
  /// `observer` follows the run from now on (owned by the scheduler).
  void observe(std::unique_ptr<StepObserver> observer);
  /// Moves the clock (a restart): the step and the beat it is in.
  void setClock(int64_t step, int64_t beat, int64_t beatStart);
  const NonFinite *nonFinite() const { return executor_.nonFinite(); }
  BeatRecorder &beats() { return beats_; }

  //===--- A tissue's coupling ---------------------------------------===//
  /// Compute waves keep the externals on the GPUs (WaveTask), and a
  /// tissue's step to fuse with one-step compute waves where canFuse()
  /// (WaveTask::fused; null: none).
  void keepExternals(bool keep) { team_.keepExternals = keep; }
  void fuse(FusedStep *step) { fused_ = step; }
  /// One device computes every cell and fuses diffusion, and no
  /// dimensioning window may change that.
  bool canFuse() const;
  /// Whether the last compute wave fused the tissue's step.
  bool lastWaveFused() const { return lastWaveFused_; }
  /// Seconds a step spent outside its ionic wave (a tissue's diffusion
  /// step, halos and activation pass): dimensioning windows count them
  /// with the wave they follow, so device sets compare whole steps.
  void addStepSeconds(double seconds) { partitioner_.addStepSeconds(seconds); }
  /// One diffusion sub-step on every active device (DeviceTeam).
  bool sendHalos(const DiffusionTask &task, bool always) {
    return usable() && !nonFinite() && team_.sendHalos(task, always);
  }
  bool diffuse(const DiffusionTask &task) {
    return usable() && !nonFinite() && team_.diffuse(task);
  }
  double haloSeconds() const { return team_.haloSeconds(); }
  bool releaseActivation(bool keep) {
    return usable() && team_.releaseActivation(keep);
  }
  void dropActivation() { team_.dropActivation(); }
  bool syncExternals() { return team_.syncExternals(); }

  //===--- A tissue's lost GPU (RecoveryPolicy's step copies) ---------===//
  void keepStepCopies(bool keep) { recovery_.useStepCopies(keep); }
  bool stepCopiesArmed() const {
    return recovery_.stepCopies() && recovery_.armed();
  }
  bool keepStepCopy() { return usable() && recovery_.keepStepCopy(); }
  bool stepCopyHeld() const { return recovery_.stepCopyHeld(); }
  /// After a failure in the step that started at `step` (a value that is
  /// not finite is no device's failure).
  bool recoverStep(int64_t step) {
    return setupError_.empty() && !executor_.nonFinite() &&
           recovery_.recoverStep(step);
  }
  const std::vector<RecoveryRecord> &recoveries() const {
    return report_.recoveries;
  }

  //===--- Host copies and moving cells ------------------------------===//
  bool syncStates() { return team_.syncStates(); }
  void statesWritten() {
    team_.statesWritten();
    recovery_.forgetStepCopy();
  }
  /// Moving cells between simulations (Simulation::packCells).
  int64_t packedCellSize() const;
  bool packCells(CellRange cells, double *out);
  bool unpackCells(CellRange cells, const double *in);

  //===--- Threads and the report ------------------------------------===//
  void setThreads(int threads);
  int threads() const;
  const std::vector<int64_t> &counters() const { return team_.counters; }
  void setCounters(const std::vector<int64_t> &c) { team_.counters = c; }
  double gpuKernelMs() const { return executor_.gpuKernelMs(); }
  double computeSeconds() const { return executor_.computeSeconds(); }
  const std::vector<std::string> &tableWarnings() const {
    return tableWarnings_;
  }
  double tablesSeconds() const { return tablesSeconds_; }
  double initSeconds() const { return initSeconds_; }
  /// The report, its per-device figures brought up to date.
  RunReport &report();
  /// Measured speeds by device id.
  std::map<std::string, double> speeds() const;

private:
  void buildTables(double dt);
  /// Recomputes derived_ from params_ and dt_.
  void buildDerived();
  /// Parameter values changed on the host since the last wave: the
  /// devices' uniforms follow.
  bool uploadUniforms();
  int64_t spanEnd(int64_t stop) const;
  /// The compute wave from the current step to `end`, which the samples
  /// the recording buffer holds may bring closer.
  WaveTask computeTask(int64_t &end, bool span, Timeline::Samples &samples);
  bool stepOnce(int64_t until);
  bool notifyBeforeStep();
  bool notifyAfterStep();

  SimulationOptions options_;
  std::string setupError_;
  RunReport report_;
  std::unique_ptr<CellStore> store_;
  DeviceTeam team_;
  Timeline timeline_;
  Partitioner partitioner_;
  RecoveryPolicy recovery_;
  WaveExecutor executor_;
  BeatRecorder beats_;
  /// The observers in the order they came (the beat recorder first), and
  /// those the scheduler owns.
  std::vector<StepObserver *> observers_;
  std::vector<std::unique_ptr<StepObserver>> owned_;
  std::function<void(int64_t)> progress_;
  struct Recording {
    RecordPlan plan;
    SimulationInterface::PartSampleFn fn;
  } recording_;
  FusedStep *fused_ = nullptr;
  bool lastWaveFused_ = false;
  int64_t spanUntil_ = 0;
  ParamSet params_;
  std::vector<bool> userRows_;
  std::vector<int64_t> derivedRows_;
  std::vector<double> uploadedParams_, tables_;
  /// The model's derived values for params_ and dt_ (build_derived).
  std::vector<double> derived_;
  std::vector<std::string> tableWarnings_;
  double tablesSeconds_ = 0, initSeconds_ = 0;
  double dt_ = 0.01;
  bool initialized_ = false;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_SCHEDULER_H
