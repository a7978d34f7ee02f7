//===- Device.h - devices that run a model's kernels ----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The heterogeneous runtime's executors (the cells they run live in a
// `CellStore`, CellStore.h):
//
// - `Device`: one executor of a model's kernels over a contiguous range of
//   cells: the CPU pool (OpenMP threads running `cpu-simd` or `baseline`)
//   or one GPU (CUDA or HIP). All offer the same operations: own a range,
//   upload/download a cell range, launch a wave asynchronously, wait for it
//   and report its measured time (device events on GPUs, the pool's own
//   clock on the CPU, whose work is synchronous on its thread).
//
// The Scheduler (Scheduler.h) drives devices; users normally see only
// `Simulation`.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_DEVICE_H
#define EASYML_RUNTIME_DEVICE_H

#include "easyml/ABI/ABI.h"
#include "easyml/ABI/Backend.h"
#include "easyml/Runtime/Core/CellStore.h"

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace easyml::rt {

class GpuDriver;
struct GpuDeviceInfo;

/// What a simulation records inside its waves: some values of some cells
/// at sample steps. The host buffer holds `capacity` samples of `num`
/// values of cells.size() cells: host[(k*num + slot)*cells.size() + c].
struct RecordPlan {
  std::vector<int64_t> slots; // per recordable value: its slot, or -1
  int64_t num = 0;            // values per sample
  bool traces = false;        // a trace has a slot
  CellRange cells;            // cells recorded (simulation numbering)
  int64_t capacity = 0;       // samples the buffer holds
  AlignedVector host;
  /// Changes whenever slots or cells change (devices re-upload them).
  uint64_t version = 0;
};

enum class Entry { Init, Compute, Eval };

struct FusedStep;
class DiffusionDevice;

/// One wave (or an init/eval call) for one device, on its whole range.
struct WaveTask {
  Entry entry = Entry::Compute;
  int64_t step0 = 0, nsteps = 0;
  double dt = 0.01;
  double stim = 0;
  bool integrateVm = true;
  /// A model that integrates Vm itself crosses the steps as one interval
  /// in its own sub-steps (ABI `one_interval`): no samples, no biomarkers.
  bool oneInterval = false;
  /// Samples of `record` taken in this wave: steps recFirst +
  /// k*recEvery, k < recSamples, into host samples recOffset + k.
  RecordPlan *record = nullptr;
  int64_t recFirst = 0, recEvery = 1, recSamples = 0, recOffset = 0;
  /// Keep the state before the wave, for NaN diagnosis.
  bool snapshot = true;
  /// GPUs keep the externals on the device: none go up or down in this
  /// wave (a tissue's Vm between its ionic and diffusion steps).
  bool keepExternals = false;
  /// A one-step compute wave of a tissue, fused with its diffusion.
  FusedStep *fused = nullptr;
};

/// One explicit diffusion sub-step of a tissue (Tissue.h) on every device
/// over its own range, cell k being grid point k (plus an offset, the
/// pointers' business) and Vm the model's external `vm`. The host's copy of Vm
/// (the whole grid) carries the halos: the points within `halo` of a range that
/// other devices own. A tissue's activation pass done where Vm is (ABI 9
/// easyml_diffusion_args) by the devices that keep Vm between steps (GPUs): the
/// host's arrays by cell, of which such a device keeps its range's part until
/// releaseActivation(), and what the devices found in this step.
struct DeviceActivation {
  double *lat = nullptr, *prev = nullptr;
  double threshold = 0, t1 = 0, dt = 0;
  /// Results of the step, over the devices that did it: points activated,
  /// values not finite, and the cells done (the host does the others).
  int64_t activated = 0, nonFinite = 0;
  std::vector<CellRange> done;
};

struct DiffusionTask {
  /// Strides and coefficients (the range and pointers are the devices').
  easyml_diffusion_args grid{};
  /// Host, the whole grid; a device uploads them again when the version
  /// changes.
  const uint8_t *flags = nullptr;
  const double *src = nullptr; // null: no source in this sub-step
  uint64_t flagsVersion = 0, srcVersion = 0;
  /// Points either side of a point that the operator reads.
  int64_t halo = 0;
  /// Host Vm by cell index, and scratch of the same layout that devices
  /// computing on the host write before their result is committed. Vm is
  /// there for cells [lo, hi) (hi < 0: every cell of the simulation): a
  /// tissue across ranks puts its neighbours' planes before cell 0 and
  /// after the last.
  double *hostVm = nullptr, *hostOut = nullptr;
  int64_t lo = 0, hi = -1;
  /// After this sub-step every device brings its whole range of Vm to the
  /// host (the end of a step).
  bool downloadVm = false;
  /// The last sub-step of a step: the activation pass on the devices that
  /// keep Vm (null: none; the host does it).
  DeviceActivation *activation = nullptr;
};

/// A tissue step in one pass over memory, on a device that fusesDiffusion()
/// and is the simulation's only one: the wave's ionic step (one step), the
/// first explicit diffusion sub-step of `diffusion` over the device's
/// range, the new Vm committed, and, where `activation` is set, the points
/// whose Vm crosses `threshold` upwards in the step ending at `t1` given
/// their activation time in `lat` (NaN until then). The same bits as the
/// wave followed by Device::diffuse and the tissue's own activation pass.
struct FusedStep {
  DiffusionTask diffusion;
  bool activation = false;
  double threshold = 0, t1 = 0, dt = 0;
  double *lat = nullptr;
  /// The externals the model only writes (Iion) are not kept: a device may
  /// store them where nothing reads them back (the CPU pool: a block of
  /// its thread's cache rather than a row of the grid's size, unless the
  /// wave records samples), and the simulation's copy of them is then
  /// stale.
  bool discardWritten = false;
  /// Results: points activated in this step, and the lowest point whose
  /// new Vm is not finite (-1: none).
  int64_t activated = 0, firstBad = -1;
};

/// What a device reports after a wave.
struct WaveTiming {
  /// The device's whole wave: transfers at its start and end and the
  /// kernel (device events on GPUs; the pool's clock on the CPU).
  double seconds = 0;
  /// The compute kernel alone.
  double kernelSeconds = 0;
  /// Cells left with a non-finite state or external.
  int64_t nonFinite = 0;
  /// Warning counters added during the wave (descriptor order).
  std::vector<int64_t> counters;
  double bytesToDevice = 0, bytesToHost = 0;
};

/// One executor of a model's kernels over a contiguous range of cells.
/// Calls come from one thread (the scheduler's); launch() queues the work
/// and returns, wait() joins it (a device that runsOnHost() does its work
/// in wait()).
class Device {
public:
  virtual ~Device();

  virtual Backend kind() const = 0;
  bool isGpu() const { return kind() != Backend::Cpu; }
  /// "cpu", "cuda:0", "rocm:1".
  const std::string &id() const { return id_; }
  /// "CPU, 16 threads, cpu-simd (8 cells per vector)" or "cuda device 0:
  /// NVIDIA H100 80GB HBM3, sm_90, code object sm_90".
  virtual std::string description() const = 0;
  const easyml_variant &variant() const { return *variant_; }
  /// Its range starts on a multiple of this many cells, but where two host
  /// devices sharing a wave met (its kernel then masks the lanes of the
  /// vector below the start).
  virtual int64_t alignment() const = 0;
  /// The device computes in the host store itself: transfers are free.
  virtual bool sharesHostStore() const { return false; }
  /// The device's work runs on the thread that waits for it (the CPU
  /// pool): the scheduler waits for such devices after launching the
  /// others, so they all compute at once.
  virtual bool runsOnHost() const { return false; }

  /// Attaches the device to the simulation's store: allocates what does
  /// not depend on the range.
  virtual bool bind(CellStore &store, std::string &error) = 0;
  /// Sends the shared parameter values, the model's derived values
  /// (computed from them by build_derived; GPU kernels take both by value)
  /// and the lookup tables.
  virtual bool setUniforms(const std::vector<double> &params,
                           const std::vector<double> &derived,
                           const std::vector<double> &tables,
                           std::string &error) = 0;
  /// From now on the device computes `range`. Cells it keeps keep their
  /// values on the device; the caller uploads the cells it gains.
  virtual bool own(CellRange range, std::string &error) = 0;
  CellRange range() const { return range_; }

  /// Copies rows of cells `r` (inside the range) between the host store
  /// and the device; synchronous.
  virtual bool upload(CellRange r, unsigned rows, std::string &error) = 0;
  virtual bool download(CellRange r, unsigned rows, std::string &error) = 0;
  /// Lets what the device has queued finish, failures ignored: after a
  /// failed download, before the host's rows are put back (a queued copy
  /// must not land after them).
  virtual void drain() {}

  /// Starts `task` on the device's range and returns.
  virtual bool launch(const WaveTask &task, std::string &error) = 0;
  /// Waits for the last launch and reports it.
  virtual bool wait(WaveTiming &timing, std::string &error) = 0;

  /// What the device does for a tissue (DiffusionDevice.h); null where it
  /// cannot run a tissue's diffusion.
  virtual DiffusionDevice *diffusion() { return nullptr; }

  /// A host device that can share a wave with another (the scheduler's
  /// shared waves, SharedWave.cpp): after launch(), computeCells() computes
  /// the launched task on `cells` at once, on the calling thread, as often
  /// as the scheduler hands it chunks, and wait() then reports the whole
  /// wave. `cells` may lie outside the range: the caller has put their
  /// states where the device reads them (upload()) and moves the range to
  /// the cells computed before the wave is over. Chunks of one wave never
  /// overlap, so two devices may compute theirs at once.
  virtual bool computesChunks() const { return false; }
  /// The threads a host device computes with (0: it computes elsewhere).
  virtual int hostThreads() const { return 0; }
  virtual bool computeCells(CellRange cells, std::string &error);

  /// After a compute wave that left cells non-finite: finds the first bad
  /// cell, replays it step by step from the state before the wave and
  /// names the first step and variable that went bad. The host store then
  /// holds the state after the wave; the device's copy must be uploaded
  /// again before it runs (deviceStale).
  virtual bool diagnose(const WaveTask &task, NonFinite &where,
                        std::string &error) = 0;

  /// Kept by the scheduler: the device holds newer states than the host
  /// store for its range, or the reverse.
  bool hostStale = false, deviceStale = false;
  /// The device holds newer externals than the host store for its range
  /// (after waves that keep them on the device).
  bool externalsOnDevice = false;
  /// Bytes moved between host and device so far.
  double bytesToDevice = 0, bytesToHost = 0;

protected:
  Device(std::string id, const easyml_model_desc &desc,
         const easyml_variant &variant)
      : id_(std::move(id)), desc_(&desc), variant_(&variant) {}
  std::string id_;
  const easyml_model_desc *desc_;
  const easyml_variant *variant_;
  CellRange range_;
};

/// A CPU pool running `variant` (a CPU variant) on `threads` OpenMP
/// threads (0: the OpenMP default), named `id` ("cpu" for the usual one
/// pool; several pools side by side get distinct ids).
std::unique_ptr<Device> makeCpuDevice(const easyml_model_desc &desc,
                                      const easyml_variant &variant,
                                      int threads,
                                      const std::string &id = "cpu");
/// GPU `info` of `driver` running `variant` (cuda or rocm); null with
/// `error` when no code object of the variant loads on it.
std::unique_ptr<Device> makeGpuDevice(const easyml_model_desc &desc,
                                      const easyml_variant &variant,
                                      std::shared_ptr<GpuDriver> driver,
                                      const GpuDeviceInfo &info,
                                      std::string &error);

/// The number of threads the CPU pool uses with setting `threads`.
int cpuThreads(int threads);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_DEVICE_H
