//===- Scheduler.cpp - the time loop of a simulation ----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "Scheduler.h"
#include "DeviceSelection.h"

#include "easyml/Runtime/Devices/DiffusionDevice.h"
#include "easyml/Runtime/Support/Clock.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace easyml::rt;

namespace {

PartitionOptions partitionOptions(const SimulationOptions &o) {
  PartitionOptions p;
  p.balance = o.balance;
  p.shares = o.shares;
  p.speeds = o.speeds;
  p.probeSteps = o.probeSteps;
  p.dimension = o.dimension;
  p.maxWaveSteps = o.maxWaveSteps;
  return p;
}

} // namespace

Scheduler::Scheduler(const ModelHandle &model, int64_t cells,
                     const SimulationOptions &options)
    : options_(options),
      store_(std::make_unique<CellStore>(model.desc(), cells)),
      team_(model.desc(), *store_, report_),
      partitioner_(team_, timeline_, partitionOptions(options)),
      recovery_(team_, partitioner_, options.recover),
      executor_(team_, partitioner_, recovery_),
      beats_(team_, recovery_, timeline_, dt_), params_(model.desc()) {
  observers_.push_back(&beats_);
  DeviceSet set;
  if (!selectDevices(model, options, set, setupError_))
    return;
  if (Status adopted = team_.adopt(std::move(set)); !adopted.ok()) {
    setupError_ = adopted.message();
    return;
  }
  report_.model = model.desc().name;
  report_.cells = cells;
  report_.threshold = options.balance.threshold;
  for (auto &device : team_.devices())
    report_.devices.push_back({device->id(), device->description()});
  // A device failing to take its cells as they move is dropped where the
  // recovery policy can go on without it.
  partitioner_.onMoveFailure([this](int i, const std::vector<CellRange> &next,
                                    const std::string &why,
                                    const std::string &error) {
    return recovery_.dropFromMove(i, next, why, error);
  });
  if (Status started = partitioner_.start(); !started.ok()) {
    setupError_ = started.message();
    return;
  }
}

Scheduler::~Scheduler() = default;

void Scheduler::setThreads(int threads) {
  options_.threads = threads;
  // CPU pools without a thread count of their own are re-made with the new
  // one (before any wave).
  DeviceSet &set = team_.set();
  for (size_t k = 0; k < set.cpus.size(); ++k) {
    if (set.cpuThreadsGiven[k])
      continue;
    int i = set.cpus[k];
    Device &old = *set.devices[i];
    auto fresh =
        makeCpuDevice(team_.desc(), old.variant(), threads, old.id());
    std::string err;
    fresh->bind(*store_, err);
    fresh->own(team_.ranges[i], err);
    set.devices[i] = std::move(fresh);
    report_.devices[i].description = set.devices[i]->description();
  }
}

int Scheduler::threads() const { return cpuThreads(options_.threads); }

void Scheduler::paramsChanged() {
  userRows_.resize(params_.size(), false);
  if (updateDerivedRows(params_, *store_, userRows_, derivedRows_))
    paramValuesWritten();
}

void Scheduler::buildDerived() {
  const easyml_model_desc &d = team_.desc();
  derived_.assign(d.num_derived, 0.0);
  if (!d.build_derived || !d.num_derived)
    return;
  easyml_kernel_args a{};
  a.dt = dt_;
  a.params = params_.values().data();
  a.out = derived_.data();
  d.build_derived(&a);
}

/// The model's lookup tables for `dt`, with openCARP's check_LUT: NaN
/// entries are reported with the grid value.
void Scheduler::buildTables(double dt) {
  const easyml_model_desc &d = team_.desc();
  tables_.assign(std::max<int64_t>(1, d.table_size), 0.0);
  tableWarnings_.clear();
  if (!d.build_tables || !d.table_size)
    return;
  easyml_kernel_args a{};
  a.dt = dt;
  a.params = params_.values().data();
  a.tables = tables_.data();
  d.build_tables(&a);
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
      if (!count)
        continue;
      char buf[512];
      std::snprintf(buf, sizeof buf,
                    "lookup table %s: column %s is NaN at %s = %.10g "
                    "(row %lld; %lld NaN rows)",
                    tab.variable, tab.column_names[c], tab.variable,
                    tab.lo + first * tab.step, static_cast<long long>(first),
                    static_cast<long long>(count));
      tableWarnings_.push_back(buf);
    }
  }
}

bool Scheduler::initialize(double dt) {
  if (!usable())
    return false;
  dt_ = dt;
  double t0 = monotonicSeconds();
  buildTables(dt);
  buildDerived();
  tablesSeconds_ += monotonicSeconds() - t0;
  t0 = monotonicSeconds();
  for (auto &device : team_.devices()) {
    std::string err;
    if (!device->setUniforms(params_.values(), derived_, tables_, err))
      return team_.fail(*device, err);
    if (!device->range().empty() &&
        !device->upload(device->range(), kParamRows, err))
      return team_.fail(*device, err);
  }
  uploadedParams_ = params_.values();
  team_.paramValuesSent();
  WaveTask task;
  task.dt = dt;
  task.entry = Entry::Init;
  bool ok = runWave(task);
  task.entry = Entry::Eval;
  ok = ok && runWave(task);
  initSeconds_ += monotonicSeconds() - t0;
  team_.step = 0;
  initialized_ = ok;
  executor_.clearNonFinite();
  return ok;
}

