//===- Simulation.cpp - cells of one model on the CPU ---------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Simulation.h"

#include "easyml/Runtime/GpuDriver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <omp.h>

using namespace easyml::rt;

static double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// What a GPU simulation holds: the driver, the loaded kernels and the
/// device copies of the simulation's arrays.
struct Simulation::Gpu {
  std::unique_ptr<GpuDriver> driver;
  GpuDeviceInfo device;
  const easyml_gpu_image *image = nullptr;
  void *init = nullptr, *compute = nullptr, *eval = nullptr;
  uint64_t sv = 0, lastSv = 0, params = 0, tables = 0, counters = 0, out = 0,
           extTable = 0, args = 0;
  std::vector<uint64_t> ext;
  /// The model's counters plus the kernels' count of non-finite cells.
  std::vector<int64_t> counterStage;
  int64_t nonFinite = 0;
  /// The host copy of the state is older than the device's.
  mutable bool hostStale = false;
  /// The host copy was written and must be pushed before the next kernel.
  mutable bool deviceStale = true;
  ~Gpu() {
    if (!driver)
      return;
    for (uint64_t p :
         {sv, lastSv, params, tables, counters, out, extTable, args})
      driver->release(p);
    for (uint64_t p : ext)
      driver->release(p);
  }
};

Simulation::~Simulation() = default;

Simulation::Simulation(const ModelHandle &model, int64_t numCells,
                       const std::string &variant, int device)
    : model_(model), variant_(model.variant(variant)), variantName_(variant),
      numCells_(numCells) {
  const easyml_model_desc &d = model.desc();
  params_.assign(d.param_defaults, d.param_defaults + d.num_params);
  for (int64_t f = 0; f < d.num_flags; ++f)
    params_.push_back(d.flag_defaults[f]);
  if (variant_ && variant_->device != EASYML_DEVICE_CPU)
    openGpu(device);
  if (variant_) {
    soa_ = variant_->layout == EASYML_LAYOUT_SOA;
    width_ = std::max<int64_t>(1, variant_->vector_width);
  }
  // Vector kernels read whole vectors: pad every row to the width.
  stride_ = (numCells + width_ - 1) / width_ * width_;
  sv_.assign(static_cast<size_t>(stride_) * d.sv_size, 0.0);
  ext_.assign(d.num_externals, AlignedVector(stride_, 0.0));
  for (auto &e : ext_)
    extPtrs_.push_back(e.data());
  tables_.assign(d.table_size, 0.0);
  out_.assign(static_cast<size_t>(stride_) * d.num_traces, 0.0);
  counters_.assign(d.num_counters, 0);
}

bool Simulation::valid(std::string &error) const {
  if (variant_ && gpuError_.empty())
    return true;
  std::string names, cpuNames;
  const easyml_model_desc &d = model_.desc();
  for (int64_t i = 0; i < d.num_variants; ++i) {
    names += (i ? ", " : "") + std::string(d.variants[i].name);
    if (d.variants[i].device == EASYML_DEVICE_CPU)
      cpuNames +=
          (cpuNames.empty() ? "" : ", ") + std::string(d.variants[i].name);
  }
  if (!gpuError_.empty())
    error = "variant '" + variantName_ + "' of model " + d.name +
            " runs on a GPU: " + gpuError_ +
            " (CPU variants: " + (cpuNames.empty() ? "none" : cpuNames) + ")";
  else if (variantName_.empty())
    error = "model " + std::string(d.name) +
            " has no CPU variant (compiled variants: " + names + ")";
  else
    error = "model " + std::string(d.name) + " has no variant '" +
            variantName_ + "' (compiled variants: " + names + ")";
  return false;
}

int Simulation::threads() const {
  return threads_ > 0 ? threads_ : omp_get_max_threads();
}

double &Simulation::state(int64_t cell, int64_t var) {
  if (gpu_) {
    // The caller may write through the reference.
    gpuStatesToHost();
    gpu_->deviceStale = true;
  }
  if (soa_)
    return sv_[static_cast<size_t>(var) * stride_ + cell];
  return sv_[static_cast<size_t>(cell) * model_.desc().sv_size + var];
}

double Simulation::trace(int64_t cell, int64_t k) const {
  if (soa_)
    return out_[static_cast<size_t>(k) * stride_ + cell];
  return out_[static_cast<size_t>(cell) * model_.desc().num_traces + k];
}

