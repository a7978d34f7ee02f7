//===- CpuDevice.cpp - the CPU pool as a device ---------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The CPU pool: OpenMP threads running a CPU variant over static contiguous
// chunks of the device's range (as openCARP's loop), split at multiples of
// the vector width. Its wave runs when the scheduler waits for it, after the
// GPUs' waves are queued, so all devices compute at once; the work is
// synchronous there, so the pool's clock measures it. SoA variants
// (cpu-simd) compute in the host store itself; `baseline` keeps openCARP's
// one record per cell and converts at transfers.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Devices/DiffusionDevice.h"
#include "easyml/Runtime/Devices/HostCpus.h"

#include "FusedStep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <omp.h>

using namespace easyml::rt;

namespace {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

class CpuDevice final : public Device, public DiffusionDevice {
public:
  CpuDevice(const easyml_model_desc &desc, const easyml_variant &variant,
            int threads, const std::string &id)
      : Device(id, desc, variant), threads_(threads),
        soa_(variant.layout == EASYML_LAYOUT_SOA),
        width_(std::max<int64_t>(1, variant.vector_width)) {}

  Backend kind() const override { return Backend::Cpu; }
  std::string description() const override {
    std::string s = "CPU, " + std::to_string(cpuThreads(threads_)) +
                    " threads, " + variant_->name;
    if (width_ > 1)
      s += " (" + std::to_string(width_) + " cells per vector)";
    return s;
  }
  int64_t alignment() const override { return width_; }
  bool sharesHostStore() const override { return soa_; }

  bool bind(CellStore &store, std::string &) override {
    store_ = &store;
    int64_t rows = store.svRows();
    if (!soa_) {
      aos_.assign(static_cast<size_t>(store.cells()) * rows, 0.0);
      aosOut_.assign(static_cast<size_t>(store.cells()) * desc_->num_traces,
                     0.0);
      lastSv_.assign(aos_.size(), 0.0);
    } else {
      lastSv_.assign(static_cast<size_t>(store.stride()) * rows, 0.0);
    }
    lastExt_.assign(desc_->num_externals, AlignedVector(store.stride(), 0.0));
    counters_.assign(desc_->num_counters + 1, 0);
    return true;
  }

  bool setUniforms(const std::vector<double> &params,
                   const std::vector<double> &, // CPU kernels compute them
                   const std::vector<double> &tables, std::string &) override {
    params_ = params;
    tables_.assign(tables.begin(), tables.end());
    if (tables_.empty())
      tables_.push_back(0.0);
    return true;
  }

  bool own(CellRange range, std::string &) override {
    range_ = range;
    return true;
  }

  bool upload(CellRange r, unsigned rows, std::string &) override {
    if (soa_ || !(rows & kStateRows) || r.empty())
      return true;
    int64_t n = store_->svRows();
    for (int64_t v = 0; v < n; ++v) {
      const double *row = store_->sv(v);
      for (int64_t c = r.begin; c < r.end; ++c)
        aos_[c * n + v] = row[c];
    }
    return true;
  }

  bool download(CellRange r, unsigned rows, std::string &) override {
    if (soa_ || r.empty())
      return true;
    if (rows & kStateRows) {
      int64_t n = store_->svRows();
      for (int64_t v = 0; v < n; ++v) {
        double *row = store_->sv(v);
        for (int64_t c = r.begin; c < r.end; ++c)
          row[c] = aos_[c * n + v];
      }
    }
    if (rows & kTraceRows) {
      int64_t nt = desc_->num_traces;
      for (int64_t k = 0; k < nt; ++k) {
        double *row = store_->trace(k);
        for (int64_t c = r.begin; c < r.end; ++c)
          row[c] = aosOut_[c * nt + k];
      }
    }
    return true;
  }

  bool launch(const WaveTask &task, std::string &) override {
    // The pool computes on the caller's thread when it waits: the
    // scheduler queues every GPU's wave first, then waits for the CPU pool
    // while they run. (A thread of its own measured up to 15% slower on the
    // 2-core development machine, for the same instructions.)
    task_ = task;
    pending_ = true;
    return true;
  }

