//===- Simulation.h - the EasyML runtime's C++ API -------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Loads compiled models (linked in, or from a shared library) and runs N
// cells of one model on a set of devices: the CPU pool and any number of
// GPUs. The runtime owns the time loop: the steps between two events
// (stimulus edges, state saves, user events) form one task wave that every
// device runs on its share of the cells at once; samples at output steps
// are recorded inside the wave. Shares follow the devices' measured speeds
// (adaptive partitioning) and, with devices "auto", the runtime chooses how
// many GPUs to use and whether the CPU helps (resource dimensioning).
// No LLVM or MLIR dependency: models are known only through the
// descriptor of ABI.h.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_H
#define EASYML_RUNTIME_SIMULATION_H

#include "easyml/ABI/ABI.h"
#include "easyml/Runtime/Core/ModelHandle.h"
#include "easyml/Runtime/Core/Params.h"
#include "easyml/Runtime/Core/Timeline.h"
#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Devices/DeviceSpec.h"
#include "easyml/Runtime/IO/Checkpoint.h"
#include "easyml/Runtime/Schedule/Balancer.h"
#include "easyml/Runtime/Schedule/Dimensioner.h"
#include "easyml/Runtime/Schedule/Report.h"
#include "easyml/Runtime/Simulation/CellTransfer.h"
#include "easyml/Runtime/Simulation/SimulationInterface.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

/// How a simulation uses the machine.
struct SimulationOptions {
  /// The devices: "cpu"; "gpu:0,2", "gpu:all" or "gpu" (GPUs the model has
  /// a variant for, CUDA ones first); "cuda:1", "rocm:all"; combinations
  /// with '+' ("cpu+gpu:all"); "auto" (resource dimensioning over the CPU
  /// and every GPU). See DeviceSpec.
  DeviceSpec devices = DeviceSpec::cpu();
  /// The CPU pool's variant: "" (cpu-simd when compiled, else the first CPU
  /// variant), "cpu-simd", "baseline".
  std::string cpuVariant;
  /// CPU threads (0: the OpenMP default).
  int threads = 0;
  BalanceOptions balance;
  /// Initial shares of the cells per device, in device order; empty: from
  /// `speeds`, else an even split until measured.
  std::vector<double> shares;
  /// Device speeds remembered from an earlier run (cell-steps/s by device
  /// id, see Simulation::speeds()): the first split follows them.
  std::map<std::string, double> speeds;
  /// With several devices, waves are at most this many steps until the
  /// first balancing decision (so a bad first split costs little).
  int64_t probeSteps = 20;
  DimensionOptions dimension;
  /// At most this many steps per wave (0: waves end only at events).
  int64_t maxWaveSteps = 0;
  /// When a GPU fails (a launch or its wave), recompute its cells on
  /// another device from a host copy of the wave's start and go on without
  /// it. The copy is taken after every wave while more than one device
  /// runs and a GPU is among them (its cost is in the report).
  bool recover = true;
  /// Recorded samples held per wave (the buffer is cut into more waves
  /// when a wave would produce more).
  int64_t maxSamplesPerWave = 4096;
};

class Scheduler;
class LocalParameters;
class LocalBiomarkers;
class LocalOutputs;
class LocalFigures;

/// N cells of one model on a set of devices, in one process (the one-rank
/// case of SimulationInterface).
class Simulation : public SimulationInterface {
public:
  Simulation(const ModelHandle &model, int64_t numCells,
             const SimulationOptions &options);
  /// One device, as before the heterogeneous runtime: `variant` empty or a
  /// CPU variant runs on the CPU pool; a GPU variant (cuda, rocm) on GPU
  /// `device` of its vendor.
  Simulation(const ModelHandle &model, int64_t numCells,
             const std::string &variant = "", int device = 0);
  ~Simulation() override;
  Simulation(const Simulation &) = delete;
  Simulation &operator=(const Simulation &) = delete;

  //===--- SimulationInterface ----------------------------------------===//
  const easyml_model_desc &desc() const override { return model_.desc(); }
  int64_t numCells() const override;
  CellRange owned() const override { return CellRange{0, numCells()}; }
  CellValues *cellValues() override { return values_.get(); }
  TissueCoupling *coupling() override;
  /// The devices in use: "CPU, 2 threads, cpu-simd ... + cuda device 0:
  /// ...".
  std::string deviceDescription() const override;
  std::string variantName() const override { return variant().name; }
  /// Failed, with a message, when the devices cannot be had (no such
  /// variant, no driver, no such GPU, no fitting code object).
  Status valid() override;
  /// Empty while all is well; after a device call failed, what failed on
  /// which device. The simulation does nothing more once it has failed.
  const std::string &failure() const override;
  const NonFinite *nonFinite() const override;
  Status agree(Status mine) override { return mine; }
  ParameterAccess &parameters() override;
  using SimulationInterface::parameters;
  BiomarkerAccess &biomarkers() override;
  OutputAccess &outputs() override;
  RunFigures &figures() override;
  bool initialize(double dt) override;
  double dt() const override;
  void addStimulus(const Stimulus &stimulus) override;
  Status record(const std::vector<std::string> &variables, CellRange cells,
                int64_t first, int64_t every, PartSampleFn fn) override;
  void stopRecording() override;
  int addEvent(int64_t step, EventFn fn, int64_t every = 0) override;
  /// After every wave.
  void onSync(std::function<bool(int64_t, std::string &)> fn) override;
  /// Called after every wave with the step reached.
  void onProgress(std::function<void(int64_t step)> fn) override;
  bool run(int64_t untilStep) override;
  int64_t step() const override;

  //===--- One process only -------------------------------------------===//
  /// The cells' values (cellValues(), never null here).
  CellValues &values() { return *values_; }
  /// Cells handed to and from other simulations of the same model.
  CellTransfer &transfer() { return *transfer_; }
  /// The variant of the first device in use.
  const easyml_variant &variant() const;
  /// Takes the shared values and settings of `params` (same model).
  void setParamSet(const ParamSet &params);
  void clearStimuli();
  void removeEvent(int id);
  /// Before global step `step`, a model that integrates Vm itself
  /// (EASYML_FEATURE_WHOLE_CELL, easyml-compile --adaptive) crosses every
  /// stretch without stimulus, event or sample as one interval, each cell
  /// in the sub-steps its error control chooses, instead of stopping at
  /// every step of dt. Those stretches are not cut for balancing, so the
  /// result does not depend on the devices' split; biomarkers are not
  /// updated there (the beats before `step` have none). Other models
  /// ignore it.
  void spanIntervalsUntil(int64_t step);
  /// Advances all cells by `nsteps` steps from global step `step0` on
  /// every device (simulators that own Vm, one wave at a time). With
  /// `integrateVm`, each step adds `stim*dt` to Vm before the model and
  /// subtracts `Iion*dt` after it (openCARP bench); without, Vm is the
  /// simulator's and the kernel computes Iion.
  void advance(int64_t step0, int64_t nsteps, double stim, bool integrateVm);
  /// CPU threads (before the first wave).
  void setThreads(int threads);
  /// What the simulation did so far: per device and per wave.
  const RunReport &report() const;

private:
  const ModelHandle &model_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<CellValues> values_;
  std::unique_ptr<CellTransfer> transfer_;
  std::unique_ptr<LocalParameters> parameters_;
  std::unique_ptr<LocalBiomarkers> biomarkers_;
  std::unique_ptr<LocalOutputs> outputs_;
  std::unique_ptr<LocalFigures> figures_;
  /// Made on first use (coupling()).
  std::unique_ptr<TissueCoupling> coupling_;
};

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_SIMULATION_H