void Simulation::exportStates(double *aos) const {
  gpuStatesToHost();
  int64_t n = model_.desc().sv_size;
  if (!soa_) {
    std::copy(sv_.begin(), sv_.begin() + numCells_ * n, aos);
    return;
  }
  for (int64_t v = 0; v < n; ++v) {
    const double *row = sv_.data() + v * stride_;
    for (int64_t c = 0; c < numCells_; ++c)
      aos[c * n + v] = row[c];
  }
}

void Simulation::importStates(const double *aos) {
  if (gpu_) {
    gpuStatesToHost(); // rows' padding and nodal values stay as they are
    gpu_->deviceStale = true;
  }
  int64_t n = model_.desc().sv_size;
  if (!soa_) {
    std::copy(aos, aos + numCells_ * n, sv_.begin());
    return;
  }
  for (int64_t v = 0; v < n; ++v) {
    double *row = sv_.data() + v * stride_;
    for (int64_t c = 0; c < numCells_; ++c)
      row[c] = aos[c * n + v];
  }
}

double *Simulation::vm() {
  int64_t i = model_.desc().vm_index;
  return i < 0 ? nullptr : ext_[i].data();
}

double *Simulation::iion() {
  int64_t i = model_.desc().iion_index;
  return i < 0 ? nullptr : ext_[i].data();
}

easyml_kernel_args Simulation::args(int64_t begin, int64_t end) {
  easyml_kernel_args a{};
  a.begin = begin;
  a.end = end;
  a.dt = dt_;
  a.stride = stride_;
  a.sv = sv_.data();
  a.ext = extPtrs_.data();
  a.params = params_.data();
  a.tables = tables_.data();
  a.counters = counters_.data();
  a.out = out_.data();
  return a;
}

void Simulation::snapshot(int64_t begin, int64_t end) {
  const easyml_model_desc &d = model_.desc();
  if (soa_) {
    for (int64_t v = 0; v < d.sv_size; ++v)
      std::copy(sv_.begin() + v * stride_ + begin,
                sv_.begin() + v * stride_ + end,
                lastSv_.begin() + v * stride_ + begin);
  } else {
    std::copy(sv_.begin() + begin * d.sv_size, sv_.begin() + end * d.sv_size,
              lastSv_.begin() + begin * d.sv_size);
  }
  for (size_t e = 0; e < ext_.size(); ++e)
    std::copy(ext_[e].begin() + begin, ext_[e].begin() + end,
              lastExt_[e].begin() + begin);
}

void Simulation::runKernel(easyml_kernel_fn fn, int64_t step0, int64_t nsteps,
                           double stim, bool integrateVm, bool keepSnapshot) {
  int64_t n = numCells_;
  // No more threads than vectors of cells: idle OpenMP threads spin, and a
  // single cell (validation runs) would pay for them.
  int nthreads = static_cast<int>(std::max<int64_t>(
      1, std::min<int64_t>(threads(), (n + width_ - 1) / width_)));
#pragma omp parallel num_threads(nthreads)
  {
    // Static contiguous chunks, as openCARP's OpenMP loop over cells, split
    // at multiples of the vector width so no vector straddles two threads.
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t w = width_;
    int64_t begin = n * t / nt / w * w;
    int64_t end = t == nt - 1 ? n : n * (t + 1) / nt / w * w;
    if (begin < end) {
      // Each thread saves its own cells (in parallel, and warming its
      // cache for the kernel).
      if (keepSnapshot)
        snapshot(begin, end);
      easyml_kernel_args a = args(begin, end);
      a.step0 = step0;
      a.nsteps = nsteps;
      a.stim = stim;
      a.integrate_vm = integrateVm;
      fn(&a);
    }
  }
}

bool Simulation::runnable() const {
  return variant_ && (gpu_ || variant_->device == EASYML_DEVICE_CPU);
}

