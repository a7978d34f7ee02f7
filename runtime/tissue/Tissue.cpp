//===- Tissue.cpp - monodomain reaction-diffusion on a grid ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Tissue/Tissue.h"
#include "easyml/ABI/Backend.h"
#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Devices/HostCpus.h"
#include "easyml/Runtime/Simulation/Simulation.h"
#include "easyml/Runtime/Simulation/SimulationInterface.h"
#include "easyml/Runtime/Tissue/TissueComm.h"

#include "ConjugateGradient.h"
#include "GridOperator.h"
#include "RankBlock.h"
#include "TissueBeats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

using namespace easyml::rt;

namespace {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// Points per parallel chunk of the activation pass.
constexpr int64_t kChunk = GridOperator::kChunk;

/// A CPU variant's diffusion operator (ABI 6), or null.
easyml_diffuse_fn diffusionEntry(const easyml_variant &v) {
#if EASYML_ABI_VERSION >= 6
  if (backendOf(v) == Backend::Cpu)
    return v.diffuse;
#endif
  (void)v;
  return nullptr;
}

} // namespace

/// The model's diffusion operator: that of the CPU pool's variant, else of
/// any CPU variant (the operator is the same in every variant).
bool Tissue::generatedDiffusion(std::string &error) {
  const easyml_model_desc &d = sim_.desc();
  std::vector<const easyml_variant *> order = {&sim_.coupling()->variant()};
  for (int64_t i = 0; i < d.num_variants; ++i)
    order.push_back(&d.variants[i]);
  for (const easyml_variant *v : order) {
    easyml_diffuse_fn fn = diffusionEntry(*v);
    if (fn) {
      diffuse_ = [fn](const easyml_diffusion_args &a) { fn(&a); };
      return true;
    }
  }
  error = std::string("model ") + d.name +
          " has no diffusion operator: compile it again with this "
          "version of easyml-compile";
  return false;
}

Tissue::Tissue(SimulationInterface &sim, TissueGrid grid,
               Conductivity conductivity, TissueOptions options,
               TissueComm *comm)
    : sim_(sim), comm_(comm), grid_(std::move(grid)),
      conductivity_(conductivity), options_(options),
      beats_(std::make_unique<TissueBeats>(sim, cellPoint_, grid_)),
      host_(std::make_unique<GridOperator>(grid_, flags_, options_, diffuse_)) {
}

int64_t Tissue::beats() const { return beats_->beats(); }

double Tissue::stableStep(const TissueGrid &grid, const Conductivity &c) {
  double sum = 0;
  for (int a = 0; a < 3; ++a)
    if (grid.n[a] > 1)
      sum += c.diffusion(a) / (grid.h[a] * grid.h[a]);
  return sum > 0 ? 1.0 / (2.0 * sum) : INFINITY;
}

Status Tissue::initialize() {
  std::string error;
  if (!setUp(error))
    return Status::invalid(error);
  return Status();
}

