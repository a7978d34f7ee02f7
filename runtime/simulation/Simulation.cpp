//===- Simulation.cpp - the runtime's public face -------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Simulation/Simulation.h"

#include "Scheduler.h"
#include "SimulationCoupling.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace easyml::rt;

namespace {
SimulationOptions optionsFor(const ModelHandle &model,
                             const std::string &variant, int device) {
  SimulationOptions o;
  const easyml_variant *v = model.variant(variant);
  if (v && backendOf(*v) != Backend::Cpu) {
    o.devices = DeviceSpec::gpu(backendOf(*v), device);
  } else {
    o.cpuVariant = variant;
  }
  return o;
}
} // namespace

Simulation::Simulation(const ModelHandle &model, int64_t numCells,
                       const SimulationOptions &options)
    : model_(model),
      scheduler_(std::make_unique<Scheduler>(model, numCells, options)) {}

Simulation::Simulation(const ModelHandle &model, int64_t numCells,
                       const std::string &variant, int device)
    : Simulation(model, numCells, optionsFor(model, variant, device)) {}

Simulation::~Simulation() = default;

bool Simulation::valid(std::string &error) {
  if (!scheduler_->setupError().empty()) {
    error = scheduler_->setupError();
    return false;
  }
  return true;
}

const std::string &Simulation::failure() const { return scheduler_->failure(); }

DeviceName Simulation::failedDevice() const {
  return {scheduler_->failedDevice(), scheduler_->failedDeviceGpu()};
}

std::string Simulation::deviceDescription() const {
  std::string s;
  for (int i : scheduler_->active())
    s += (s.empty() ? "" : " + ") + scheduler_->devices()[i]->description();
  return s;
}

std::vector<std::string> Simulation::activeDevices() const {
  std::vector<std::string> ids;
  for (int i : scheduler_->active())
    ids.push_back(scheduler_->devices()[i]->id());
  return ids;
}

std::vector<DeviceName> Simulation::workingDevices() const {
  std::vector<DeviceName> out;
  for (int i : scheduler_->working()) {
    const Device &d = *scheduler_->devices()[i];
    out.push_back({d.id(), d.isGpu()});
  }
  return out;
}

const ParamSet &Simulation::paramSet() const { return scheduler_->params(); }

void Simulation::setParamSet(const ParamSet &params) {
  scheduler_->params() = params;
  scheduler_->paramsChanged();
}

bool Simulation::setParam(const std::string &name, double value,
                          std::string &error) {
  if (!scheduler_->params().set(name, value, error))
    return false;
  scheduler_->paramsChanged();
  return true;
}

bool Simulation::modifyParams(const std::string &mods, std::string &error,
                              std::vector<std::string> *log) {
  if (!scheduler_->params().modify(mods, error, log))
    return false;
  scheduler_->paramsChanged();
  return true;
}

/// Why parameter `p` cannot have a row per cell on the devices in use, or
/// "" when it can. `via`: the parameter the user varies, when `p` is a
/// derived parameter computed from it.
static std::string
perCellProblem(const easyml_model_desc &d, int64_t p, const std::string &name,
               const std::string &via,
               const std::vector<std::unique_ptr<Device>> &devices) {
  std::string what = via.empty()
                         ? "parameter '" + name + "'"
                         : "parameter '" + via + "' cannot vary per cell: '" +
                               name + "', computed from it,";
  for (int64_t t = 0; t < d.num_tables; ++t)
    for (int64_t k = 0; k < d.tables[t].num_params_read; ++k)
      if (d.tables[t].params_read[k] == p)
        return what + " is read by lookup table " + d.tables[t].variable +
               ", which is built from one value: it cannot vary per cell "
               "(compile the model with --no-tables)";
  for (int64_t v = 0; v < d.num_nodal; ++v)
    if (d.nodal_param_index[v] == p)
      return what + " is nodal: it is per-cell state already (set it with "
                    "setStateRow)";
  // GPU variants read per cell only the parameters they were compiled for
  // (easyml-compile --per-cell-params): the others come from the shared
  // value, whatever the row holds.
  for (const auto &device : devices) {
    const easyml_variant &v = device->variant();
    if (v.num_row_params < 0 ||
        std::find(v.row_params, v.row_params + v.num_row_params, p) !=
            v.row_params + v.num_row_params)
      continue;
    std::string asked = via.empty() ? name : via;
    return what + (via.empty() ? " cannot vary per cell" : "") + " on " +
           device->id() + ": variant '" + v.name + "' of model " +
           std::string(d.name) +
           " reads it shared (compile the model with "
           "--per-cell-params=" +
           asked + ", or --per-cell-params=all)";
  }
  return "";
}