void Simulation::initialize(double dt) {
  dt_ = dt;
  if (!runnable())
    return;
  const easyml_model_desc &d = model_.desc();
  double t0 = now();
  if (d.build_tables && d.table_size) {
    easyml_kernel_args a = args(0, 0);
    d.build_tables(&a);
    // openCARP's check_LUT: report NaN entries with the grid value.
    tableWarnings.clear();
    for (int64_t t = 0; t < d.num_tables; ++t) {
      const easyml_table_desc &tab = d.tables[t];
      for (int64_t c = 0; c < tab.num_columns; ++c) {
        int64_t count = 0, first = -1;
        for (int64_t r = 0; r < tab.num_rows; ++r)
          if (std::isnan(tables_[tab.offset + r * tab.num_columns + c])) {
            if (first < 0)
              first = r;
            ++count;
          }
        if (count) {
          char buf[512];
          std::snprintf(buf, sizeof buf,
                        "lookup table %s: column %s is NaN at %s = %.10g "
                        "(row %lld; %lld NaN rows)",
                        tab.variable, tab.column_names[c], tab.variable,
                        tab.lo + first * tab.step,
                        static_cast<long long>(first),
                        static_cast<long long>(count));
          tableWarnings.push_back(buf);
        }
      }
    }
  }
  tablesSeconds += now() - t0;
  t0 = now();
  if (gpu_) {
    // Parameters and tables may have changed: push them.
    std::string error;
    if (allocateGpu() &&
        (!gpu_->driver->toDevice(gpu_->params, params_.data(),
                                 params_.size() * sizeof(double), error) ||
         !gpu_->driver->toDevice(gpu_->tables, tables_.data(),
                                 tables_.size() * sizeof(double), error)))
      gpuFail("uploading parameters and tables: " + error);
    runGpu("init", 0, numCells_, 0, 0, 0, false) &&
        runGpu("eval", 0, numCells_, 0, 0, 0, false);
  } else {
    runKernel(variant_->init, 0, 0, 0, false);
    runKernel(variant_->eval, 0, 0, 0, false);
  }
  initSeconds += now() - t0;
}

void Simulation::evaluate(int64_t step) {
  if (!runnable())
    return;
  if (gpu_)
    runGpu("eval", 0, numCells_, step, 0, 0, false);
  else
    runKernel(variant_->eval, step, 0, 0, false);
}

void Simulation::advance(int64_t step0, int64_t nsteps, double stim,
                         bool integrateVm) {
  if (!runnable())
    return;
  // Sized once (a model may have no states: check the externals too).
  if (lastSv_.size() != sv_.size() || lastExt_.size() != ext_.size()) {
    lastSv_.assign(sv_.size(), 0.0);
    lastExt_ = ext_;
  }
  lastStep0_ = step0;
  lastSteps_ = nsteps;
  lastStim_ = stim;
  lastIntegrate_ = integrateVm;
  double t0 = now();
  if (gpu_) {
    // The snapshot stays on the device; externals are small and on the
    // host already.
    lastExt_ = ext_;
    runGpu("compute", 0, numCells_, step0, nsteps, stim, integrateVm,
           /*snapshot=*/true);
  } else {
    runKernel(variant_->compute, step0, nsteps, stim, integrateVm,
              /*keepSnapshot=*/true);
  }
  computeSeconds += now() - t0;
}

//===----------------------------------------------------------------------===//
// GPU variants
//===----------------------------------------------------------------------===//