bool Tissue::setUp(std::string &error) {
  if (std::string e = grid_.check(); !e.empty())
    return error = e, false;
  if (std::string e = conductivity_.check(); !e.empty())
    return error = e, false;
  if (!(options_.dt > 0) || !std::isfinite(options_.dt))
    return error = "the time step is " + number(options_.dt) +
                   " ms: it must be positive",
           false;
  if (sim_.ranks() == 1 && !sim_.coupling())
    return error = "the simulation holds no cells", false;
  const ProcessGrid &pg = options_.processGrid;
  if (!pg.automatic())
    if (std::string e = checkProcessGrid(grid_, pg, sim_.ranks()); !e.empty())
      return error = e, false;
  boxes_ = sim_.ranks() > 1 && !pg.automatic() && !pg.slabs(grid_);
  cellPoint_ = tissueCellPoints(grid_, boxes_ ? pg : ProcessGrid());
  if (static_cast<int64_t>(cellPoint_.size()) != sim_.numCells())
    return error = "the grid has " + std::to_string(cellPoint_.size()) +
                   " points of tissue, the simulation " +
                   std::to_string(sim_.numCells()) + " cells",
           false;
  if (cellPoint_.empty())
    return error = "the grid has no tissue (the mask is all zero)", false;
  double bound = stableStep(grid_, conductivity_);
  int64_t m = 1;
  if (options_.scheme == TissueOptions::Explicit) {
    if (options_.substeps > 0 && options_.dt / options_.substeps > bound)
      return error = "explicit diffusion is unstable: a sub-step of " +
                     number(options_.dt / options_.substeps) +
                     " ms is longer than the stability bound " +
                     number(bound) + " ms (use at least " +
                     std::to_string(static_cast<int64_t>(
                         std::ceil(options_.dt / bound))) +
                     " sub-steps, a smaller dt or crank-nicolson)",
             false;
    m = options_.substeps > 0
            ? options_.substeps
            : std::max<int64_t>(1, std::ceil(options_.dt / bound - 1e-12));
  }
  double h = options_.dt / m;
  for (int a = 0; a < 3; ++a)
    c_[a] = grid_.n[a] > 1 ? conductivity_.diffusion(a) * h /
                                 (grid_.h[a] * grid_.h[a])
                           : 0;
  flags_ = grid_.diffusionFlags();
  size_t n = grid_.points();
  identity_ = grid_.mask.empty();
  onDevices_ = identity_ && options_.scheme == TissueOptions::Explicit &&
               !options_.diffusionOnHost && !boxes_;
  fusable_ = onDevices_ && sim_.ranks() == 1;
  deviceActivation_ = fusable_ && !options_.activationOnHost;
  // The host's operator, where the diffusion step runs on the host.
  if ((sim_.ranks() > 1 && !initializeRanks(error)) ||
      (!onDevices_ && !generatedDiffusion(error)))
    return false;
  v_.assign(identity_ ? 0 : n, 0);
  out_.assign(n, 0);
  src_.assign(n, 0);
  // Across ranks, per cell of this rank; else per point.
  lat_.assign(ranked_ ? ranks_->cells().size() : n, NAN);
  for (const TissueStimulus &s : stimuli_) {
    stimulusPoints_.push_back(s.region.select(grid_));
    if (stimulusPoints_.back().empty())
      return error = "a stimulus region holds no point of tissue", false;
  }
  if (!sim_.initialize(options_.dt))
    return error = sim_.failure(), false;
  if (Status bio = options_.biomarkers
                       ? sim_.biomarkers().enable(BiomarkerOptions())
                       : Status();
      !bio.ok())
    return error = bio.message(), false;
  sim_.coupling()->keepExternalsOnDevices(onDevices_);
  // Across ranks a step's halos couple every rank: a rank alone cannot
  // run one again.
  stepCopies_ = !ranked_;
  sim_.coupling()->keepStepCopies(stepCopies_);
  stimulusOn_.assign(stimuli_.size(), false);
  tmp_.assign(m > 1 ? n : 0, 0);
  gatherVm();
  if (!ranked_) {
    prev_.assign(gridVm(), gridVm() + n);
  } else {
    ranks_->loadVm(sim_.coupling()->vm());
    prev_ = ranks_->cellVm();
  }
  report_ = TissueReport();
  report_.processGrid =
      pg.automatic() ? chooseProcessGrid(grid_, sim_.ranks(), false).p : pg.p;
  report_.points = grid_.points();
  report_.tissuePoints = cellPoint_.size();
  report_.substeps = m;
  prevStale_ = false;
  initialized_ = true;
  return true;
}

double *Tissue::gridVm() {
  if (ranked_)
    return ranks_->buffer().data();
  return identity_ ? sim_.coupling()->vm() : v_.data();
}

