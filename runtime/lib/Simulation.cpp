//===- Simulation.cpp - cells of one model on the CPU ---------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Simulation.h"

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

Simulation::Simulation(const ModelHandle &model, int64_t numCells,
                       const std::string &variant)
    : model_(model), variant_(model.variant(variant)), variantName_(variant),
      numCells_(numCells) {
  const easyml_model_desc &d = model.desc();
  params_.assign(d.param_defaults, d.param_defaults + d.num_params);
  for (int64_t f = 0; f < d.num_flags; ++f)
    params_.push_back(d.flag_defaults[f]);
  // This simulation drives CPU kernels; GPU variants need a GPU device.
  if (variant_ && variant_->device != EASYML_DEVICE_CPU) {
    gpuVariant_ = true;
    variant_ = nullptr;
  }
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
  if (variant_)
    return true;
  std::string names, cpuNames;
  const easyml_model_desc &d = model_.desc();
  for (int64_t i = 0; i < d.num_variants; ++i) {
    names += (i ? ", " : "") + std::string(d.variants[i].name);
    if (d.variants[i].device == EASYML_DEVICE_CPU)
      cpuNames +=
          (cpuNames.empty() ? "" : ", ") + std::string(d.variants[i].name);
  }
  if (gpuVariant_)
    error = "variant '" + variantName_ + "' of model " + d.name +
            " runs on a GPU, not on this CPU simulation (CPU variants: " +
            (cpuNames.empty() ? "none" : cpuNames) + ")";
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

void Simulation::initialize(double dt) {
  dt_ = dt;
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
  runKernel(variant_->init, 0, 0, 0, false);
  runKernel(variant_->eval, 0, 0, 0, false);
  initSeconds += now() - t0;
}

void Simulation::evaluate(int64_t step) {
  runKernel(variant_->eval, step, 0, 0, false);
}

void Simulation::advance(int64_t step0, int64_t nsteps, double stim,
                         bool integrateVm) {
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
  runKernel(variant_->compute, step0, nsteps, stim, integrateVm,
            /*keepSnapshot=*/true);
  computeSeconds += now() - t0;
}

std::string NonFinite::message() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "cell %lld, variable %s = %g at step %lld (t = %.4f ms)",
                static_cast<long long>(cell), variable.c_str(), value,
                static_cast<long long>(step), time);
  return buf;
}

bool Simulation::checkFinite(NonFinite &where) {
  const easyml_model_desc &d = model_.desc();
  int64_t bad = -1;
  for (int64_t c = 0; c < numCells_ && bad < 0; ++c) {
    for (int64_t v = 0; v < d.sv_size; ++v)
      if (!std::isfinite(state(c, v)))
        bad = c;
    for (auto &e : ext_)
      if (!std::isfinite(e[c]))
        bad = c;
  }
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
    auto report = [&](const std::string &name, double value) {
      where.variable = name;
      where.value = value;
      where.step = lastStep0_ + k;
      where.time = (lastStep0_ + k) * dt_;
    };
    for (int64_t v = 0; v < d.num_states && where.step < 0; ++v)
      if (!std::isfinite(state(bad, v)))
        report(d.state_names[v], state(bad, v));
    for (int64_t e = 0; e < d.num_externals && where.step < 0; ++e)
      if (!std::isfinite(ext_[e][bad]))
        report(std::string(d.external_names[e]) + " (" +
                   d.external_sim_names[e] + ")",
               ext_[e][bad]);
    if (where.step >= 0)
      break;
  }
  if (where.step < 0) {
    where.variable = "(a nodal parameter)";
    where.step = lastStep0_;
    where.time = lastStep0_ * dt_;
  }
  sv_ = std::move(saveSv);
  ext_ = std::move(saveExt);
  for (size_t i = 0; i < ext_.size(); ++i)
    extPtrs_[i] = ext_[i].data();
  counters_ = saveCounters;
  return false;
}
