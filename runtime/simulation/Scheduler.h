//===- Scheduler.h - waves over a set of devices ---------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The engine behind Simulation: it owns the devices, the host cell store,
// the event schedule and the time loop. A wave runs on every active device
// at once (launch all, then join); after it the scheduler checks for
// non-finite values, feeds the balancer and moves the cells that change
// owner, and during dimensioning measures candidate device sets.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_SCHEDULER_H
#define EASYML_RUNTIME_LIB_SCHEDULER_H

#include "DeviceSelection.h"

#include "easyml/Runtime/Core/Params.h"
#include "easyml/Runtime/Simulation/Simulation.h"
#include "easyml/Runtime/Core/Timeline.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

class HostWorker;
class PhaseSpeeds;

class Scheduler {
public:
  Scheduler(const ModelHandle &model, int64_t cells,
            const SimulationOptions &options);
  ~Scheduler();

  const SimulationOptions &options() const { return options_; }
  const std::string &setupError() const { return setupError_; }
  const std::string &failure() const { return failure_; }
  /// The id of the device whose call made the failure, or "".
  const std::string &failedDevice() const { return failedDevice_; }
  bool failedDeviceGpu() const { return failedDeviceGpu_; }
  bool usable() const { return setupError_.empty() && failure_.empty(); }

  CellStore &store() { return *store_; }
  ParamSet &params() { return params_; }
  /// Per params index: whether the user gave a per-cell row.
  std::vector<bool> &userRows() { return userRows_; }
  /// The derived parameters that vary per cell now (their rows computed).
  const std::vector<int64_t> &derivedRows() const { return derivedRows_; }
  const easyml_model_desc &desc() const { return desc_; }
  const std::vector<std::unique_ptr<Device>> &devices() const {
    return set_.devices;
  }
  std::vector<int> active() const;
  /// The devices in play (all given, or those dimensioning chose) not
  /// lost, with cells or not.
  std::vector<int> working() const;
  Device *firstActive() const;

  bool initialize(double dt);
  double dt() const { return dt_; }
  int64_t step() const { return step_; }

  /// One wave (or init/eval) on every active device.
  bool runWave(const WaveTask &task);
  /// States, externals and parameter values the host wrote since the
  /// devices `act` last had them, uploaded.
  bool refreshDevices(const std::vector<int> &act);
  bool run(int64_t until);
  /// Before this step, stretches a whole-cell model crosses as one
  /// interval (Simulation::spanIntervalsUntil).
  int64_t spanUntil = 0;
  /// The step the current run() goes to.
  int64_t runUntil_ = -1;

  /// One diffusion sub-step of a tissue on every active device over its
  /// range: sendHalos() (Device::sendHalo; `always`: even with one
  /// device, for a neighbour rank), then diffuse() (Device::diffuse and
  /// finishDiffusion).
  bool sendHalos(const DiffusionTask &task, bool always);
  bool diffuse(const DiffusionTask &task);
  /// Compute waves keep the externals on the GPUs (WaveTask).
  bool keepExternals = false;
  /// A tissue's step to fuse with one-step compute waves where canFuse()
  /// (WaveTask::fused); whether the last compute wave did.
  FusedStep *fused = nullptr;
  bool lastWaveFused = false;
  /// One device computes every cell and fuses diffusion, and no
  /// dimensioning window may change that.
  bool canFuse() const;
  /// Seconds diffuse() spent bringing halos to the host.
  double haloSeconds = 0;
  /// Seconds a step spent outside its ionic wave (a tissue's diffusion
  /// step, halos and activation pass): dimensioning windows count them
  /// with the wave they follow, so device sets compare whole steps.
  void addStepSeconds(double seconds);
  /// A tissue's activation pass on the devices (DeviceActivation): every
  /// device brings what it keeps of the arrays to the host (`keep`: and
  /// keeps it), or forgets it.
  bool releaseActivation(bool keep);
  void dropActivation();
  /// The host store holds every device's newest externals afterwards
  /// (Vm, which steps that do the activation pass on the devices leave
  /// there).
  bool syncExternals();

  /// The host store holds every device's newest states afterwards.
  bool syncStates();
  /// The host store's states were written: devices reload them.
  void statesWritten();
  /// Per-cell parameter values changed on the host.
  void paramValuesWritten();
  /// Shared values or per-cell rows given by the user changed: the rows of
  /// derived parameters follow.
  void paramsChanged();

  // Protocol: stimuli, events and when to sample; the recorded variables'
  // plan and where samples go.
  Timeline timeline;
  struct Recording {
    RecordPlan plan;
    SimulationInterface::PartSampleFn fn;
  } recording;
  std::function<void(int64_t)> progress;
  /// Called after every wave (SimulationInterface::onSync).
  std::vector<std::function<bool(int64_t, std::string &)>> syncFns;