void Tissue::gatherVm() {
  // Across ranks a block's Vm is its buffer's (diffuseOnRanks*).
  if (identity_ || ranked_)
    return;
  const double *vm = sim_.coupling()->vm();
  for (size_t k = 0; k < cellPoint_.size(); ++k)
    v_[cellPoint_[k]] = vm[k];
}

void Tissue::scatterVm() {
  if (identity_ || ranked_)
    return;
  double *vm = sim_.coupling()->vm();
  for (size_t k = 0; k < cellPoint_.size(); ++k)
    vm[k] = v_[cellPoint_[k]];
}

Tissue::~Tissue() {
  if (deviceActivation_ && sim_.coupling())
    sim_.coupling()->dropActivation();
}

bool Tissue::syncHostVm() {
  if (!hostVmStale_)
    return true;
  if (!sim_.coupling()->syncVm())
    return false;
  hostVmStale_ = false;
  return true;
}

Status Tissue::syncHost() {
  bool ok = syncHostVm() && (!deviceActivation_ || ranked_ ||
                             sim_.coupling()->releaseActivation(/*keep=*/true));
  if (!ok)
    return Status::failed("bringing the devices' values to the host: " +
                          sim_.failure());
  return Status();
}

std::vector<double> Tissue::vm() {
  syncHostVm();
  if (ranked_)
    return ranks_->gatherCells(ranks_->cellVm(), sim_.numCells());
  std::vector<double> out(grid_.points(), NAN);
  const double *v = identity_ ? sim_.coupling()->vm() : v_.data();
  for (int64_t p : cellPoint_)
    out[p] = v[p];
  return out;
}

std::vector<double> Tissue::activationTimes() {
  if (ranked_)
    return ranks_->gatherCells(lat_, sim_.numCells());
  if (deviceActivation_)
    sim_.coupling()->releaseActivation(/*keep=*/true);
  return lat_;
}

/// The stimulus of `step` as a source of the diffusion step: dt * I/Cm.
void Tissue::stimulusSource(int64_t step) {
  // Clear the points of the stimuli that were on (not the whole grid).
  for (size_t s = 0; hasSource_ && s < stimuli_.size(); ++s)
    if (stimulusOn_[s])
      for (int64_t p : stimulusPoints_[s])
        src_[p] = 0;
  hasSource_ = false;
  for (size_t s = 0; s < stimuli_.size(); ++s) {
    bool on = stimuli_[s].onAtStep(step, options_.dt);
    if (on != stimulusOn_[s])
      ++srcVersion_;
    stimulusOn_[s] = on;
    if (!on)
      continue;
    double add = options_.dt * stimuli_[s].rate(conductivity_);
    for (int64_t p : stimulusPoints_[s])
      src_[p] += add;
    hasSource_ = true;
  }
}

/// Sub-steps from Vm into out_ and back and forth with tmp_; the result
/// is copied into Vm.
bool Tissue::diffuseExplicit() {
  double *v = gridVm();
  const double *in = v;
  double *buffers[2] = {out_.data(), tmp_.data()};
  for (int64_t s = 0; s < report_.substeps; ++s) {
    double *to = buffers[s % 2];
    host_->apply(in, to, c_, s == 0 && hasSource_ ? src_.data() : nullptr);
    in = to;
  }
  std::memcpy(v, in, sizeof(double) * grid_.points());
  return true;
}

/// One sub-step of the grid on the devices, without its source.
DiffusionTask Tissue::diffusionTask() {
  DiffusionTask task;
  task.grid.sx = 1;
  task.grid.sy = grid_.n[0];
  task.grid.sz = grid_.n[0] * grid_.n[1];
  task.grid.cx = c_[0];
  task.grid.cy = c_[1];
  task.grid.cz = c_[2];
  task.halo = grid_.n[2] > 1   ? task.grid.sz
              : grid_.n[1] > 1 ? task.grid.sy
                               : 1;
  task.flags = flags_.data();
  task.hostVm = gridVm();
  task.hostOut = out_.data();
  return task;
}