bool Simulation::setPerCellParam(const std::string &name, const double *values,
                                 std::string &error) {
  const easyml_model_desc &d = desc();
  const ParamSet &ps = scheduler_->params();
  int64_t p = ps.index(name);
  if (p < 0) {
    error = "model " + std::string(d.name) + " has no parameter '" + name + "'";
    return false;
  }
  if (!(d.features & EASYML_FEATURE_PARAM_ROWS)) {
    error = "model " + std::string(d.name) +
            " was compiled without per-cell parameters (recompile it)";
    return false;
  }
  CellStore &store = scheduler_->store();
  for (int64_t c = 0; c < store.cells(); ++c)
    if (!std::isfinite(values[c])) {
      error = "parameter '" + name + "' of cell " + std::to_string(c) +
              " is not finite (" + std::to_string(values[c]) + ")";
      return false;
    }
  error = perCellProblem(d, p, name, "", scheduler_->devices());
  // Its dependents vary with it: each must be able to.
  std::vector<bool> rows = scheduler_->userRows();
  rows.resize(ps.size(), false);
  rows[p] = true;
  for (int64_t q : ps.perCellDependents(rows))
    if (error.empty())
      error = perCellProblem(d, q, ps.name(q), name, scheduler_->devices());
  if (!error.empty())
    return false;
  double *row = store.makePerCell(p, ps.value(p));
  std::copy(values, values + store.cells(), row);
  scheduler_->userRows() = rows;
  scheduler_->paramValuesWritten();
  scheduler_->paramsChanged();
  return true;
}

std::vector<std::string> Simulation::perCellParams() const {
  std::vector<std::string> out;
  const std::vector<bool> &rows = scheduler_->userRows();
  for (size_t p = 0; p < rows.size(); ++p)
    if (rows[p])
      out.push_back(scheduler_->params().name(p));
  return out;
}

bool Simulation::perCellParam(const std::string &name, double *values) const {
  int64_t p = scheduler_->params().index(name);
  const std::vector<bool> &rows = scheduler_->userRows();
  if (p < 0 || p >= static_cast<int64_t>(rows.size()) || !rows[p])
    return false;
  const double *row = scheduler_->store().paramRow(p);
  std::copy(row, row + scheduler_->store().cells(), values);
  return true;
}

bool Simulation::setSharedParam(const std::string &name, std::string &error) {
  int64_t p = scheduler_->params().index(name);
  if (p < 0) {
    error = "model " + std::string(desc().name) + " has no parameter '" + name +
            "'";
    return false;
  }
  scheduler_->store().makeShared(p);
  std::vector<bool> &rows = scheduler_->userRows();
  rows.resize(scheduler_->params().size(), false);
  rows[p] = false;
  scheduler_->paramValuesWritten();
  scheduler_->paramsChanged();
  return true;
}

std::vector<std::string> Simulation::unusedParamSettings() const {
  return scheduler_->params().unusedSettings(scheduler_->userRows());
}

bool Simulation::initialize(double dt) {
  return scheduler_->initialize(dt);
}

std::vector<std::string> Simulation::tableWarnings() const {
  return scheduler_->tableWarnings();
}

double Simulation::tablesSeconds() const { return scheduler_->tablesSeconds(); }

double Simulation::initSeconds() const { return scheduler_->initSeconds(); }

void Simulation::addStimulus(const Stimulus &stimulus) {
  scheduler_->timeline().addStimulus(stimulus);
}

void Simulation::spanIntervalsUntil(int64_t step) {
  scheduler_->spanIntervalsUntil(step);
}

void Simulation::clearStimuli() { scheduler_->timeline().clearStimuli(); }

