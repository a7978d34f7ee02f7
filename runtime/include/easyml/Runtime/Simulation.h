//===- Simulation.h - the EasyML runtime's C++ API -------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Loads compiled models (linked in, or from a shared library), allocates and
// initialises cell states, applies openCARP-style parameter modifiers, builds
// lookup tables, advances cells on the CPU (one task per wave) and detects
// NaN/Inf. No LLVM or MLIR dependency: models are known only through the
// descriptor of ABI.h.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_H
#define EASYML_RUNTIME_SIMULATION_H

#include "easyml/Runtime/ABI.h"

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

/// A model descriptor and, when loaded with dlopen, the library holding it.
class ModelHandle {
public:
  /// Wraps a descriptor linked into the program.
  explicit ModelHandle(const easyml_model_desc *desc) : desc_(desc) {}
  ~ModelHandle();
  ModelHandle(const ModelHandle &) = delete;
  ModelHandle &operator=(const ModelHandle &) = delete;

  /// Opens a shared library made by `easyml-compile --emit=shared`.
  static std::unique_ptr<ModelHandle> load(const std::string &path,
                                           std::string &error);

  const easyml_model_desc &desc() const { return *desc_; }
  /// The variant called `name`, or null. An empty name picks the CPU's
  /// default: `cpu-simd` when compiled, else the first variant.
  const easyml_variant *variant(const std::string &name) const;

private:
  const easyml_model_desc *desc_;
  void *library_ = nullptr;
};

/// Applies openCARP's `--imp-par` syntax to parameter values:
/// `name=v`, `name*v`, `name/v`, `name+v`, `name-v`, a trailing `%` making
/// the operand a percentage, and `flags=A|B`. On error returns false with a
/// message naming the offending item. `log` receives one line per change.
bool applyParamMods(const easyml_model_desc &desc, const std::string &mods,
                    std::vector<double> &params, std::string &error,
                    std::vector<std::string> *log = nullptr);

/// Where a simulation first produced a non-finite value.
struct NonFinite {
  int64_t cell = -1;
  std::string variable;
  int64_t step = -1;
  double time = 0;
  double value = 0;
  /// "cell 0, variable x = inf at step 113 (t = 1.1300 ms)"
  std::string message() const;
};

/// An allocator of storage aligned to 64 bytes (a cache line, an AVX-512
/// vector).
template <typename T> struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <typename U> AlignedAllocator(const AlignedAllocator<U> &) {}
  T *allocate(size_t n) {
    size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    return static_cast<T *>(::operator new(bytes, std::align_val_t(64)));
  }
  void deallocate(T *p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  bool operator==(const AlignedAllocator &) const { return true; }
  bool operator!=(const AlignedAllocator &) const { return false; }
};
using AlignedVector = std::vector<double, AlignedAllocator<double>>;

/// Cells of one model, advanced on the CPU.
///
/// Storage follows the variant's layout: one record of `sv_size` values per
/// cell (AoS, openCARP's) or one row of `stride` cells per variable (SoA,
/// `stride` = the number of cells rounded up to the vector width, 64-byte
/// aligned). Use state() or the AoS import/export functions rather than the
/// raw storage.
class Simulation {
public:
  /// `variant` empty: the CPU default (cpu-simd when compiled). A GPU
  /// variant (cuda, rocm) runs on GPU `device` of its vendor.
  Simulation(const ModelHandle &model, int64_t numCells,
             const std::string &variant = "", int device = 0);
  ~Simulation();

  /// False with a message when the variant does not exist, or a GPU
  /// variant cannot run (no driver, no device, no fitting code object).
  bool valid(std::string &error) const;
  /// "CPU, 2 threads" or "cuda device 0: NVIDIA H100 80GB HBM3, sm_90".
  std::string deviceDescription() const;
  /// Time of the compute kernels measured on the GPU with device events
  /// (ms).
  double gpuKernelMs = 0;
  /// Empty while all is well; after a GPU call failed, what failed on
  /// which device. The simulation does nothing more once it has failed.
  const std::string &failure() const { return failure_; }

  std::vector<double> &params() { return params_; }
  /// Builds the lookup tables for `dt` (after parameter changes) and sets
  /// the initial state of every cell; computes Iion once.
  void initialize(double dt);
  /// Advances all cells by `nsteps` steps starting at global step `step0`.
  /// With `integrateVm`, each step adds `stim*dt` to Vm before the model
  /// and subtracts `Iion*dt` after it (openCARP bench).
  void advance(int64_t step0, int64_t nsteps, double stim, bool integrateVm);
  /// Recomputes outputs (Iion) and traced values from the current state.
  void evaluate(int64_t step);