/// The sub-steps on the devices, the stimulus in the first; Vm comes to
/// the host after the last.
bool Tissue::diffuseOnDevices(std::string &error, int64_t first) {
  DiffusionTask task = diffusionTask();
  for (int64_t s = first; s < report_.substeps; ++s) {
    task.src = s == 0 && hasSource_ ? src_.data() : nullptr;
    task.srcVersion = srcVersion_;
    bool last = s + 1 == report_.substeps;
    // The GPUs' activation pass in the last sub-step; Vm stays there
    // (not in a step a copy holds the start of: the host does it then).
    if (last && deviceActivation_ && !stepCopied_) {
      act_ = DeviceActivation();
      act_.lat = lat_.data();
      act_.prev = prev_.data();
      act_.threshold = options_.activationThreshold;
      act_.t1 = (step_ + 1) * options_.dt;
      act_.dt = options_.dt;
      task.activation = &act_;
    }
    task.downloadVm = last && !task.activation;
    if (!sim_.coupling()->sendHalos(task) || !sim_.coupling()->diffuse(task))
      return error = sim_.failure(), false;
  }
  activatedOnDevices_ = task.activation != nullptr;
  activationOnGpus_ = activationOnGpus_ || activatedOnDevices_;
  hostVmStale_ = hostVmStale_ || (activatedOnDevices_ && !act_.done.empty());
  return true;
}

bool Tissue::finishDeviceActivation(std::string &error) {
  activated_ += act_.activated;
  report_.activatedOnDevices += act_.activated;
  if (act_.nonFinite > 0) {
    // The lowest point that is not finite, from Vm brought back.
    if (!syncHostVm())
      return error = sim_.failure(), false;
    const double *v = gridVm();
    for (int64_t p = 0; p < grid_.points(); ++p)
      if (!std::isfinite(v[p])) {
        error = nonFiniteError(p, step_ * options_.dt);
        return false;
      }
  }
  return updateActivation(step_, act_.done, error);
}

/// (I - A/2) v' = (I + A/2) v + src, A = dt D L: the operator with
/// coefficients +c/2 gives the right-hand side and with -c/2 the matrix
/// (symmetric positive definite), which the conjugate gradient inverts.
bool Tissue::diffuseCrankNicolson(std::string &error) {
  const int64_t n = grid_.points();
  double plus[3], minus[3];
  for (int a = 0; a < 3; ++a) {
    plus[a] = 0.5 * c_[a];
    minus[a] = -0.5 * c_[a];
  }
  std::vector<double> &b = out_;
  double *x = gridVm();
  host_->apply(x, b.data(), plus, hasSource_ ? src_.data() : nullptr);
  r_.resize(n);
  p_.resize(n);
  q_.resize(n);
  ConjugateGradient cg;
  cg.apply = [&](const double *in, double *out) {
    host_->apply(in, out, minus, nullptr);
    return true;
  };
  cg.dot = [&](const double *u, const double *v) { return host_->dot(u, v); };
  cg.tolerance = options_.cgTolerance;
  cg.maxIterations = options_.cgMaxIterations;
  return solved(cg.solve(n, x, b.data(), r_.data(), q_.data(), p_.data()),
                error);
}

bool Tissue::solved(const CgResult &r, std::string &error) {
  report_.cgIterations += r.iterations;
  if (!r.applied)
    return false;
  if (!r.converged)
    return error = "crank-nicolson: the conjugate gradient did not converge "
                   "in " +
                   std::to_string(r.iterations) + " iterations at step " +
                   std::to_string(step_) + " (relative residual " +
                   number(std::sqrt(r.rr / r.bb)) + ")",
           false;
  return true;
}