bool Simulation::record(const std::vector<std::string> &variables,
                        CellRange cells, int64_t first, int64_t every,
                        PartSampleFn fn, std::string &error) {
  const easyml_model_desc &d = desc();
  if (!(d.features & EASYML_FEATURE_RECORD)) {
    error = "model " + std::string(d.name) +
            " was compiled without in-wave recording (recompile it)";
    return false;
  }
  if (cells.begin < 0 || cells.end > numCells() || cells.empty()) {
    error = "cells [" + std::to_string(cells.begin) + ", " +
            std::to_string(cells.end) + ") to record are outside [0, " +
            std::to_string(numCells()) + ")";
    return false;
  }
  if (every < 1 || first < 0) {
    error = "samples need a first step >= 0 and an interval >= 1";
    return false;
  }
  if (variables.empty()) {
    error = "nothing to record";
    return false;
  }
  RecordPlan plan;
  plan.slots.assign(d.num_recordable, -1);
  for (size_t i = 0; i < variables.size(); ++i) {
    const std::string &n = variables[i];
    int64_t found = -1;
    for (int64_t v = 0; v < d.num_recordable && found < 0; ++v)
      if (recordableName(d, v) == n)
        found = v;
    for (int64_t e = 0; e < d.num_externals && found < 0; ++e)
      if (n == d.external_sim_names[e])
        found = d.sv_rows + e;
    if (found < 0) {
      error = "model " + std::string(d.name) +
              " has no state, external or "
              "trace '" +
              n + "' to record";
      return false;
    }
    if (plan.slots[found] >= 0) {
      error = "'" + n + "' is recorded twice";
      return false;
    }
    plan.slots[found] = static_cast<int64_t>(i);
    if (found >= d.sv_rows + d.num_externals)
      plan.traces = true;
  }
  plan.num = static_cast<int64_t>(variables.size());
  plan.cells = cells;
  // At most 64 MiB of samples per wave.
  int64_t perSample = plan.num * cells.size();
  int64_t cap = std::max<int64_t>(1, (int64_t(64) << 20) / 8 / perSample);
  plan.capacity = std::max<int64_t>(
      1, std::min<int64_t>(cap, scheduler_->options().maxSamplesPerWave));
  plan.host.assign(static_cast<size_t>(plan.capacity * perSample), 0.0);
  plan.version = scheduler_->recordPlan().version + 1;
  scheduler_->setRecording(std::move(plan), std::move(fn));
  scheduler_->timeline().setRecording(first, every);
  return true;
}

void Simulation::stopRecording() { scheduler_->timeline().stopRecording(); }

int Simulation::addEvent(int64_t step, EventFn fn, int64_t every) {
  return scheduler_->timeline().addEvent(
      step,
      [this, fn](int64_t s, std::string &error) {
        return fn(*this, s, error);
      },
      every);
}

void Simulation::onSync(std::function<bool(int64_t, std::string &)> fn) {
  // The caller's check after every wave.
  struct SyncObserver : StepObserver {
    std::function<bool(int64_t, std::string &)> fn;
    bool afterStep(int64_t step, std::string &error) override {
      return fn(step, error);
    }
  };
  auto observer = std::make_unique<SyncObserver>();
  observer->fn = std::move(fn);
  scheduler_->observe(std::move(observer));
}

void Simulation::removeEvent(int id) { scheduler_->timeline().removeEvent(id); }

void Simulation::onProgress(std::function<void(int64_t)> fn) {
  scheduler_->setProgress(std::move(fn));
}

bool Simulation::run(int64_t untilStep) {
  return scheduler_->run(untilStep);
}

double Simulation::computeSeconds() { return scheduler_->computeSeconds(); }

int64_t Simulation::step() const { return scheduler_->step(); }

const NonFinite *Simulation::nonFinite() const {
  return scheduler_->nonFinite();
}

void Simulation::advance(int64_t step0, int64_t nsteps, double stim,
                         bool integrateVm) {
  WaveTask task;
  task.dt = scheduler_->dt();
  task.step0 = step0;
  task.nsteps = nsteps;
  task.stim = stim;
  task.integrateVm = integrateVm;
  scheduler_->runWave(task);
}

void Simulation::evaluate(int64_t step) {
  WaveTask task;
  task.entry = Entry::Eval;
  task.dt = scheduler_->dt();
  task.step0 = step;
  scheduler_->runWave(task);
}

bool Simulation::checkFinite(NonFinite &where) {
  if (const NonFinite *bad = scheduler_->nonFinite()) {
    where = *bad;
    return false;
  }
  return true;
}

int64_t Simulation::numCells() const { return scheduler_->store().cells(); }
double Simulation::dt() const { return scheduler_->dt(); }

const easyml_variant &Simulation::variant() const {
  return scheduler_->firstActive()->variant();
}

double &Simulation::state(int64_t cell, int64_t var) {
  scheduler_->syncStates();
  // The caller may write through the reference.
  scheduler_->statesWritten();
  return scheduler_->store().sv(var)[cell];
}

double Simulation::getState(int64_t cell, int64_t var) {
  scheduler_->syncStates();
  return scheduler_->store().sv(var)[cell];
}

void Simulation::getStateRow(int64_t var, double *values) {
  scheduler_->syncStates();
  const double *row = scheduler_->store().sv(var);
  std::copy(row, row + numCells(), values);
}

