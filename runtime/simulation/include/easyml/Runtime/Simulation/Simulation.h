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
#include "easyml/Runtime/IO/Checkpoint.h"
#include "easyml/Runtime/Schedule/Balancer.h"
#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Devices/DeviceSpec.h"
#include "easyml/Runtime/Schedule/Dimensioner.h"
#include "easyml/Runtime/Core/ModelHandle.h"
#include "easyml/Runtime/Core/Params.h"
#include "easyml/Runtime/Schedule/Report.h"
#include "easyml/Runtime/Simulation/SimulationInterface.h"
#include "easyml/Runtime/Core/Timeline.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

/// A device as its users tell it apart: its id ("cpu", "cuda:1") and
/// whether it is a GPU (what a lost device's recovery goes by).
struct DeviceName {
  std::string id;
  bool gpu = false;
};

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

/// Per-cell, per-beat biomarkers computed during the run, where the cells
/// are (definitions: docs/biomarkers.md). A beat starts at every stimulus
/// onset; Simulation::closeBeat() ends the last one.
struct BiomarkerOptions {
  /// The state holding intracellular calcium ("": no calcium biomarkers).
  std::string caVariable;
  /// A beat is excited when Vm peaks at least this far above its resting
  /// value (mV).
  double minAmplitude = 40;
  /// Alternans: APD90 changes by more than this (ms) in two beats in a row,
  /// with opposite signs.
  double alternansMs = 5;
};

/// Columns of the biomarker table (one row per cell and closed beat).
enum BiomarkerColumn {
  kBioCell = 0,
  kBioBeat,
  kBioStart,         // time of the beat's first step (ms)
  kBioVRest,         // Vm at the beat's first step (mV)
  kBioVPeak,         // highest Vm (mV)
  kBioDvdtMax,       // largest dVm/dt between two steps (mV/ms)
  kBioApd30,         // APD at 30%, 50%, 90% repolarisation (ms, from the
  kBioApd50,         // time of the largest dVm/dt)
  kBioApd90,         //
  kBioTriangulation, // APD90 - APD30 (ms)
  kBioCaAmplitude,   // highest - lowest calcium
  kBioCaTimeToPeak,  // time of the calcium peak after the upstroke (ms)
  kBioApd90Change,   // APD90 minus the previous beat's (ms)
  kBioFlags,         // enum BiomarkerFlag bits
  kBioNumColumns
};
enum BiomarkerFlag : int {
  kBioNoExcitation = 1,
  kBioNoRepolarisation = 2,
  kBioEad = 4,
  kBioAlternans = 8
};
/// "cell", "beat", "start", "v_rest", ..., "flags".
const char *biomarkerColumnName(int column);

/// Rows of kBioNumColumns values, beat by beat, cells in order.
struct BiomarkerTable {
  std::vector<double> values;
  int64_t rows() const {
    return static_cast<int64_t>(values.size()) / kBioNumColumns;
  }
  const double *row(int64_t r) const {
    return values.data() + r * kBioNumColumns;
  }
};

/// The columns of a biomarker table with parameter columns `params` (by
/// name): the biomarkers' then the parameters' (`indices`: params indices).
/// False with `error` for an unknown name.
bool biomarkerColumns(const ParamSet &ps, const std::vector<std::string> &params,
                      std::vector<std::string> &names,
                      std::vector<int64_t> &indices, std::string &error);
/// The rows of `bt` with, after the biomarkers, value(p, cell) for every
/// params index p in `params` (cell counted from `firstCell`).
std::vector<double> biomarkerRowsWithParams(
    const BiomarkerTable &bt, const std::vector<int64_t> &params,
    int64_t firstCell,
    const std::function<double(int64_t p, int64_t cell)> &value);

/// The last closed beat's biomarkers as percentiles, as JSON ({"beats",
/// "rows", "last_beat": {...}}); `rows`: the table's rows over every beat.
/// Also printed as a table to `out` (null: not printed).
std::string summarizeBiomarkers(const BiomarkerTable &lastBeat, int64_t rows,
                                FILE *out);