  /// Biomarkers (enabled when `on`).
  struct Biomarkers {
    bool on = false;
    BiomarkerOptions options;
    BiomarkerTable table;
    int64_t beat = 0, beatStart = 0;
    /// Per cell: the last two beats' APD90 and its last change.
    std::vector<double> lastApd90, lastChange;
  } bio;
  bool enableBiomarkers(const BiomarkerOptions &options, std::string &error);
  /// Closes the beat at step(): accumulators to rows (unless `keep` is
  /// false), then reset.
  bool closeBeat(bool keep = true);

  /// Moving cells between simulations (Simulation::packCells).
  int64_t packedCellSize() const;
  bool packCells(CellRange cells, double *out);
  bool unpackCells(CellRange cells, const double *in);
  void setClock(int64_t step, int64_t beat, int64_t beatStart);
  const NonFinite *nonFinite() const { return bad_.get(); }
  void setThreads(int threads);
  int threads() const;
  std::vector<int64_t> counters;
  double gpuKernelMs = 0;
  double computeSeconds = 0;
  RunReport report;
  std::vector<std::string> tableWarnings;
  double tablesSeconds = 0, initSeconds = 0;
  /// Brings the report's per-device figures up to date.
  void updateReport();
  /// Measured speeds by device id.
  std::map<std::string, double> speeds() const;

private:
  bool fail(const Device &device, const std::string &what);
  //===--- A lost device (Recovery.cpp) -------------------------------===//
  /// Whether a lost GPU's cells can be recomputed (host copies kept).
  bool recovering() const;
  /// After a wave: the GPUs' cells to the host, the copy a recovery starts
  /// from. A device whose copy fails is put in `copyLost` (its error in
  /// `copyErrs`) with the host's copy of the wave's start restored (the
  /// copy may have half-overwritten it).
  bool keepHostCopies(const WaveTask &task, std::vector<int> &copyLost,
                      std::vector<std::string> &copyErrs);
  /// Before a wave: the GPUs' cells' externals on the host (the wave's
  /// start), which a copy failing after it puts back.
  void saveWaveStartExternals();
  /// keepHostCopies, with a device whose copy fails recovered at once
  /// (recoverWave); after a recovery, the survivors' copies again.
  bool keepHostCopies(const WaveTask &task);
  /// Devices `lostNow` failed the wave `task` (errs): recompute their cells
  /// on a survivor, drop them, split the cells over the others. False
  /// (with failure()) when that cannot be done. `survivorsCounted`: the
  /// others' counters of the wave are counted already.
  bool recoverWave(const WaveTask &task, const std::vector<int> &lostNow,
                   const std::vector<std::string> &errs,
                   std::vector<WaveTiming> &timing,
                   bool survivorsCounted = false);
  bool rescue(Device &x, CellRange cells, const WaveTask &task,
              WaveTiming &timing, std::string &error);
  /// Device `i` failed while taking its cells of `next` (out of memory as
  /// its share grew, a failed copy): with every device's cells current on
  /// the host, drop it and migrate to a split over the others; else fail.
  bool dropFromMigration(int i, const std::vector<CellRange> &next,
                         const std::string &why, const std::string &error);
  /// Device `i` failed a copy between waves (`why`: biomarker
  /// accumulators at a beat): its queue drained, dropped as above from the
  /// host copies; else fail.
  bool dropBetweenWaves(int i, const std::string &why,
                        const std::string &error);
  /// Reset biomarker accumulators to the devices at a beat.
  bool uploadNewAccumulators(const std::string &why, std::string &err);
  /// Per device: lost for good; whether the host holds a copy of its cells
  /// as of the current step.
  std::vector<char> lost_, hostCopy_;
  /// Per device: its cells' externals on the host at the wave's start and
  /// the cells they are of (saveWaveStartExternals).
  std::vector<std::vector<double>> extCopy_;
  std::vector<CellRange> extCopyRange_;
  /// Moves cells so device d holds ranges[d] (empty: not in use).
  bool migrate(const std::vector<CellRange> &ranges, const std::string &why,
               double imbalance);
  /// Ranges over `active` devices from the speeds known so far.
  std::vector<CellRange> splitFor(const std::vector<int> &active) const;
  bool useConfig(const DeviceConfig &config, const std::string &why);
  void startWindow();
  /// Steps of the next dimensioning window: DimensionOptions::windowSteps,
  /// or one pacing cycle where cycles are longer and the run holds them.
  int64_t windowLength();
  /// Steps of a cycle window (0: windows of windowSteps; -1: not decided).
  int64_t cycleWindow_ = -1;
  /// Whether every device of the balanced set has a measured speed.
  bool allMeasured() const;
  int64_t spanEnd(int64_t stop) const;
  int64_t waveEnd(int64_t stop) const;
  /// A fresh balancer over the current ranges of the balanced devices.
  void resetBalancer(const BalanceOptions &options);
  /// Has the balancer count hot cells (options.balance.hotVm) in Vm.
  void countHotCells();
  /// False (bad_ set, or the device failed) when a device counted a
  /// non-finite value in the wave: it replays its first bad cell.
  bool checkFinite(const WaveTask &task, const std::vector<int> &act,
                   const std::vector<WaveTiming> &timing);
  /// The wave in the report, the phase speeds and the balancer.
  void recordWave(const WaveTask &task, double wall,
                  const std::vector<WaveTiming> &timing);
  void endWave(const WaveTask &task, const std::vector<WaveTiming> &timing);
  //===--- Periodic cost (PhaseSplit.cpp) ------------------------------===//
  /// After a compute wave: each device's speed at its phase of the cycle.
  void learnPhase(const WaveTask &task, const std::vector<WaveTiming> &timing);
  /// Before the wave [step0, end): the split its phase's speeds give, when
  /// that pays. False (failure()) when moving the cells failed.
  bool splitForPhase(int64_t step0, int64_t end);
  std::unique_ptr<PhaseSpeeds> phases_;
  //===--- Two host devices sharing waves (SharedWave.cpp) -------------===//
  /// Whether the next compute wave is shared, by which two devices (`a`
  /// holding the lower cells): BalanceOptions::share, two balanced host
  /// devices that compute chunks, with adjacent ranges.
  bool sharePair(int &a, int &b) const;
  /// Runs the launched `task` on devices `a` and `b` in chunks until they
  /// meet; their ranges become what each computed. False (failure()) when
  /// a device failed.
  /// The threads for shared waves of devices `a` (lower) and `b`: kept
  /// while the pair is the same, bound to CPUs where HostCpus allows.
  void preparePairWorkers(int a, int b);
  bool shareWave(const WaveTask &task, int a, int b,
                 std::vector<WaveTiming> &timing,
                 std::vector<std::string> &errs, std::vector<char> &failed);
  /// The last compute wave was shared.
  bool waveShared_ = false;
  /// The wave running now was split by its phase's predicted speeds.
  bool phasePredicted_ = false;
  /// Measured seconds per byte of earlier moves (0: none yet).
  double moveSecondsPerByte_ = 0;