void Simulation::setStateRow(int64_t var, const double *values) {
  scheduler_->syncStates();
  std::copy(values, values + numCells(), scheduler_->store().sv(var));
  scheduler_->statesWritten();
}

void Simulation::exportStates(double *aos) {
  scheduler_->syncStates();
  const CellStore &store = scheduler_->store();
  int64_t n = desc().sv_size, cells = numCells();
  for (int64_t v = 0; v < n; ++v) {
    const double *row = store.sv(v);
    for (int64_t c = 0; c < cells; ++c)
      aos[c * n + v] = row[c];
  }
}

void Simulation::importStates(const double *aos) {
  scheduler_->syncStates(); // hidden rows stay as they are
  CellStore &store = scheduler_->store();
  int64_t n = desc().sv_size, cells = numCells();
  for (int64_t v = 0; v < n; ++v) {
    double *row = store.sv(v);
    for (int64_t c = 0; c < cells; ++c)
      row[c] = aos[c * n + v];
  }
  scheduler_->statesWritten();
}

double Simulation::trace(int64_t cell, int64_t k) const {
  return scheduler_->store().trace(k)[cell];
}

double *Simulation::external(int64_t index) {
  return scheduler_->store().ext(index);
}

double *Simulation::vm() {
  int64_t i = desc().vm_index;
  return i < 0 ? nullptr : external(i);
}

TissueCoupling *Simulation::coupling() {
  if (!coupling_)
    coupling_ = makeTissueCoupling(*this, *scheduler_);
  return coupling_.get();
}

double *Simulation::iion() {
  int64_t i = desc().iion_index;
  return i < 0 ? nullptr : external(i);
}

std::vector<int64_t> Simulation::counters() {
  return scheduler_->counters();
}

void Simulation::setThreads(int threads) { scheduler_->setThreads(threads); }
int Simulation::threads() const { return scheduler_->threads(); }
double Simulation::gpuKernelMs() const { return scheduler_->gpuKernelMs(); }

const RunReport &Simulation::report() const {
  return scheduler_->report();
}

std::map<std::string, double> Simulation::speeds() const {
  return scheduler_->speeds();
}

const char *easyml::rt::biomarkerColumnName(int column) {
  static const char *const names[kBioNumColumns] = {
      "cell",          "beat",       "start",          "v_rest",
      "v_peak",        "dvdt_max",   "apd30",          "apd50",
      "apd90",         "triangulation", "ca_amplitude", "ca_time_to_peak",
      "apd90_change",  "flags"};
  return column >= 0 && column < kBioNumColumns ? names[column] : "?";
}

bool Simulation::enableBiomarkers(const BiomarkerOptions &options,
                                  std::string &error) {
  if (!scheduler_->usable()) {
    error = scheduler_->failure().empty() ? scheduler_->setupError()
                                          : scheduler_->failure();
    return false;
  }
  return scheduler_->beats().enable(options, error);
}

bool Simulation::closeBeat() { return scheduler_->beats().close(); }

const BiomarkerTable &Simulation::biomarkers() const {
  return scheduler_->beats().table();
}

void Simulation::clearBiomarkers() {
  BiomarkerTable().values.swap(scheduler_->beats().table().values);
}

void Simulation::biomarkerHistory(std::vector<double> &lastApd90,
                                  std::vector<double> &lastChange) const {
  lastApd90 = scheduler_->beats().lastApd90();
  lastChange = scheduler_->beats().lastChange();
}

void Simulation::setBiomarkerHistory(const std::vector<double> &lastApd90,
                                     const std::vector<double> &lastChange) {
  scheduler_->beats().lastApd90() = lastApd90;
  scheduler_->beats().lastChange() = lastChange;
}

int64_t Simulation::packedCellSize() const {
  return scheduler_->packedCellSize();
}

bool Simulation::packCells(CellRange cells, double *out) {
  if (cells.begin < 0 || cells.end > numCells())
    return false;
  return scheduler_->packCells(cells, out);
}

bool Simulation::unpackCells(CellRange cells, const double *in) {
  if (cells.begin < 0 || cells.end > numCells())
    return false;
  return scheduler_->unpackCells(cells, in);
}

Simulation::Clock Simulation::clock() const {
  return {scheduler_->step(), scheduler_->beats().beat(), scheduler_->beats().beatStart()};
}

void Simulation::setClock(const Clock &clock) {
  scheduler_->setClock(clock.step, clock.beat, clock.beatStart);
}