  bool wait(WaveTiming &timing, std::string &) override {
    if (pending_) {
      pending_ = false;
      run();
    } else if (chunked_) {
      chunked_ = false;
      finishWave(waveStart_);
    }
    timing = timing_;
    return true;
  }
  bool computesChunks() const override { return true; }
  int hostThreads() const override { return cpuThreads(threads_); }
  bool computeCells(CellRange cells, std::string &error) override;
  bool runsOnHost() const override { return true; }

  // Vm is in the host store: no halo to send, and the sub-step computes
  // into task.hostOut, committed once every device has read its halo.
  bool sendHalo(const DiffusionTask &, std::string &) override { return true; }
  bool diffuse(const DiffusionTask &task, std::string &error) override;
  bool finishDiffusion(const DiffusionTask &task, std::string &) override {
    if (!range_.empty())
      std::memcpy(task.hostVm + range_.begin, task.hostOut + range_.begin,
                  range_.size() * sizeof(double));
    return true;
  }

  bool fusesDiffusion() const override { return variant_->diffuse != nullptr; }
  DiffusionDevice *diffusion() override { return this; }

  bool diagnose(const WaveTask &task, NonFinite &where, std::string &) override;

private:
  easyml_kernel_args args(int64_t begin, int64_t end) {
    easyml_kernel_args a{};
    a.begin = begin;
    a.end = end;
    a.dt = task_.dt;
    a.stride = store_->stride();
    a.sv = soa_ ? store_->svBase() : aos_.data();
    a.ext = store_->extTable();
    a.params = params_.data();
    a.tables = tables_.data();
    a.counters = counters_.data();
    a.out = soa_ ? store_->traceBase() : aosOut_.data();
    a.param_rows = store_->paramRowTable();
    a.rec_every = 1;
    a.bio = store_->bioBase();
    a.bio_ca = store_->bioCa();
    return a;
  }

  /// The kernel's arguments for the current task over cells [begin, end),
  /// recording into `plan` where given.
  easyml_kernel_args waveArgs(int64_t begin, int64_t end, RecordPlan *plan) {
    const WaveTask &t = task_;
    easyml_kernel_args a = args(begin, end);
    a.step0 = t.step0;
    a.nsteps = t.entry == Entry::Compute ? t.nsteps : 0;
    a.stim = t.stim;
    a.integrate_vm = t.integrateVm;
    a.one_interval = t.oneInterval;
    if (t.oneInterval)
      a.bio = nullptr;
    if (plan) {
      int64_t ncells = plan->cells.size();
      a.rec = plan->host.data() + t.recOffset * plan->num * ncells;
      a.rec_slot = plan->slots.data();
      a.rec_num = plan->num;
      a.rec_begin = plan->cells.begin;
      a.rec_end = plan->cells.end;
      a.rec_stride = ncells;
      a.rec_first = t.recFirst;
      a.rec_every = t.recEvery;
      a.rec_samples = t.recSamples;
      a.rec_traces = plan->traces;
    }
    return a;
  }

  /// Saves cells [begin, end) as the state before the wave.
  void snapshot(int64_t begin, int64_t end) {
    int64_t rows = store_->svRows();
    if (soa_) {
      int64_t s = store_->stride();
      for (int64_t v = 0; v < rows; ++v)
        std::memcpy(lastSv_.data() + v * s + begin, store_->sv(v) + begin,
                    (end - begin) * sizeof(double));
    } else {
      std::memcpy(lastSv_.data() + begin * rows, aos_.data() + begin * rows,
                  (end - begin) * rows * sizeof(double));
    }
    for (int64_t e = 0; e < desc_->num_externals; ++e)
      std::memcpy(lastExt_[e].data() + begin, store_->ext(e) + begin,
                  (end - begin) * sizeof(double));
  }