  const easyml_model_desc &desc_;
  SimulationOptions options_;
  std::string setupError_, failure_, failedDevice_;
  bool failedDeviceGpu_ = false;
  std::unique_ptr<CellStore> store_;
  DeviceSet set_;
  std::vector<CellRange> ranges_; // per device
  std::vector<double> speeds_;    // per device, measured (0: unknown)
  std::unique_ptr<Balancer> balancer_;
  /// The threads of the two sides of shared waves (lower, upper), kept
  /// between waves, and the devices and threads they were made for.
  /// Without a lower one, the lower side runs on the caller's thread.
  std::unique_ptr<HostWorker> pairWorkers_[2];
  using PairKey = std::array<int, 4>;
  PairKey pairKey_ = {-1, -1, 0, 0};
  /// A pool's thread was once found off its CPUs: the report no longer
  /// names any.
  bool pairCpusLost_ = false;
  /// The split is not yet known good: waves are capped at settleSteps_.
  /// Device ranges start on multiples of this (the devices' largest
  /// alignment()), but where two host devices sharing waves met.
  int64_t align_ = kCellAlignment;
  bool settling_ = true;
  /// The step a repartition takes effect at (-1: the current step).
  int64_t migrateStep_ = -1;
  int64_t settleSteps_ = 20;
  /// Slowest-device seconds in the balancer's window not yet judged.
  double windowSeconds_ = 0;
  static constexpr int64_t kMaxSettleFactor = 64;
  std::vector<int> balanced_; // devices the balancer's ranges refer to
  std::unique_ptr<Dimensioner> dimensioner_;
  struct Window {
    bool open = false;
    int64_t start = 0, end = 0, steps = 0;
    bool cycle = false, settled = false;
    int waves = 0;
    double firstCellSteps = 0, firstSeconds = 0;
    double cellSteps = 0, seconds = 0;
  } window_;
  ParamSet params_;
  std::vector<bool> userRows_;
  std::vector<int64_t> derivedRows_;
  std::vector<double> uploadedParams_, tables_;
  /// The model's derived values for params_ and dt_ (build_derived).
  std::vector<double> derived_;
  /// Recomputes derived_ from params_ and dt_.
  void buildDerived();
  bool paramValuesStale_ = false;
  double dt_ = 0.01;
  int64_t step_ = 0;
  bool initialized_ = false;
  std::unique_ptr<NonFinite> bad_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_SCHEDULER_H
