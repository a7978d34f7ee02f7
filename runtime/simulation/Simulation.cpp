//===- Simulation.cpp - the runtime's public face -------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Simulation/Simulation.h"

#include "LocalParts.h"
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
      scheduler_(std::make_unique<Scheduler>(model, numCells, options)),
      values_(std::make_unique<CellValues>(*scheduler_)),
      transfer_(std::make_unique<CellTransfer>(*scheduler_)),
      parameters_(std::make_unique<LocalParameters>(*scheduler_)),
      biomarkers_(std::make_unique<LocalBiomarkers>(*scheduler_)),
      outputs_(std::make_unique<LocalOutputs>(*this, *scheduler_)),
      figures_(std::make_unique<LocalFigures>(*this, *scheduler_)) {}

Simulation::Simulation(const ModelHandle &model, int64_t numCells,
                       const std::string &variant, int device)
    : Simulation(model, numCells, optionsFor(model, variant, device)) {}

Simulation::~Simulation() = default;

ParameterAccess &Simulation::parameters() { return *parameters_; }
BiomarkerAccess &Simulation::biomarkers() { return *biomarkers_; }
OutputAccess &Simulation::outputs() { return *outputs_; }
RunFigures &Simulation::figures() { return *figures_; }

Status Simulation::valid() {
  if (!scheduler_->setupError().empty())
    return Status::failed(scheduler_->setupError());
  return Status();
}

const std::string &Simulation::failure() const { return scheduler_->failure(); }

std::string Simulation::deviceDescription() const {
  std::string s;
  for (int i : scheduler_->active())
    s += (s.empty() ? "" : " + ") + scheduler_->devices()[i]->description();
  return s;
}

void Simulation::setParamSet(const ParamSet &params) {
  scheduler_->params() = params;
  scheduler_->paramsChanged();
}

bool Simulation::initialize(double dt) {
  return scheduler_->initialize(dt);
}

void Simulation::addStimulus(const Stimulus &stimulus) {
  scheduler_->timeline().addStimulus(stimulus);
}

void Simulation::spanIntervalsUntil(int64_t step) {
  scheduler_->spanIntervalsUntil(step);
}

void Simulation::clearStimuli() { scheduler_->timeline().clearStimuli(); }

Status Simulation::record(const std::vector<std::string> &variables,
                          CellRange cells, int64_t first, int64_t every,
                          PartSampleFn fn) {
  const easyml_model_desc &d = desc();
  if (!(d.features & EASYML_FEATURE_RECORD))
    return Status::invalid(
        "model " + std::string(d.name) +
        " was compiled without in-wave recording (recompile it)");
  if (cells.begin < 0 || cells.end > numCells() || cells.empty())
    return Status::invalid("cells [" + std::to_string(cells.begin) + ", " +
                           std::to_string(cells.end) +
                           ") to record are outside [0, " +
                           std::to_string(numCells()) + ")");
  if (every < 1 || first < 0)
    return Status::invalid(
        "samples need a first step >= 0 and an interval >= 1");
  if (variables.empty())
    return Status::invalid("nothing to record");
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
    if (found < 0)
      return Status::invalid("model " + std::string(d.name) +
                             " has no state, external or "
                             "trace '" +
                             n + "' to record");
    if (plan.slots[found] >= 0)
      return Status::invalid("'" + n + "' is recorded twice");
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
  return Status();
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

int64_t Simulation::numCells() const { return scheduler_->store().cells(); }
double Simulation::dt() const { return scheduler_->dt(); }

const easyml_variant &Simulation::variant() const {
  return scheduler_->firstActive()->variant();
}

TissueCoupling *Simulation::coupling() {
  if (!coupling_)
    coupling_ = makeTissueCoupling(*this, *scheduler_);
  return coupling_.get();
}

void Simulation::setThreads(int threads) { scheduler_->setThreads(threads); }

const RunReport &Simulation::report() const { return scheduler_->report(); }