class Scheduler;
struct DiffusionTask;
struct FusedStep;

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
  Simulation *local() override { return this; }
  TissueCoupling *coupling() override;
  /// The devices in use: "CPU, 2 threads, cpu-simd ... + cuda device 0:
  /// ...".
  std::string deviceDescription() const override;
  std::string variantName() const override { return variant().name; }
  /// False with a message when the devices cannot be had (no such
  /// variant, no driver, no such GPU, no fitting code object).
  bool valid(std::string &error) override;
  /// Empty while all is well; after a device call failed, what failed on
  /// which device. The simulation does nothing more once it has failed.
  const std::string &failure() const override;
  /// After a failure, the device whose call failed (an empty id when it
  /// was no device's).
  DeviceName failedDevice() const;
  /// Where a value first became non-finite, or null.
  const NonFinite *nonFinite() const override;
  bool agree(bool ok, std::string &) override { return ok; }

  // A derived parameter (computed from others, ParamSet) follows them,
  // shared and per cell, unless it is set itself. Changes reach the
  // devices at the next wave; tables are built at initialize().
  const ParamSet &paramSet() const override;
  /// Sets parameter or flag `name` for every cell that has no value of its
  /// own; false with `error` for an unknown name or a non-finite value.
  bool setParam(const std::string &name, double value,
                std::string &error) override;
  /// Applies openCARP's `--imp-par` syntax (ParamSet::modify).
  bool modifyParams(const std::string &mods, std::string &error,
                    std::vector<std::string> *log = nullptr) override;
  /// Makes parameter or flag `name` per-cell with the values `values`
  /// (numCells() of them); the derived parameters computed from it vary per
  /// cell with it. False with `error` for an unknown name, a non-finite
  /// value, or a parameter that cannot vary per cell (it, or a derived
  /// parameter computed from it, is read by a lookup table, nodal, or read
  /// shared by a GPU variant in use).
  bool setPerCellParam(const std::string &name, const double *values,
                       std::string &error) override;
  /// One line per parameter set (shared or per cell) that changes nothing:
  /// no kernel reads it and every derived parameter computed from it is
  /// set too.
  std::vector<std::string> unusedParamSettings() const override;

  /// Builds the lookup tables for `dt` (after parameter changes), sets the
  /// initial state of every cell and computes Iion once; step() becomes 0.
  bool initialize(double dt) override;
  double dt() const override;
  /// Table entries that are NaN after initialize(): "lookup table V:
  /// column a is NaN at V = 0 (row 100)", one line per column.
  std::vector<std::string> tableWarnings() const override;
  void addStimulus(const Stimulus &stimulus) override;
  /// Before global step `step`, a model that integrates Vm itself
  /// (EASYML_FEATURE_WHOLE_CELL, easyml-compile --adaptive) crosses every
  /// stretch without stimulus, event or sample as one interval, each cell
  /// in the sub-steps its error control chooses, instead of stopping at
  /// every step of dt. Those stretches are not cut for balancing, so the
  /// result does not depend on the devices' split; biomarkers are not
  /// updated there (the beats before `step` have none). Other models
  /// ignore it.
  void spanIntervalsUntil(int64_t step);
  /// Records `variables` (state, external and trace names; externals also
  /// by simulator name such as "Vm") of `cells` at steps first +
  /// k*every; `fn` receives every sample, in order, after the wave that
  /// took it. One recording at a time. False with `error` for an unknown
  /// variable or a bad range.
  bool record(const std::vector<std::string> &variables, CellRange cells,
              int64_t first, int64_t every, PartSampleFn fn,
              std::string &error) override;
  void stopRecording() override;
  /// Registers `fn` for step `step` (and every `every` steps after when
  /// every > 0). Returns its id.
  int addEvent(int64_t step, EventFn fn, int64_t every = 0) override;
  /// After every wave.
  void onSync(std::function<bool(int64_t, std::string &)> fn) override;
  /// Called after every wave with the step reached.
  void onProgress(std::function<void(int64_t step)> fn) override;
  /// Computes biomarkers from now on (a model compiled with
  /// EASYML_FEATURE_BIOMARKERS); false with `error` for an unknown calcium
  /// state or an older model.
  bool enableBiomarkers(const BiomarkerOptions &options,
                        std::string &error) override;
  /// Ends the current beat at step(): its biomarkers join the table.
  bool closeBeat() override;
  /// The closed beats' biomarkers.
  const BiomarkerTable &biomarkers() const override;
  /// Runs from step() to `untilStep`: the state is then at untilStep.
  /// Events at untilStep fire at the start of the next run. False when a
  /// device failed (failure()) or a value became non-finite (nonFinite()),
  /// or an event stopped the run.
  bool run(int64_t untilStep) override;
  /// The step the state is at.
  int64_t step() const override;
  /// Warning counters (lookup range, clamps), as in desc().counter_names.
  std::vector<int64_t> counters() override;
  double adaptiveSteps() override;
  std::shared_ptr<MatrixFile> openMatrix(const std::string &path,
                                         int64_t rows, int64_t cols,
                                         std::string &error,
                                         int64_t resumeRows = 0) override;
  bool writeBiomarkers(const std::string &path,
                       const std::vector<std::string> &paramColumns,
                       std::string &error) override;
  BiomarkerTable lastBeat(int64_t &totalRows) override;
  bool saveCheckpoint(const std::string &path, RunPosition position,
                      std::string &error) override;
  bool loadCheckpoint(const std::string &path, RunPosition &position,
                      std::string &error) override;
  /// Seconds in waves.
  double computeSeconds() override;
  void addOutput(double seconds, double bytes) override;
  std::string reportJson(int indent = 0) override;
  void printReport(FILE *out) override;
  void summarize(RunSummary &summary) override;

  //===--- One process only -------------------------------------------===//
  /// Identifiers of the devices that hold cells ("cpu", "cuda:0").
  std::vector<std::string> activeDevices() const;
  /// The devices in play (those given, or those automatic dimensioning
  /// chose) not lost, whether they hold cells now or not (the balancer may
  /// have left a slow one without).
  std::vector<DeviceName> workingDevices() const;
  /// Takes the shared values and settings of `params` (same model).
  void setParamSet(const ParamSet &params);
  /// Back to one value for all cells (its shared value in params()).
  bool setSharedParam(const std::string &name, std::string &error);
  /// The value of parameter or flag `p` for `cell` (its row, or the
  /// shared value).
  double paramValue(int64_t p, int64_t cell);
  void clearStimuli();
  void removeEvent(int id);
  /// Drops the rows so far (the beat count goes on).
  void clearBiomarkers();
  /// What the biomarkers carry from beat to beat, per cell: the last
  /// APD90 and its last change (for apd90_change and the alternans flag).
  /// set...: after enableBiomarkers, one value per cell each.
  void biomarkerHistory(std::vector<double> &lastApd90,
                        std::vector<double> &lastChange) const;
  void setBiomarkerHistory(const std::vector<double> &lastApd90,
                           const std::vector<double> &lastChange);

  //===--- One wave at a time (simulators that own Vm) ----------------===//
  /// Advances all cells by `nsteps` steps from global step `step0` on
  /// every device. With `integrateVm`, each step adds `stim*dt` to Vm
  /// before the model and subtracts `Iion*dt` after it (openCARP bench);
  /// without, Vm is the simulator's and the kernel computes Iion.
  void advance(int64_t step0, int64_t nsteps, double stim, bool integrateVm);
  /// Recomputes outputs (Iion) and traced values from the current state.
  void evaluate(int64_t step);
  /// After advance(): false with the cell, variable and step when a value
  /// became non-finite (the bad cell replayed on its device).
  bool checkFinite(NonFinite &where);

  //===--- Values, wherever the cells live ----------------------------===//
  /// The variant of the first device in use.
  const easyml_variant &variant() const;
  /// Variable `var` (a state, nodal parameter or hidden value: sv row) of
  /// `cell`. Reading brings states back from the devices; the reference
  /// may be written (the devices get the states again before the next
  /// wave).
  double &state(int64_t cell, int64_t var);
  /// The same, read only (the devices keep their states).
  double getState(int64_t cell, int64_t var);
  /// Row `var` of every cell (numCells() values) out of / into the
  /// simulation.
  void getStateRow(int64_t var, double *values);
  void setStateRow(int64_t var, const double *values);
  /// Copies every cell's record (`numCells * sv_size` values, openCARP's
  /// per-cell layout) out of / into the simulation.
  void exportStates(double *aos);
  void importStates(const double *aos);
  /// The parameters given per cell (setPerCellParam, a population), and
  /// the values of one of them (numCells(); false if it is shared).
  std::vector<std::string> perCellParams() const;
  bool perCellParam(const std::string &name, double *values) const;
  //===--- Moving cells between simulations ----------------------------===//
  // Simulations of one model and protocol hand cells to each other (MPI
  // ranks re-splitting a population): everything a cell carries, packed.

  /// Doubles per packed cell: sv rows (states, nodal, hidden), externals,
  /// per-cell parameter rows and, when enabled, the biomarker accumulators
  /// and the last two beats' APD90 history.
  int64_t packedCellSize() const;
  /// Copies cells `cells` (packedCellSize() doubles each, cell after cell)
  /// out of the simulation, wherever they live; false after a failure.
  bool packCells(CellRange cells, double *out);
  /// Writes them back into cells `cells` of this simulation, which must
  /// have the same per-cell parameters and biomarker setting.
  bool unpackCells(CellRange cells, const double *in);
  /// Where a run is: the step and the biomarker beat in progress.
  struct Clock {
    int64_t step = 0, beat = 0, beatStart = 0;
  };
  Clock clock() const;
  /// Continues another simulation's run (after initialize()).
  void setClock(const Clock &clock);

  /// The checkpoint of this simulation's cells (Checkpoint.h) without its
  /// run position, and back: cells [firstCell, firstCell + numCells()) of
  /// `st` (a checkpoint of `totalCells`) into this simulation, with the
  /// clock, after checking the model, variables, dt, per-cell parameters
  /// and biomarker setting (false with what differs, nothing changed).
  /// (`values` false: everything but the cells' values.)
  bool checkpointState(PopulationState &st, std::string &error,
                       bool values = true);
  bool restoreState(const PopulationState &st, int64_t firstCell,
                    int64_t totalCells, std::string &error);

  /// Traced value `k` of `cell` after evaluate().
  double trace(int64_t cell, int64_t k) const;
  /// Per-cell arrays of externals (numCells() values each). They are
  /// current after every wave and read by the devices at the next one.
  double *external(int64_t index);
  double *vm();
  double *iion();

  /// CPU threads (before the first wave).
  void setThreads(int threads);
  int threads() const;

  /// Seconds spent building tables and initialising.
  double tablesSeconds() const;
  double initSeconds() const;
  /// Compute kernels' time on GPUs, from device events (ms).
  double gpuKernelMs() const;

  /// What the simulation did so far: per device and per wave.
  const RunReport &report() const;
  /// The speeds measured so far (cell-steps/s by device id), to remember
  /// for the next run (SimulationOptions::speeds).
  std::map<std::string, double> speeds() const;

private:
  const ModelHandle &model_;
  std::unique_ptr<Scheduler> scheduler_;
  /// Made on first use (coupling()).
  std::unique_ptr<TissueCoupling> coupling_;
};

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_SIMULATION_H