  /// Per thread, the external table of a fused step whose write-only
  /// externals go to a scratch block. False when the model has none.
  bool prepareDiscard() {
    int64_t ne = desc_->num_externals;
    bool any = false;
    for (int64_t e = 0; e < ne; ++e)
      any = any || written(e);
    if (!any)
      return false;
    size_t nt = static_cast<size_t>(std::max(1, cpuThreads(threads_)));
    if (discardExt_.size() < nt) {
      discardExt_.resize(nt);
      discardRows_.resize(nt);
    }
    return true;
  }
  bool written(int64_t e) const {
    return desc_->external_access[e] == EASYML_ACCESS_WRITE &&
           e != desc_->vm_index;
  }
  /// The calling thread's table for cells [begin, end): the store's rows,
  /// but a write-only external's row is its scratch, shifted so that the
  /// kernel's first vector (from the multiple of the width at or below
  /// `begin`) lands on the scratch's first element; the scratch covers
  /// every lane of the vectors the kernel reads.
  double **discardTable(int64_t begin, int64_t end) {
    int t = omp_get_thread_num();
    int64_t ne = desc_->num_externals, w = std::max<int64_t>(1, width_);
    int64_t lo = begin / w * w, span = (end + w - 1) / w * w - lo;
    std::vector<double *> &table = discardExt_[t];
    AlignedVector &rows = discardRows_[t];
    if (static_cast<int64_t>(rows.size()) < ne * span)
      rows.assign(ne * span, 0.0);
    table.assign(store_->extTable(), store_->extTable() + ne);
    for (int64_t e = 0; e < ne; ++e)
      if (written(e))
        table[e] = reinterpret_cast<double *>(
            reinterpret_cast<uintptr_t>(rows.data() + e * span) -
            static_cast<uintptr_t>(lo) * sizeof(double));
    return table.data();
  }

  double &svAt(AlignedVector &base, int64_t cell, int64_t v) {
    return soa_ ? base[v * store_->stride() + cell]
                : base[cell * store_->svRows() + v];
  }
  double &svNow(int64_t cell, int64_t v) {
    return soa_ ? store_->sv(v)[cell] : aos_[cell * store_->svRows() + v];
  }

  void run();
  /// The start and end of a wave's clock and counters.
  void startWave();
  void finishWave(double t0);
  /// The threads computing cells [begin, end) of the current task (no
  /// fused step), each saving its cells first when snapshotValid_.
  void computeSpan(int64_t begin, int64_t end);