namespace {

/// A point's new Vm v: its activation time where it crosses the
/// threshold upwards (interpolated within the step ending at t1), the
/// lowest bad point.
inline void activate(int64_t p, double v, double thr, double t1, double dt,
                     double &prev, double &lat, int64_t &found,
                     int64_t &bad) {
  double before = prev;
  if (!std::isfinite(v))
    bad = std::min(bad, p);
  if (before < thr && v >= thr && std::isnan(lat)) {
    lat = t1 - dt * (v - thr) / (v - before);
    ++found;
  }
  prev = v;
}

/// Whether any of n new values v is not finite or crosses the threshold
/// from prev (vectorised: most runs of most steps have neither).
inline bool eventful(const double *v, const double *prev, int64_t n,
                     double thr) {
  int any = 0;
  for (int64_t j = 0; j < n; ++j)
    any |= ((v[j] - v[j]) != 0) | ((prev[j] < thr) & (v[j] >= thr));
  return any != 0;
}

/// Chunks of at most kChunk cells covering [0, n) but the ranges `done`.
std::vector<CellRange> chunksOutside(int64_t n,
                                     const std::vector<CellRange> &done) {
  std::vector<CellRange> skip = done, out;
  std::sort(skip.begin(), skip.end(),
            [](CellRange a, CellRange b) { return a.begin < b.begin; });
  int64_t c = 0;
  auto cover = [&](int64_t end) {
    for (; c < end; c = std::min(end, c + kChunk))
      out.push_back({c, std::min(end, c + kChunk)});
  };
  for (CellRange r : skip) {
    cover(std::min(n, r.begin));
    c = std::max(c, r.end);
  }
  cover(n);
  return out;
}

} // namespace

/// Activation times and the finiteness check, over chunks of the cells on
/// the threads; the first bad point (lowest index) is the one reported.
/// Across ranks (prev_ and lat_ per cell of the rank) the same pass hands
/// the block's new Vm (in its buffer) to the cells.
bool Tissue::updateActivation(int64_t step, std::string &error) {
  return updateActivation(step, {}, error);
}

bool Tissue::updateActivation(int64_t step, const std::vector<CellRange> &done,
                              std::string &error) {
  const double thr = options_.activationThreshold;
  const double t1 = step * options_.dt, dt = options_.dt;
  const double t0 = now();
  double *prev = prev_.data(), *lat = lat_.data();
  int64_t found = 0, bad = INT64_MAX;
  // num_threads takes a positive count: the default team where unset.
  const int threads = cpuThreads(options_.threads);
  const PoolBinding bind = PoolBinding::current();
  if (ranked_ && ranks_->runsAreCells()) {
    // Run by run: the slots and the cells of a run are contiguous.
    double *vm = sim_.coupling()->vm();
    const int64_t *points = cellPoint_.data() + ranks_->cells().begin;
    const std::vector<RankBlock::Run> &runs = ranks_->runs();
    const double *vr = ranks_->buffer().data();
    const int64_t nruns = static_cast<int64_t>(runs.size());
#pragma omp parallel num_threads(threads) if (threads != 1 && nruns > 1) reduction(+ : found) reduction(min : bad)
    {
      bind.hold();
#pragma omp for schedule(static)
      for (int64_t i = 0; i < nruns; ++i) {
        const RankBlock::Run &r = runs[i];
        const double *v = vr + r.slot;
        double *pr = prev + r.cell, *la = lat + r.cell;
        std::memcpy(vm + r.cell, v, r.n * sizeof(double));
        if (!eventful(v, pr, r.n, thr)) {
          std::memcpy(pr, v, r.n * sizeof(double));
          continue;
        }
        for (int64_t j = 0; j < r.n; ++j)
          activate(points[r.cell + j], v[j], thr, t1, dt, pr[j], la[j], found,
                   bad);
      }
    }
  } else {
    // Vm of cell c is at v[slots[c]]; across ranks (this rank's cells)
    // prev_ and lat_ are the cell's, else the point's.
    const double *v = gridVm();
    double *vm = ranked_ ? sim_.coupling()->vm() : nullptr;
    const int64_t c0 = ranked_ ? ranks_->cells().begin : 0;
    const int64_t n = ranked_ ? ranks_->cells().size() : cellPoint_.size();
    const int64_t *slots =
        ranked_ ? ranks_->cellSlot().data() : cellPoint_.data();
    const std::vector<CellRange> chunks = chunksOutside(n, done);
    const int64_t nchunks = static_cast<int64_t>(chunks.size());
#pragma omp parallel num_threads(threads) if (threads != 1 && nchunks > 1) reduction(+ : found) reduction(min : bad)
    {
      bind.hold();
#pragma omp for schedule(static)
      for (int64_t k = 0; k < nchunks; ++k)
        for (int64_t c = chunks[k].begin, e = chunks[k].end; c < e; ++c) {
          double x = v[slots[c]];
          int64_t p = cellPoint_[c0 + c], at = vm ? c : p;
          if (vm)
            vm[c] = x;
          activate(p, x, thr, t1, dt, prev[at], lat[at], found, bad);
        }
    }
  }
  if (ranked_) {
    stepWork_ += now() - t0;
    found = comm_->sum(found);
    bad = comm_->minimum(bad);
  }
  activated_ += found;
  if (bad == INT64_MAX)
    return true;
  error = nonFiniteError(bad, t1);
  return false;
}

