//===- CAPI.cpp - the EasyML runtime's C API ------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

#include "easyml/Runtime/Core/Population.h"

#include <cmath>
#include <sstream>
#include <string>

using namespace easyml::rt;
using namespace easyml::rt::capi;

static thread_local std::string lastError;

int easyml::rt::capi::failWith(const std::string &msg) {
  lastError = msg;
  return 1;
}

easyml_sim *easyml::rt::capi::wrap(const easyml_model *model,
                                   const SimulationOptions &options,
                                   std::unique_ptr<SimulationInterface> sim) {
  if (Status st = sim->valid(); !st.ok()) {
    failWith(st.message());
    return nullptr;
  }
  auto *out = new easyml_sim;
  out->model = model->handle.get();
  out->options = options;
  out->sim = std::move(sim);
  return out;
}

static easyml_sim *make(const easyml_model *model, int64_t numCells,
                        const SimulationOptions &options) {
  if (!model || numCells < 1) {
    failWith("easyml_sim_create: needs a model and at least one cell");
    return nullptr;
  }
  auto one = std::make_unique<Simulation>(*model->handle, numCells, options);
  Simulation *raw = one.get();
  easyml_sim *out = wrap(model, options, std::move(one));
  if (out)
    out->one = raw;
  return out;
}

/// The simulation when it runs in one process; else null, with the error
/// that `what` is not available across ranks.
static Simulation *oneProcess(easyml_sim *sim, const char *what) {
  if (sim->one)
    return sim->one;
  failWith(std::string(what) +
           " is not available for a simulation across MPI ranks");
  return nullptr;
}

/// After a call that ran waves: 0, or 1 with the reason.
static int status(easyml_sim *sim) {
  if (sim->sim->ranks() > 1 && !sim->sim->failure().empty())
    return failWith(sim->sim->failure());
  if (const NonFinite *bad = sim->sim->nonFinite())
    return failWith("non-finite value: " + bad->message());
  if (!sim->sim->failure().empty())
    return failWith(sim->sim->failure());
  return 0;
}