bool Scheduler::uploadUniforms() {
  if (params_.values() == uploadedParams_)
    return true;
  buildDerived();
  std::string err;
  for (int i = 0; i < team_.size(); ++i)
    if (!team_.lost[i] &&
        !team_.device(i).setUniforms(params_.values(), derived_, tables_, err))
      return team_.fail(team_.device(i), err);
  uploadedParams_ = params_.values();
  return true;
}

bool Scheduler::runWave(const WaveTask &task) {
  if (!usable() || executor_.nonFinite())
    return false;
  return uploadUniforms() && executor_.run(task);
}

bool Scheduler::canFuse() const {
  std::vector<int> act = team_.active();
  if (act.size() != 1)
    return false;
  DiffusionDevice *x = team_.device(act[0]).diffusion();
  return x && x->fusesDiffusion() && partitioner_.settled();
}

void Scheduler::setRecording(RecordPlan plan,
                             SimulationInterface::PartSampleFn fn) {
  recording_.plan = std::move(plan);
  recording_.fn = std::move(fn);
}

void Scheduler::observe(std::unique_ptr<StepObserver> observer) {
  observers_.push_back(observer.get());
  owned_.push_back(std::move(observer));
}

RunReport &Scheduler::report() {
  for (int i = 0; i < team_.size(); ++i) {
    DeviceReport &r = report_.devices[i];
    r.cells = team_.ranges[i].size();
    r.bytesToDevice = team_.device(i).bytesToDevice;
    r.bytesToHost = team_.device(i).bytesToHost;
  }
  report_.dt = dt_;
  return report_;
}

std::map<std::string, double> Scheduler::speeds() const {
  std::map<std::string, double> m;
  for (int i = 0; i < team_.size(); ++i)
    if (team_.speeds[i] > 0)
      m[team_.device(i).id()] = team_.speeds[i];
  return m;
}

//===----------------------------------------------------------------------===//
// The time loop
//===----------------------------------------------------------------------===//

/// Where a stretch a whole-cell model crosses as one interval from the
/// current step ends, or -1: before spanUntil, without stimulus, without
/// samples to take. It ends only where the protocol stops, so no split of
/// the devices changes it; and one step short of a stimulus onset, so that
/// no long sub-step evaluates the model at the onset itself (a pacing
/// current the model computes from t switches on there: its last step
/// stays as short as the grid's).
int64_t Scheduler::spanEnd(int64_t stop) const {
  int64_t step = team_.step;
  if (step >= spanUntil_ ||
      !(team_.desc().features & EASYML_FEATURE_WHOLE_CELL) ||
      timeline_.stimulusAt(step) != 0)
    return -1;
  int64_t end = std::min(stop, spanUntil_);
  if (timeline_.stimulusStartsAt(end) && end - 1 > step)
    --end;
  int64_t sampled = end;
  if (timeline_.samplesIn(step, sampled, recording_.plan.capacity).count > 0)
    return -1;
  return end;
}

WaveTask Scheduler::computeTask(int64_t &end, bool span,
                                Timeline::Samples &samples) {
  int64_t step = team_.step;
  WaveTask task;
  task.dt = dt_;
  task.step0 = step;
  task.stim = timeline_.stimulusAt(step);
  task.integrateVm = true;
  task.oneInterval = span;
  task.keepExternals = team_.keepExternals;
  samples = timeline_.samplesIn(step, end, recording_.plan.capacity);
  if (timeline_.recording()) {
    task.record = &recording_.plan;
    task.recFirst = samples.first;
    task.recEvery = timeline_.recordEvery();
    task.recSamples = samples.count;
  }
  task.nsteps = end - step;
  return task;
}

/// The events due now, then one compute wave to the next stop; false when
/// an event stopped the run or the wave failed.
bool Scheduler::stepOnce(int64_t until) {
  std::string stopped;
  // An event that stops the run says why.
  if (!timeline_.fireDue(team_.step, stopped))
    return stopped.empty() ? false : team_.fail(stopped);
  if (!usable())
    return false;
  partitioner_.beforeWave();
  if (!usable())
    return false;
  int64_t step = team_.step;
  int64_t stop = timeline_.nextStop(step, until, /*stimulusEdges=*/true);
  int64_t spanned = spanEnd(stop);
  bool span = spanned > step;
  int64_t end = span ? spanned : partitioner_.waveEnd(stop);
  Timeline::Samples samples;
  WaveTask task = computeTask(end, span, samples);
  // A fused tissue step keeps the one device that holds every cell (as
  // the tissue was told): no phase split gives cells back to another.
  bool fuse = fused_ && task.nsteps == 1 && canFuse();
  task.fused = fuse ? fused_ : nullptr;
  lastWaveFused_ = fuse;
  if (!(fuse || partitioner_.splitForPhase(step, end)) || !runWave(task))
    return false;
  if (samples.count > 0) {
    const RecordPlan &plan = recording_.plan;
    int64_t stride = plan.num * plan.cells.size();
    for (int64_t k = 0; k < samples.count; ++k)
      recording_.fn(samples.first + k * timeline_.recordEvery(), plan.cells,
                    plan.host.data() + k * stride);
  }
  team_.step = end;
  return partitioner_.afterStep();
}