std::string Tissue::nonFiniteError(int64_t point, double t) {
  nonFinite_ = true;
  std::array<double, 3> x = grid_.position(point);
  return "Vm is no longer finite at point " + std::to_string(point) + " (" +
         number(x[0]) + ", " + number(x[1]) + ", " + number(x[2]) +
         " mm) at " + number(t) + " ms";
}

void Tissue::syncPrev() {
  if (!prevStale_)
    return;
  const double *v = gridVm();
  prev_.assign(v, v + grid_.points());
  prevStale_ = false;
}

FusedStep *Tissue::fusedStep() {
  // A fused step's activation pass cannot run again from a copy.
  if (!fusable_ || stepCopied_ || !sim_.coupling()->canFuse())
    return nullptr;
  FusedStep &f = fused_;
  f.diffusion = diffusionTask();
  f.diffusion.src = hasSource_ ? src_.data() : nullptr;
  f.diffusion.srcVersion = srcVersion_;
  // With more sub-steps the activation pass waits for the last.
  f.activation = report_.substeps == 1;
  f.threshold = options_.activationThreshold;
  f.t1 = (step_ + 1) * options_.dt;
  f.dt = options_.dt;
  f.lat = lat_.data();
  // Nothing in a tissue reads Iion back: storing it would be a quarter of
  // a small model's memory traffic in the step.
  f.discardWritten = true;
  return &f;
}

bool Tissue::ionicStep(bool &fused, std::string &error) {
  FusedStep *f = fusedStep();
  if (!f || !f->activation)
    syncPrev();
  sim_.coupling()->fuseDiffusion(f);
  bool ok = sim_.run(step_ + 1);
  // A failed move between ranks leaves a rank without a simulation.
  if (TissueCoupling *cells = sim_.coupling())
    cells->fuseDiffusion(nullptr);
  fused = ok && f && sim_.coupling()->lastWaveFused();
  if (!ok) {
    const NonFinite *bad = sim_.nonFinite();
    nonFinite_ = bad != nullptr;
    error = bad ? "simulation produced a non-finite value: " + bad->message()
                : sim_.failure();
    return false;
  }
  if (f && !fused)
    return error = "the tissue step was not fused as the simulation said "
                   "it would be",
           false;
  return true;
}

bool Tissue::advance(bool &fused, double &t1, std::string &error) {
  scatterVm();
  if (!keepStepStart(error))
    return false;
  stimulusSource(step_);
  double haloBefore = ranked_ ? sim_.coupling()->haloSeconds() : 0;
  if (!ionicStep(fused, error) || !followRanks(haloBefore, error))
    return false;
  gatherVm();
  t1 = now();
  return diffusionStep(fused, error) && keepStepEnd(error);
}