extern "C" {

const char *easyml_last_error(void) { return lastError.c_str(); }

easyml_model *easyml_model_from_desc(const easyml_model_desc *desc) {
  if (!desc || desc->abi_version != EASYML_ABI_VERSION) {
    failWith("not a model descriptor of ABI version " +
             std::to_string(EASYML_ABI_VERSION));
    return nullptr;
  }
  return new easyml_model{std::make_unique<ModelHandle>(desc)};
}

easyml_model *easyml_model_load(const char *path) {
  auto handle = ModelHandle::load(path ? path : "");
  if (!handle.ok()) {
    failWith(handle.status().message());
    return nullptr;
  }
  return new easyml_model{handle.take()};
}

const easyml_model_desc *easyml_model_get_desc(const easyml_model *model) {
  return model ? &model->handle->desc() : nullptr;
}

void easyml_model_free(easyml_model *model) { delete model; }

easyml_sim *easyml_sim_create(const easyml_model *model, int64_t numCells,
                              const char *variant) {
  return easyml_sim_create_on(model, numCells, variant, 0);
}

easyml_sim *easyml_sim_create_on(const easyml_model *model, int64_t numCells,
                                 const char *variant, int device) {
  if (!model) {
    failWith("easyml_sim_create: needs a model and at least one cell");
    return nullptr;
  }
  SimulationOptions o;
  std::string v = variant ? variant : "";
  const easyml_variant *var = model->handle->variant(v);
  if (var && backendOf(*var) != Backend::Cpu)
    o.devices = DeviceSpec::gpu(backendOf(*var), device);
  else
    o.cpuVariant = v;
  return make(model, numCells, o);
}

easyml_sim *easyml_sim_create_devices(const easyml_model *model,
                                      int64_t numCells, const char *devices,
                                      const char *cpuVariant) {
  SimulationOptions o;
  o.devices = devices ? devices : "cpu";
  o.cpuVariant = cpuVariant ? cpuVariant : "";
  return make(model, numCells, o);
}

int easyml_sim_set_option(easyml_sim *sim, const char *name, double value) {
  std::string n = name ? name : "";
  SimulationOptions o = sim->options;
  if (n == "lb_threshold" && value >= 0)
    o.balance.threshold = value;
  else if (n == "lb_min_window" && value >= 0)
    o.balance.minWindowSeconds = value;
  else if (n == "lb_fixed")
    o.balance.fixed = value != 0;
  else if (n == "lb_share")
    o.balance.share = value != 0;
  else if (n == "max_wave_steps" && value >= 0)
    o.maxWaveSteps = static_cast<int64_t>(value);
  else if (n == "probe_steps" && value >= 0)
    o.probeSteps = static_cast<int64_t>(value);
  else if (n == "dim_window" && value >= 1)
    o.dimension.windowSteps = static_cast<int64_t>(value);
  else if (n == "dim_tolerance" && value >= 0)
    o.dimension.tolerance = value;
  else if (n == "threads" && value >= 0)
    o.threads = static_cast<int>(value);
  else if (n == "recover")
    o.recover = value != 0;
  else
    return failWith("easyml_sim_set_option: unknown option or bad value: '" +
                    n + "' = " + std::to_string(value));
  Simulation *one = oneProcess(sim, "easyml_sim_set_option");
  if (!one)
    return 1;
  if (one->step() > 0 || !one->report().waves.empty())
    return failWith("easyml_sim_set_option: '" + n +
                    "' must be set before the first wave");
  // Options shape the devices and the scheduler: start again with them.
  auto fresh = std::make_unique<Simulation>(*sim->model, one->numCells(), o);
  if (Status st = fresh->valid(); !st.ok())
    return failWith(st.message());
  fresh->setParamSet(one->parameters().paramSet());
  sim->one = fresh.get();
  sim->sim = std::move(fresh);
  sim->options = o;
  return 0;
}

void easyml_sim_free(easyml_sim *sim) { delete sim; }

int easyml_sim_set_params(easyml_sim *sim, const char *modifiers) {
  if (Status st = sim->sim->parameters().modify(modifiers ? modifiers : "");
      !st.ok())
    return failWith(st.message());
  return 0;
}

const char *easyml_sim_param_warnings(easyml_sim *sim) {
  sim->text.clear();
  for (const std::string &w : sim->sim->parameters().unusedSettings())
    sim->text += w + "\n";
  return sim->text.c_str();
}

int easyml_sim_set_param(easyml_sim *sim, const char *name, double value) {
  std::string n = name ? name : "";
  if (Status st = sim->sim->parameters().set(n, value); !st.ok())
    return failWith(st.message());
  // Shared from now on, in one process (across ranks the values a rank
  // was given per cell stay).
  if (sim->one)
    if (Status st = sim->one->parameters().setShared(n); !st.ok())
      return failWith(st.message());
  return 0;
}

int easyml_sim_sample_params(easyml_sim *sim, const char *spec, uint64_t seed) {
  Columns table;
  if (Status st = sim->sim->samplePerCellParams(spec ? spec : "", seed,
                                                /*grouped=*/true, table);
      !st.ok())
    return failWith(st.message());
  return 0;
}

int easyml_sim_set_param_per_cell(easyml_sim *sim, const char *name,
                                  const double *values) {
  if (!values)
    return failWith("easyml_sim_set_param_per_cell: no values");
  if (Status st = sim->sim->parameters().setPerCell(name ? name : "", values);
      !st.ok())
    return failWith(st.message());
  return 0;
}

static_assert(EASYML_BIOMARKER_COLUMNS == kBioNumColumns,
              "the C API's biomarker columns");

int easyml_sim_enable_biomarkers(easyml_sim *sim, const char *ca_variable) {
  BiomarkerOptions o;
  o.caVariable = ca_variable ? ca_variable : "";
  if (Status st = sim->sim->biomarkers().enable(o); !st.ok())
    return failWith(st.message());
  return 0;
}

int easyml_sim_close_beat(easyml_sim *sim) {
  if (!sim->sim->biomarkers().closeBeat())
    return failWith(sim->sim->failure().empty()
                        ? "easyml_sim_close_beat: biomarkers are not enabled"
                        : sim->sim->failure());
  return 0;
}

const double *easyml_sim_biomarkers(easyml_sim *sim, int64_t *rows) {
  const BiomarkerTable &t = sim->sim->biomarkers().table();
  if (rows)
    *rows = t.rows();
  return t.values.data();
}

int easyml_sim_set_threads(easyml_sim *sim, int threads) {
  if (threads < 0)
    return failWith("easyml_sim_set_threads: threads must be >= 0");
  Simulation *one = oneProcess(sim, "easyml_sim_set_threads");
  if (!one)
    return 1;
  one->setThreads(threads);
  return 0;
}

int easyml_sim_initialize(easyml_sim *sim, double dt) {
  if (!(dt > 0))
    return failWith("easyml_sim_initialize: dt must be positive");
  sim->sim->initialize(dt);
  return status(sim);
}

int easyml_sim_advance(easyml_sim *sim, int64_t step0, int64_t nsteps,
                       double stim, int integrateVm) {
  Simulation *one = oneProcess(sim, "easyml_sim_advance");
  if (!one)
    return 1;
  one->advance(step0, nsteps, stim, integrateVm != 0);
  return status(sim);
}

int easyml_sim_add_stimulus(easyml_sim *sim, double startMs, double durationMs,
                            double strength, double periodMs, int64_t count) {
  if (!(durationMs >= 0) || !(periodMs >= 0) || count < 0)
    return failWith("easyml_sim_add_stimulus: negative duration, period or "
                    "count");
  sim->sim->addStimulus(Stimulus::fromMs(sim->sim->dt(), startMs, durationMs,
                                         strength, periodMs, count));
  return 0;
}

int easyml_sim_record(easyml_sim *sim, const char *variables, int64_t cellBegin,
                      int64_t cellEnd, int64_t firstStep, int64_t every,
                      easyml_sample_fn fn, void *user) {
  std::vector<std::string> names;
  std::stringstream ss(variables ? variables : "");
  for (std::string n; std::getline(ss, n, ',');)
    if (!n.empty())
      names.push_back(n);
  if (!fn)
    return failWith("easyml_sim_record: no callback");
  if (Status st = sim->sim->record(
          names, CellRange{cellBegin, cellEnd}, firstStep, every,
          [fn, user](int64_t step, CellRange, const double *v) {
            fn(step, v, user);
          });
      !st.ok())
    return failWith(st.message());
  return 0;
}

int easyml_sim_add_event(easyml_sim *sim, int64_t step, int64_t every,
                         easyml_event_fn fn, void *user) {
  if (!fn)
    return failWith("easyml_sim_add_event: no callback"), -1;
  return sim->sim->addEvent(
      step,
      [sim, fn, user](SimulationInterface &, int64_t s, std::string &) {
        return fn(sim, s, user) == 0;
      },
      every);
}

int easyml_sim_run(easyml_sim *sim, int64_t untilStep) {
  bool ok = sim->sim->run(untilStep);
  if (int rc = status(sim))
    return rc;
  return ok ? 0 : failWith("the run was stopped by an event");
}

int easyml_sim_run_until(easyml_sim *sim, double untilMs) {
  return easyml_sim_run(sim, std::llround(untilMs / sim->sim->dt()));
}

int64_t easyml_sim_step(const easyml_sim *sim) { return sim->sim->step(); }

const char *easyml_sim_report_json(easyml_sim *sim) {
  sim->json = sim->sim->figures().reportJson();
  return sim->json.c_str();
}

int easyml_sim_get_state_row(easyml_sim *sim, int64_t var, double *values) {
  if (var < 0 || var >= sim->sim->desc().sv_rows || !values)
    return failWith("easyml_sim_get_state_row: no state row " +
                    std::to_string(var));
  Simulation *one = oneProcess(sim, "easyml_sim_get_state_row");
  if (!one)
    return 1;
  one->values().getStateRow(var, values);
  return status(sim);
}

int easyml_sim_set_state_row(easyml_sim *sim, int64_t var,
                             const double *values) {
  if (var < 0 || var >= sim->sim->desc().sv_rows || !values)
    return failWith("easyml_sim_set_state_row: no state row " +
                    std::to_string(var));
  Simulation *one = oneProcess(sim, "easyml_sim_set_state_row");
  if (!one)
    return 1;
  one->values().setStateRow(var, values);
  return status(sim);
}

double *easyml_sim_vm(easyml_sim *sim) {
  Simulation *one = oneProcess(sim, "easyml_sim_vm");
  return one ? one->values().vm() : nullptr;
}
double *easyml_sim_iion(easyml_sim *sim) {
  Simulation *one = oneProcess(sim, "easyml_sim_iion");
  return one ? one->values().iion() : nullptr;
}
const char *easyml_sim_variant(const easyml_sim *sim) {
  if (sim->one)
    return sim->one->variant().name;
  sim->variant = sim->sim->cellValues() ? sim->sim->variantName() : "";
  return sim->variant.c_str();
}
void easyml_sim_get_states(const easyml_sim *sim, double *aos) {
  if (Simulation *one =
          oneProcess(const_cast<easyml_sim *>(sim), "easyml_sim_get_states"))
    one->values().exportStates(aos);
}
void easyml_sim_set_states(easyml_sim *sim, const double *aos) {
  if (Simulation *one = oneProcess(sim, "easyml_sim_set_states"))
    one->values().importStates(aos);
}
double *easyml_sim_state(easyml_sim *sim, int64_t cell, int64_t var) {
  Simulation *one = oneProcess(sim, "easyml_sim_state");
  return one ? &one->values().state(cell, var) : nullptr;
}

int easyml_sim_rank(const easyml_sim *sim) { return sim->sim->rank(); }
int easyml_sim_ranks(const easyml_sim *sim) { return sim->sim->ranks(); }

void easyml_sim_owned(const easyml_sim *sim, int64_t *begin, int64_t *end) {
  CellRange r = sim->sim->owned();
  if (begin)
    *begin = r.begin;
  if (end)
    *end = r.end;
}

int easyml_sim_write_biomarkers(easyml_sim *sim, const char *path,
                                const char *paramColumns) {
  std::vector<std::string> names;
  std::stringstream ss(paramColumns ? paramColumns : "");
  for (std::string n; std::getline(ss, n, ',');)
    if (!n.empty())
      names.push_back(n);
  if (!path)
    return failWith("easyml_sim_write_biomarkers: no path");
  if (Status st = sim->sim->biomarkers().write(path, names); !st.ok())
    return failWith(st.message());
  return 0;
}

int easyml_sim_save_vm(easyml_sim *sim, const char *path, int64_t firstStep,
                       int64_t every, int64_t samples) {
  const easyml_model_desc &d = sim->sim->desc();
  if (!path || d.vm_index < 0 || every < 1 || firstStep < 0 || samples < 1)
    return failWith("easyml_sim_save_vm: needs a path, a model with Vm, "
                    "first_step >= 0, every >= 1 and samples >= 1");
  if (sim->vm)
    return failWith("easyml_sim_save_vm: Vm is saved already");
  int64_t resumeRows = std::max<int64_t>(0, sim->resume.file(path));
  auto opened = sim->sim->outputs().openMatrix(
      path, samples, sim->sim->numCells(), resumeRows);
  if (!opened.ok())
    return failWith(opened.status().message());
  sim->vm = opened.take();
  sim->vmPath = path;
  sim->vmFirst = firstStep;
  sim->vmEvery = every;
  std::shared_ptr<MatrixFile> file = sim->vm;
  int64_t last = firstStep + (samples - 1) * every;
  Status rec = sim->sim->record(
      {d.external_names[d.vm_index]}, CellRange{0, sim->sim->numCells()},
      firstStep, every,
      [file, firstStep, every, last](int64_t step, CellRange part,
                                     const double *v) {
        // A failed write is reported by the sync that writes it.
        if (step <= last)
          (void)file->addRow((step - firstStep) / every, part, v);
      });
  if (!rec.ok()) {
    (void)sim->vm->close(/*keep=*/false);
    sim->vm.reset();
    return failWith(rec.message());
  }
  return 0;
}

int easyml_sim_checkpoint(easyml_sim *sim, const char *path) {
  if (!path)
    return failWith("easyml_sim_checkpoint: no path");
  RunPosition position;
  if (sim->vm) {
    Expected<int64_t> rows = sim->vm->checkpoint();
    if (!rows.ok())
      return failWith(rows.status().message());
    position.files.emplace_back(sim->vmPath, *rows);
  }
  if (Status st = sim->sim->outputs().saveCheckpoint(path, position); !st.ok())
    return failWith(st.message());
  return 0;
}

int easyml_sim_restart(easyml_sim *sim, const char *path) {
  if (!path)
    return failWith("easyml_sim_restart: no path");
  if (sim->vm)
    return failWith("easyml_sim_restart: call it before easyml_sim_save_vm "
                    "(which then continues its file)");
  if (Status st = sim->sim->outputs().loadCheckpoint(path, sim->resume);
      !st.ok())
    return failWith(st.message());
  return 0;
}

int easyml_sim_finish(easyml_sim *sim) {
  bool ok = sim->sim->failure().empty() && !sim->sim->nonFinite();
  if (sim->vm) {
    ok = sim->vm->flush().ok() && ok;
    Status closed = sim->vm->close(/*keep=*/ok);
    sim->vm.reset();
    if (!closed.ok())
      return failWith(closed.message());
  }
  return ok ? 0 : status(sim);
}

} // extern "C"