  int threads_;
  bool soa_;
  int64_t width_;
  CellStore *store_ = nullptr;
  std::vector<double> params_, tables_;
  AlignedVector aos_, aosOut_, lastSv_;
  std::vector<AlignedVector> lastExt_;
  std::vector<int64_t> counters_;
  WaveTask task_;
  WaveTiming timing_;
  bool pending_ = false;
  /// The current wave is computed in chunks (computeCells) since
  /// waveStart_.
  bool chunked_ = false;
  double waveStart_ = 0;
  /// The last compute wave saved the cells' state before it (a fused
  /// tissue step does not: it would double the step's memory traffic).
  bool snapshotValid_ = false;
  FusedStepRunner fused_;
  std::vector<std::vector<double *>> discardExt_;
  std::vector<AlignedVector> discardRows_;
};

void CpuDevice::startWave() {
  std::fill(counters_.begin(), counters_.end(), 0);
  timing_ = WaveTiming{};
}

void CpuDevice::finishWave(double t0) {
  timing_.seconds = now() - t0;
  timing_.kernelSeconds = timing_.seconds;
  timing_.counters.assign(counters_.begin(), counters_.end() - 1);
  timing_.nonFinite = task_.entry == Entry::Compute ? counters_.back() : 0;
}

void CpuDevice::run() {
  double t0 = now();
  startWave();
  const WaveTask &t = task_;
  int64_t n = range_.size();
  if (n > 0 && t.fused) {
    snapshotValid_ = false;
    easyml_kernel_fn fn = variant_->compute;
    RecordPlan *plan =
        t.recSamples > 0 && !t.record->cells.intersect(range_).empty()
            ? t.record
            : nullptr;
    // Samples recorded in the kernel read every external: none discarded.
    bool discard = t.fused->discardWritten && !plan && prepareDiscard();
    fused_.run(*t.fused, range_, width_, cpuThreads(threads_),
               variant_->diffuse,
               [&](int64_t begin, int64_t end, double *vmBefore) {
                 easyml_kernel_args a = waveArgs(begin, end, plan);
                 if (discard)
                   a.ext = discardTable(begin, end);
                 a.vm_before = vmBefore;
                 fn(&a);
               });
  } else if (n > 0) {
    // A one-step wave (a tissue's ionic step) needs no state to replay
    // from: the variable found bad after it went bad in that step. Saving
    // it would be a second pass over the states every step.
    snapshotValid_ = t.entry == Entry::Compute && t.snapshot && t.nsteps > 1;
    computeSpan(range_.begin, range_.end);
  }
  finishWave(t0);
}

void CpuDevice::computeSpan(int64_t first, int64_t last) {
  const WaveTask &t = task_;
  easyml_kernel_fn fn = t.entry == Entry::Init      ? variant_->init
                        : t.entry == Entry::Compute ? variant_->compute
                                                    : variant_->eval;
  CellRange span{first, last};
  int64_t n = span.size(), w = width_;
  // No more threads than vectors of cells: idle OpenMP threads spin, and a
  // single cell (validation runs) would pay for them.
  int nthreads = static_cast<int>(std::max<int64_t>(
      1, std::min<int64_t>(cpuThreads(threads_), (n + w - 1) / w)));
  RecordPlan *plan = t.entry == Entry::Compute && t.recSamples > 0 &&
                             !t.record->cells.intersect(span).empty()
                         ? t.record
                         : nullptr;
  const PoolBinding bind = PoolBinding::current();
#pragma omp parallel num_threads(nthreads)
  {
    bind.hold();
    int tid = omp_get_thread_num(), nt = omp_get_num_threads();
    // Threads meet on whole vectors (a span shared with another pool can
    // start inside one: the kernel masks the lanes below it).
    auto bound = [&](int k) {
      return k == 0    ? first
             : k == nt ? last
                       : std::clamp((first + n * k / nt) / w * w, first, last);
    };
    int64_t begin = bound(tid), end = bound(tid + 1);
    if (begin < end) {
      // Each thread saves its own cells (in parallel, and warming its
      // cache for the kernel).
      if (snapshotValid_)
        snapshot(begin, end);
      easyml_kernel_args a = waveArgs(begin, end, plan);
      fn(&a);
      if (t.entry == Entry::Eval && !soa_) {
        // Traced values into the host store's rows.
        int64_t ntr = desc_->num_traces;
        for (int64_t k = 0; k < ntr; ++k) {
          double *row = store_->trace(k);
          for (int64_t c = begin; c < end; ++c)
            row[c] = aosOut_[c * ntr + k];
        }
      }
    }
  }
}

/// One chunk of a wave shared with another host device: the first chunk
/// starts the wave's clock; wait() stops it.
bool CpuDevice::computeCells(CellRange cells, std::string &error) {
  if (pending_) {
    if (task_.fused) {
      error = "a fused tissue step cannot be computed in chunks";
      return false;
    }
    pending_ = false;
    chunked_ = true;
    waveStart_ = now();
    startWave();
    snapshotValid_ =
        task_.entry == Entry::Compute && task_.snapshot && task_.nsteps > 1;
  }
  if (!cells.empty())
    computeSpan(cells.begin, cells.end);
  return true;
}

bool CpuDevice::diagnose(const WaveTask &task, NonFinite &where,
                         std::string &) {
  const easyml_model_desc &d = *desc_;
  int64_t rows = store_->svRows();
  auto badValue = [&](int64_t c, std::string &name, double &value) {
    for (int64_t v = 0; v < d.num_states; ++v)
      if (!std::isfinite(svNow(c, v))) {
        name = d.state_names[v];
        value = svNow(c, v);
        return true;
      }
    for (int64_t e = 0; e < d.num_externals; ++e)
      if (!std::isfinite(store_->ext(e)[c])) {
        name = std::string(d.external_names[e]) + " (" +
               d.external_sim_names[e] + ")";
        value = store_->ext(e)[c];
        return true;
      }
    return false;
  };
  std::string name;
  double value = 0;
  int64_t bad = -1;
  // After a fused tissue step a bad Vm has already spread to the
  // neighbours: the first cell with a bad state is the one that went bad
  // (after a one-step wave, the first too).
  if (!snapshotValid_)
    for (int64_t c = range_.begin; c < range_.end && bad < 0; ++c)
      for (int64_t v = 0; v < d.num_states && bad < 0; ++v)
        if (!std::isfinite(svNow(c, v))) {
          bad = c;
          name = d.state_names[v];
          value = svNow(c, v);
        }
  for (int64_t c = range_.begin; c < range_.end && bad < 0; ++c)
    if (badValue(c, name, value))
      bad = c;
  where.cell = bad < 0 ? range_.begin : bad;
  int64_t c = where.cell;
  if (!snapshotValid_) {
    // No state before the wave to replay from (a wave one step long): the
    // variable found bad after it.
    where.variable = bad < 0 ? "(a nodal parameter)" : name;
    where.value = value;
    where.step = task.step0;
    where.time = task.step0 * task.dt;
    return true;
  }
  // Replay that cell alone, one step at a time, from the saved state; then
  // put its state after the wave back.
  std::vector<double> after(rows), afterExt(d.num_externals);
  for (int64_t v = 0; v < rows; ++v) {
    after[v] = svNow(c, v);
    svNow(c, v) = svAt(lastSv_, c, v);
  }
  for (int64_t e = 0; e < d.num_externals; ++e) {
    afterExt[e] = store_->ext(e)[c];
    store_->ext(e)[c] = lastExt_[e][c];
  }
  std::vector<int64_t> saved = counters_;
  task_ = task;
  // Steps crossed as one interval are replayed as one.
  int64_t replays = task.oneInterval ? 1 : task.nsteps;
  for (int64_t k = 0; k < replays; ++k) {
    easyml_kernel_args a = args(c, c + 1);
    a.step0 = task.step0 + k;
    a.nsteps = task.oneInterval ? task.nsteps : 1;
    a.stim = task.stim;
    a.integrate_vm = task.integrateVm;
    a.one_interval = task.oneInterval;
    if (task.oneInterval)
      a.bio = nullptr;
    variant_->compute(&a);
    if (badValue(c, name, value)) {
      where.variable = name;
      where.value = value;
      where.step = task.step0 + k;
      where.time = where.step * task.dt;
      break;
    }
  }
  if (where.step < 0) {
    // No state or external went bad in the replay: the bad value came with
    // the cell (a nodal parameter).
    where.variable = "(a nodal parameter)";
    where.step = task.step0;
    where.time = task.step0 * task.dt;
  }
  counters_ = saved;
  for (int64_t v = 0; v < rows; ++v)
    svNow(c, v) = after[v];
  for (int64_t e = 0; e < d.num_externals; ++e)
    store_->ext(e)[c] = afterExt[e];
  return true;
}

} // namespace