bool Tissue::diffusionStep(bool fused, std::string &error) {
  bool explicitScheme = options_.scheme == TissueOptions::Explicit;
  if (ranked_)
    return !explicitScheme ? diffuseCrankNicolsonOnRanks(error)
           : onDevices_    ? diffuseOnRanks(error)
                           : diffuseOnRanksHost(error);
  if (onDevices_)
    return diffuseOnDevices(error, fused ? 1 : 0);
  return explicitScheme ? diffuseExplicit() : diffuseCrankNicolson(error);
}

bool Tissue::survive(const std::function<bool(std::string &)> &op,
                     std::string &error) {
  while (!op(error)) {
    // A value that is no longer finite is no device's failure.
    TissueCoupling *cells = sim_.coupling();
    if (!stepCopies_ || nonFinite_ || !cells || !cells->recoverStep(step_))
      return false;
    rolledBack();
    error.clear();
  }
  return true;
}

bool Tissue::keepStepStart(std::string &error) {
  TissueCoupling &cells = *sim_.coupling();
  stepCopied_ = false;
  if (!stepCopies_ || !cells.stepCopiesArmed())
    return true;
  // No copy holds what the GPUs kept of the activation arrays: it comes
  // to the host for good first.
  if (activationOnGpus_ && !cells.releaseActivation(/*keep=*/false))
    return error =
               "bringing the activation times to the host: " + sim_.failure(),
           false;
  activationOnGpus_ = false;
  if (!cells.keepStepCopy(stepCopied_))
    return error = sim_.failure(), false;
  // The copy brought Vm to the host.
  hostVmStale_ = hostVmStale_ && !stepCopied_;
  return true;
}

bool Tissue::keepStepEnd(std::string &error) {
  if (!stepCopied_)
    return true;
  // With a mask the diffused Vm is the grid's: the copy takes the cells'.
  scatterVm();
  bool held = false;
  if (!sim_.coupling()->keepStepCopy(held))
    return error = sim_.failure(), false;
  return true;
}

void Tissue::rolledBack() {
  hostVmStale_ = false;
  activatedOnDevices_ = activationOnGpus_ = false;
  act_ = DeviceActivation();
  // With a mask, the grid's Vm is the cells' of the copy.
  gatherVm();
}

Status Tissue::run(int64_t untilStep) {
  std::string error;
  if (runSteps(untilStep, error))
    return Status();
  return nonFinite_ ? Status::nonFinite(error) : Status::failed(error);
}