  /// Checks every state and Vm (GPU variants: the count their kernels
  /// keep on the device); on a non-finite value, re-runs the last advance
  /// step by step for the offending cell to name the step and variable that
  /// went bad first.
  bool checkFinite(NonFinite &where);

  int64_t numCells() const { return numCells_; }
  double dt() const { return dt_; }
  /// The variant being run.
  const easyml_variant &variant() const { return *variant_; }
  /// Variable `var` (a state or a nodal parameter, descriptor order) of
  /// `cell`, whatever the layout.
  double &state(int64_t cell, int64_t var);
  /// Copies every cell's record into `aos` (`numCells * sv_size` values,
  /// openCARP's per-cell layout) / from it: the layout conversion for
  /// simulators that hand over per-cell data.
  void exportStates(double *aos) const;
  void importStates(const double *aos);
  /// Traced value `k` of `cell` after evaluate().
  double trace(int64_t cell, int64_t k) const;
  double *external(int64_t index) { return ext_[index].data(); }
  double *vm();
  double *iion();
  /// Warning counters (lookup range, clamps), as in desc().counter_names.
  std::vector<int64_t> counters() const { return counters_; }
  const easyml_model_desc &desc() const { return model_.desc(); }

  void setThreads(int threads) { threads_ = threads; }
  int threads() const;

  /// Table entries that are NaN after initialize(): "lookup table V:
  /// column a is NaN at V = 0 (row 100)", one line per column (first row).
  std::vector<std::string> tableWarnings;

  /// Seconds spent in each phase.
  double tablesSeconds = 0, initSeconds = 0, computeSeconds = 0;

private:
  /// The variant exists and, for a GPU, its device opened (see valid()).
  bool runnable() const;
  easyml_kernel_args args(int64_t begin, int64_t end);
  void runKernel(easyml_kernel_fn fn, int64_t step0, int64_t nsteps,
                 double stim, bool integrateVm, bool keepSnapshot = false);
  /// Saves cells [begin, end) as the state before the wave.
  void snapshot(int64_t begin, int64_t end);

  // GPU variants: the state lives on the device; the host copies are
  // brought up to date on demand and pushed back after host writes.
  struct Gpu;
  void openGpu(int device);
  /// Runs kernel `entry` ("init", "compute", "eval") on cells
  /// [begin, end); on failure records it (see failure()) and returns false.
  /// `snapshot`: save the state first, for NaN diagnosis.
  bool runGpu(const char *entry, int64_t begin, int64_t end, int64_t step0,
              int64_t nsteps, double stim, bool integrateVm,
              bool snapshot = false);
  bool gpuStatesToHost() const;
  /// Records the first failure, naming the device; returns false.
  bool gpuFail(const std::string &what) const;
  /// checkFinite for GPU variants: the kernels counted non-finite cells.
  bool checkFiniteGpu(NonFinite &where);
  /// Fills `where` when a state or external of `cell` in the host storage
  /// is not finite after global step `step`.
  bool reportIfBad(int64_t cell, int64_t step, NonFinite &where) const;
  /// Fills `where` for a replay that found no bad state or external.
  void blameWaveStart(NonFinite &where) const;
  /// The first cell with a non-finite state or external on the host, or -1.
  int64_t firstBadCell() const;
  /// Device memory for the simulation's arrays, made at initialize().
  bool allocateGpu();

  const ModelHandle &model_;
  const easyml_variant *variant_;
  std::unique_ptr<Gpu> gpu_;
  std::string gpuError_;
  mutable std::string failure_;
  std::string variantName_;
  int64_t numCells_;
  bool soa_ = false;
  int64_t width_ = 1, stride_ = 0;
  int threads_ = 0;
  double dt_ = 0.01;
  std::vector<double> params_, tables_;
  mutable AlignedVector sv_;
  AlignedVector out_;
  std::vector<AlignedVector> ext_;
  std::vector<double *> extPtrs_;
  std::vector<int64_t> counters_;
  // The state at the start of the last advance, for NaN diagnosis.
  AlignedVector lastSv_;
  std::vector<AlignedVector> lastExt_;
  int64_t lastStep0_ = 0, lastSteps_ = 0;
  double lastStim_ = 0;
  bool lastIntegrate_ = false;
};

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_SIMULATION_H