int easyml::rt::cpuThreads(int threads) {
  return threads > 0 ? threads : omp_get_max_threads();
}

std::unique_ptr<Device> easyml::rt::makeCpuDevice(const easyml_model_desc &desc,
                                                  const easyml_variant &variant,
                                                  int threads,
                                                  const std::string &id) {
  return std::make_unique<CpuDevice>(desc, variant, threads, id);
}

/// The variant's generated operator over the range, in chunks over the
/// pool's threads (each point's result depends on no chunking).
bool CpuDevice::diffuse(const DiffusionTask &task, std::string &error) {
  if (range_.empty())
    return true;
  if (!variant_->diffuse) {
    error = std::string("variant ") + variant_->name +
            " has no diffusion operator (compiled for an ABI before 6)";
    return false;
  }
  constexpr int64_t kChunk = 8192;
  const int64_t begin = range_.begin, n = range_.size();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  easyml_diffusion_args base = task.grid;
  base.v = task.hostVm;
  base.out = task.hostOut;
  base.flags = task.flags;
  base.src = task.src;
  easyml_diffuse_fn fn = variant_->diffuse;
  int threads = threads_ > 0 ? threads_ : omp_get_max_threads();
  const PoolBinding bind = PoolBinding::current();
#pragma omp parallel num_threads(threads) if (chunks > 1)
  {
    bind.hold();
#pragma omp for schedule(static)
    for (int64_t k = 0; k < chunks; ++k) {
      easyml_diffusion_args a = base;
      a.begin = begin + k * kChunk;
      a.end = std::min(begin + n, a.begin + kChunk);
      fn(&a);
    }
  }
  return true;
}