bool Tissue::runSteps(int64_t untilStep, std::string &error) {
  if (!initialized_)
    return error = "initialize() must come before run()", false;
  double wall0 = now();
  bool ok = true;
  while (ok && step_ < untilStep) {
    double t0 = now();
    if (options_.biomarkers &&
        !beats_->boundary(step_, stimuli_, options_.dt, error)) {
      ok = false;
      break;
    }
    bool fused = false;
    double t1 = t0;
    if (!survive([&](std::string &e) { return advance(fused, t1, e); },
                 error)) {
      ok = false;
      break;
    }
    // A fused step did the first sub-step (and, with one, the activation
    // pass).
    bool activated = fused && fused_.activation;
    double t2 = now();
    if (fused) {
      report_.fusedSeconds += t1 - t0;
      ++report_.fusedSteps;
    } else {
      report_.ionicSeconds += t1 - t0;
    }
    report_.diffusionSeconds += t2 - t1;
    ++step_;
    ++report_.steps;
    if (activated) {
      prevStale_ = true;
      activated_ += fused_.activated;
      if (ok && fused_.firstBad >= 0) {
        error = nonFiniteError(fused_.firstBad, step_ * options_.dt);
        ok = false;
      }
    } else if (ok && activatedOnDevices_) {
      ok = finishDeviceActivation(error);
    } else {
      ok = ok && updateActivation(step_, error);
    }
    // What the devices cost beyond the ionic step, for the simulation's
    // measuring windows (in one process; ranks balance whole steps).
    if (!ranked_)
      sim_.coupling()->addStepSeconds(now() - t1);
    // The ranks balance this rank's whole step, not only its ionic part
    // (the slabs that follow carry diffusion too); waits are not counted.
    if (ranked_)
      sim_.figures().addWorkSeconds(stepWork_);
    stepWork_ = 0;
    for (StepFn &fn : onStep_)
      if (ok && !survive([&](std::string &e) { return fn(step_, e); }, error))
        ok = false;
    report_.outputSeconds += now() - t2;
  }
  if (!sim_.coupling())
    return ok;
  scatterVm();
  report_.haloSeconds =
      sim_.coupling()->haloSeconds() + retiredHaloSeconds_;
  report_.rankPoints.clear();
  if (ranked_) {
    report_.haloSeconds += ranks_->exchangeSeconds();
    for (CellRange r : ranks_->cellRanges())
      report_.rankPoints.push_back(r.size());
  }
  report_.wallSeconds += now() - wall0;
  return ok;
}

Status Tissue::finishBeats() {
  std::string error;
  if (options_.biomarkers && !beats_->finish(step_, error))
    return Status::failed(error);
  return Status();
}

std::vector<double> Tissue::biomarkerMap(int column, int64_t beat) {
  // A rank holds the rows of the beats its cells closed there: after the
  // slabs moved, every rank's rows.
  bool moved = ranked_ && rankMoves_ > 0;
  std::vector<double> map = beats_->map(column, beat, moved);
  if (!ranked_)
    return map;
  if (moved)
    return comm_->rank() == 0 ? map : std::vector<double>();
  return ranks_->gatherCells(ranks_->ownValues(map), sim_.numCells());
}

std::string TissueReport::json(int indent) const {
  std::string pad(indent, ' ');
  std::string held = "[";
  for (size_t r = 0; r < rankPoints.size(); ++r)
    held += (r ? ", " : "") + std::to_string(rankPoints[r]);
  held += "]";
  std::vector<char> buf(1024 + held.size());
  std::snprintf(
      buf.data(), buf.size(),
      "{\n%s  \"steps\": %lld,\n%s  \"points\": %lld,\n%s  \"tissue_points\": "
      "%lld,\n%s  \"substeps\": %lld,\n%s  \"cg_iterations\": %lld,\n%s  "
      "\"fused_steps\": %lld,\n%s  \"activated_on_devices\": %lld,\n%s  "
      "\"process_grid\": [%d, %d, %d],\n%s  "
      "\"rank_repartitions\": %lld,\n%s  \"rank_points\": %s,\n%s  "
      "\"point_steps_per_second\": %.6e,\n%s  \"seconds\": {\"ionic\": %.6f, "
      "\"diffusion\": %.6f, \"halo\": %.6f, \"fused\": %.6f, \"output\": "
      "%.6f, \"total\": %.6f}\n%s}",
      pad.c_str(), (long long)steps, pad.c_str(), (long long)points,
      pad.c_str(), (long long)tissuePoints, pad.c_str(), (long long)substeps,
      pad.c_str(), (long long)cgIterations, pad.c_str(), (long long)fusedSteps,
      pad.c_str(), (long long)activatedOnDevices, pad.c_str(), processGrid[0],
      processGrid[1], processGrid[2], pad.c_str(), (long long)rankRepartitions,
      pad.c_str(), held.c_str(), pad.c_str(), pointStepsPerSecond(),
      pad.c_str(), ionicSeconds, diffusionSeconds, haloSeconds, fusedSeconds,
      outputSeconds, wallSeconds, pad.c_str());
  return buf.data();
}