void Simulation::openGpu(int device) {
  GpuVendor vendor = variant_->device == EASYML_DEVICE_CUDA ? GpuVendor::Cuda
                                                            : GpuVendor::Rocm;
  auto gpu = std::make_unique<Gpu>();
  std::string &error = gpuError_;
  gpu->driver = GpuDriver::open(vendor, error);
  if (!gpu->driver)
    return;
  std::vector<GpuDeviceInfo> devices = gpu->driver->devices(error);
  if (device < 0 || device >= static_cast<int>(devices.size())) {
    error = "no " + std::string(vendorName(vendor)) + " device " +
            std::to_string(device) + " (" + std::to_string(devices.size()) +
            " found" + (error.empty() ? "" : ": " + error) + ")";
    return;
  }
  error.clear();
  gpu->device = devices[device];
  if (!gpu->driver->setDevice(device, error))
    return;
  // Choose the code object; for ROCm, whose driver does not name the chip
  // here, try each until one loads.
  void *module = nullptr;
  if (vendor == GpuVendor::Cuda) {
    gpu->image = gpu->driver->selectImage(*variant_, gpu->device, error);
    if (!gpu->image)
      return;
    module = gpu->driver->loadModule(gpu->image->data, error);
  } else {
    std::string chips, reason;
    for (int64_t i = 0; i < variant_->num_images && !module; ++i) {
      const easyml_gpu_image &image = variant_->images[i];
      chips += (chips.empty() ? "" : ", ") + std::string(image.chip);
      reason.clear();
      module = gpu->driver->loadModule(image.data, reason);
      if (module)
        gpu->image = &image;
    }
    if (!module)
      error = "no code object of variant " + std::string(variant_->name) +
              " loads on device " + std::to_string(device) + " (" +
              gpu->device.name +
              "); compiled for: " + (chips.empty() ? "nothing" : chips) +
              (reason.empty() ? "" : "; the last said: " + reason) +
              " (recompile with --rocm-chips)";
  }
  if (!module)
    return;
  if (!(gpu->init =
            gpu->driver->function(module, variant_->init_kernel, error)) ||
      !(gpu->compute =
            gpu->driver->function(module, variant_->compute_kernel, error)) ||
      !(gpu->eval =
            gpu->driver->function(module, variant_->eval_kernel, error)))
    return;
  gpu_ = std::move(gpu);
}

std::string Simulation::deviceDescription() const {
  if (!gpu_)
    return "CPU, " + std::to_string(threads()) + " threads";
  return std::string(vendorName(gpu_->driver->vendor())) + " device " +
         std::to_string(gpu_->device.index) + ": " + gpu_->device.name +
         (gpu_->image ? std::string(", code object ") + gpu_->image->chip
                      : std::string());
}

bool Simulation::gpuFail(const std::string &what) const {
  if (failure_.empty())
    failure_ = deviceDescription() + ": " + what;
  return false;
}

bool Simulation::gpuStatesToHost() const {
  if (!gpu_ || !gpu_->hostStale || !failure_.empty())
    return failure_.empty();
  std::string error;
  if (!gpu_->driver->toHost(sv_.data(), gpu_->sv, sv_.size() * sizeof(double),
                            error))
    return gpuFail("downloading the states: " + error);
  gpu_->hostStale = false;
  return true;
}

bool Simulation::allocateGpu() {
  Gpu &g = *gpu_;
  if (g.sv || !failure_.empty())
    return failure_.empty();
  std::string error;
  auto alloc = [&](uint64_t &p, size_t bytes) {
    if (!error.empty())
      return;
    p = g.driver->allocate(bytes, error);
  };
  alloc(g.sv, sv_.size() * sizeof(double));
  alloc(g.lastSv, sv_.size() * sizeof(double));
  alloc(g.params, params_.size() * sizeof(double));
  alloc(g.tables, tables_.size() * sizeof(double));
  alloc(g.counters, (counters_.size() + 1) * sizeof(int64_t));
  alloc(g.out, out_.size() * sizeof(double));
  g.ext.assign(ext_.size(), 0);
  for (size_t i = 0; i < ext_.size(); ++i)
    alloc(g.ext[i], ext_[i].size() * sizeof(double));
  alloc(g.extTable, std::max<size_t>(1, ext_.size()) * sizeof(uint64_t));
  alloc(g.args, sizeof(easyml_kernel_args));
  if (error.empty())
    g.driver->toDevice(g.extTable, g.ext.data(),
                       g.ext.size() * sizeof(uint64_t), error);
  if (!error.empty())
    return gpuFail("allocating device memory for " + std::to_string(numCells_) +
                   " cells: " + error);
  g.counterStage.assign(counters_.size() + 1, 0);
  return true;
}