bool Scheduler::notifyAfterStep() {
  for (StepObserver *observer : observers_) {
    std::string error;
    if (!observer->afterStep(team_.step, error))
      return error.empty() ? false : team_.fail(error);
  }
  return true;
}

bool Scheduler::notifyBeforeStep() {
  for (StepObserver *observer : observers_) {
    std::string error;
    if (!observer->beforeStep(team_.step, error))
      return error.empty() ? false : team_.fail(error);
  }
  return true;
}

bool Scheduler::run(int64_t until) {
  if (!usable() || executor_.nonFinite())
    return false;
  if (!initialized_)
    return team_.fail("initialize() must come before run()");
  double t0 = monotonicSeconds();
  bool ok = true;
  partitioner_.setRunEnd(until);
  while (team_.step < until && ok) {
    if (!notifyBeforeStep())
      return false;
    int64_t before = team_.step;
    ok = stepOnce(until);
    // Nothing ran: an event stopped the run, or the wave failed.
    if (team_.step == before)
      break;
    ok = ok && notifyAfterStep();
    if (progress_)
      progress_(team_.step);
  }
  report_.wallSeconds += monotonicSeconds() - t0;
  return ok && usable();
}

//===----------------------------------------------------------------------===//
// Moving cells between simulations
//===----------------------------------------------------------------------===//

int64_t Scheduler::packedCellSize() const {
  const CellStore &st = *store_;
  int64_t n = st.svRows() + team_.desc().num_externals + st.numPerCell();
  if (team_.bio)
    n += EASYML_BIO_NUM_ROWS + 2;
  return n;
}

bool Scheduler::packCells(CellRange cells, double *out) {
  if (!syncStates())
    return false;
  CellStore &st = *store_;
  std::string err;
  // Biomarker accumulators are newest on the devices after any wave.
  if (team_.bio)
    for (auto &device : team_.devices()) {
      CellRange r = device->range().intersect(cells);
      if (!device->sharesHostStore() && !r.empty() &&
          !device->download(r, kBioRows, err))
        return team_.fail(*device, err);
    }
  int64_t k = packedCellSize();
  int64_t externals = team_.desc().num_externals;
  for (int64_t c = cells.begin; c < cells.end; ++c) {
    double *o = out + (c - cells.begin) * k;
    for (int64_t v = 0; v < st.svRows(); ++v)
      *o++ = st.sv(v)[c];
    for (int64_t e = 0; e < externals; ++e)
      *o++ = st.ext(e)[c];
    for (int64_t p = 0; p < st.numParams(); ++p)
      if (st.perCell(p))
        *o++ = st.paramRow(p)[c];
    if (team_.bio) {
      for (int64_t b = 0; b < EASYML_BIO_NUM_ROWS; ++b)
        *o++ = st.bio(b)[c];
      *o++ = beats_.lastApd90()[c];
      *o++ = beats_.lastChange()[c];
    }
  }
  return true;
}

bool Scheduler::unpackCells(CellRange cells, const double *in) {
  if (!syncStates())
    return false;
  CellStore &st = *store_;
  int64_t k = packedCellSize();
  int64_t externals = team_.desc().num_externals;
  for (int64_t c = cells.begin; c < cells.end; ++c) {
    const double *i = in + (c - cells.begin) * k;
    for (int64_t v = 0; v < st.svRows(); ++v)
      st.sv(v)[c] = *i++;
    for (int64_t e = 0; e < externals; ++e)
      st.ext(e)[c] = *i++;
    for (int64_t p = 0; p < st.numParams(); ++p)
      if (st.perCell(p))
        st.paramRow(p)[c] = *i++;
    if (team_.bio) {
      for (int64_t b = 0; b < EASYML_BIO_NUM_ROWS; ++b)
        st.bio(b)[c] = *i++;
      beats_.lastApd90()[c] = *i++;
      beats_.lastChange()[c] = *i++;
    }
  }
  statesWritten();
  paramValuesWritten();
  std::string err;
  if (team_.bio)
    for (auto &device : team_.devices()) {
      CellRange r = device->range().intersect(cells);
      if (!device->sharesHostStore() && !r.empty() &&
          !device->upload(r, kBioRows, err))
        return team_.fail(*device, err);
    }
  return true;
}

void Scheduler::setClock(int64_t step, int64_t beat, int64_t beatStart) {
  team_.step = step;
  beats_.setClock(beat, beatStart);
}