bool Simulation::runGpu(const char *entry, int64_t begin, int64_t end,
                        int64_t step0, int64_t nsteps, double stim,
                        bool integrateVm, bool snapshot) {
  if (!failure_.empty())
    return false;
  Gpu &g = *gpu_;
  if (!g.sv)
    return gpuFail("initialize() must come before the first kernel");
  GpuDriver &drv = *g.driver;
  std::string error;
  const std::string name(entry);
  auto fail = [&](const std::string &what) {
    return gpuFail(what + ": " + error);
  };
  // Host writes since the last kernel go up; the externals always do (the
  // simulator may have set Vm), and are small next to the states.
  if (g.deviceStale) {
    if (!drv.toDevice(g.sv, sv_.data(), sv_.size() * sizeof(double), error))
      return fail("uploading the states");
    g.deviceStale = false;
  }
  for (size_t i = 0; i < ext_.size(); ++i)
    if (!drv.toDevice(g.ext[i], ext_[i].data(), ext_[i].size() * sizeof(double),
                      error))
      return fail(std::string("uploading external ") +
                  model_.desc().external_names[i]);
  std::copy(counters_.begin(), counters_.end(), g.counterStage.begin());
  g.counterStage.back() = 0;
  if (!drv.toDevice(g.counters, g.counterStage.data(),
                    g.counterStage.size() * sizeof(int64_t), error))
    return fail("uploading the counters");
  if (snapshot &&
      !drv.deviceToDevice(g.lastSv, g.sv, sv_.size() * sizeof(double), error))
    return fail("saving the states before the wave");

  easyml_kernel_args a{};
  a.begin = begin;
  a.end = end;
  a.nsteps = nsteps;
  a.step0 = step0;
  a.dt = dt_;
  a.stim = stim;
  a.integrate_vm = integrateVm;
  a.stride = stride_;
  a.sv = reinterpret_cast<double *>(g.sv);
  a.ext = reinterpret_cast<double **>(g.extTable);
  a.params = reinterpret_cast<const double *>(g.params);
  a.tables = reinterpret_cast<double *>(g.tables);
  a.counters = reinterpret_cast<int64_t *>(g.counters);
  a.out = reinterpret_cast<double *>(g.out);
  if (!drv.toDevice(g.args, &a, sizeof a, error))
    return fail("uploading the kernel arguments");

  void *fn = name == "init" ? g.init : name == "compute" ? g.compute : g.eval;
  const unsigned threads = 128;
  int64_t blocks = std::max<int64_t>(1, (end - begin + threads - 1) / threads);
  void *params[] = {&g.args};
  double ms = 0;
  if (!drv.launch(fn, static_cast<unsigned>(blocks), threads, params, ms,
                  error))
    return fail("kernel " + name + " on cells [" + std::to_string(begin) +
                ", " + std::to_string(end) + ")");
  if (name == "compute")
    gpuKernelMs += ms;

  // Externals, counters and traces come back at every event; the state
  // stays on the device until the host asks for it.
  for (size_t i = 0; i < ext_.size(); ++i)
    if (!drv.toHost(ext_[i].data(), g.ext[i], ext_[i].size() * sizeof(double),
                    error))
      return fail(std::string("downloading external ") +
                  model_.desc().external_names[i]);
  if (!drv.toHost(g.counterStage.data(), g.counters,
                  g.counterStage.size() * sizeof(int64_t), error))
    return fail("downloading the counters");
  std::copy(g.counterStage.begin(), g.counterStage.end() - 1,
            counters_.begin());
  g.nonFinite = name == "compute" ? g.counterStage.back() : 0;
  if (name == "eval" &&
      !drv.toHost(out_.data(), g.out, out_.size() * sizeof(double), error))
    return fail("downloading the traces");
  if (model_.desc().sv_size > 0)
    g.hostStale = true;
  return true;
}

std::string NonFinite::message() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "cell %lld, variable %s = %g at step %lld (t = %.4f ms)",
                static_cast<long long>(cell), variable.c_str(), value,
                static_cast<long long>(step), time);
  return buf;
}

int64_t Simulation::firstBadCell() const {
  const easyml_model_desc &d = model_.desc();
  for (int64_t c = 0; c < numCells_; ++c) {
    for (int64_t v = 0; v < d.sv_size; ++v) {
      size_t i = soa_ ? static_cast<size_t>(v) * stride_ + c
                      : static_cast<size_t>(c) * d.sv_size + v;
      if (!std::isfinite(sv_[i]))
        return c;
    }
    for (auto &e : ext_)
      if (!std::isfinite(e[c]))
        return c;
  }
  return -1;
}

bool Simulation::reportIfBad(int64_t cell, int64_t step,
                             NonFinite &where) const {
  const easyml_model_desc &d = model_.desc();
  auto report = [&](const std::string &name, double value) {
    where.cell = cell;
    where.variable = name;
    where.value = value;
    where.step = step;
    where.time = step * dt_;
    return true;
  };
  for (int64_t v = 0; v < d.num_states; ++v) {
    size_t i = soa_ ? static_cast<size_t>(v) * stride_ + cell
                    : static_cast<size_t>(cell) * d.sv_size + v;
    if (!std::isfinite(sv_[i]))
      return report(d.state_names[v], sv_[i]);
  }
  for (int64_t e = 0; e < d.num_externals; ++e)
    if (!std::isfinite(ext_[e][cell]))
      return report(std::string(d.external_names[e]) + " (" +
                        d.external_sim_names[e] + ")",
                    ext_[e][cell]);
  return false;
}

void Simulation::blameWaveStart(NonFinite &where) const {
  // No state or external went bad in the replay: the bad value came with
  // the cell (a nodal parameter).
  where.variable = "(a nodal parameter)";
  where.step = lastStep0_;
  where.time = lastStep0_ * dt_;
}

bool Simulation::checkFinite(NonFinite &where) {
  if (gpu_)
    return checkFiniteGpu(where);
  int64_t bad = firstBadCell();
  if (bad < 0)
    return true;
  // Replay the last advance for that cell, one step at a time, from the
  // saved state, to find the first step and variable that went bad.
  AlignedVector saveSv = sv_;
  std::vector<AlignedVector> saveExt = ext_;
  std::vector<int64_t> saveCounters = counters_;
  sv_ = lastSv_;
  ext_ = lastExt_;
  for (size_t i = 0; i < ext_.size(); ++i)
    extPtrs_[i] = ext_[i].data();
  where.cell = bad;
  for (int64_t k = 0; k < lastSteps_; ++k) {
    easyml_kernel_args a = args(bad, bad + 1);
    a.step0 = lastStep0_ + k;
    a.nsteps = 1;
    a.stim = lastStim_;
    a.integrate_vm = lastIntegrate_;
    variant_->compute(&a);
    if (reportIfBad(bad, lastStep0_ + k, where))
      break;
  }
  if (where.step < 0)
    blameWaveStart(where);
  sv_ = std::move(saveSv);
  ext_ = std::move(saveExt);
  for (size_t i = 0; i < ext_.size(); ++i)
    extPtrs_[i] = ext_[i].data();
  counters_ = saveCounters;
  return false;
}

bool Simulation::checkFiniteGpu(NonFinite &where) {
  Gpu &g = *gpu_;
  // The compute kernel counted the cells that went bad: nothing to copy
  // while that count is zero.
  if (!failure_.empty() || g.nonFinite == 0)
    return true;
  if (!gpuStatesToHost())
    return true;
  int64_t bad = firstBadCell();
  where.cell = bad < 0 ? 0 : bad;
  // Replay that cell on the device from the state saved before the wave,
  // one step per launch, fetching only its own values after each step.
  AlignedVector saveSv = sv_;
  std::vector<AlignedVector> saveExt = ext_;
  std::vector<int64_t> saveCounters = counters_;
  std::string error;
  const easyml_model_desc &d = model_.desc();
  ext_ = lastExt_;
  bool ok = g.driver->deviceToDevice(g.sv, g.lastSv,
                                     sv_.size() * sizeof(double), error) ||
            gpuFail("restoring the states before the wave: " + error);
  for (int64_t k = 0; ok && k < lastSteps_; ++k) {
    ok = runGpu("compute", where.cell, where.cell + 1, lastStep0_ + k, 1,
                lastStim_, lastIntegrate_);
    for (int64_t v = 0; ok && v < d.sv_size; ++v) {
      size_t i = static_cast<size_t>(v) * stride_ + where.cell;
      ok = g.driver->toHost(&sv_[i], g.sv + i * sizeof(double), sizeof(double),
                            error) ||
           gpuFail("downloading cell " + std::to_string(where.cell) + ": " +
                   error);
    }
    if (ok && reportIfBad(where.cell, lastStep0_ + k, where))
      break;
  }
  if (where.step < 0)
    blameWaveStart(where);
  // The host copy is the state after the wave again; the device gets it
  // back before the next kernel.
  sv_ = std::move(saveSv);
  ext_ = std::move(saveExt);
  counters_ = saveCounters;
  g.hostStale = false;
  g.deviceStale = true;
  return false;
}
