//===- CAPI.cpp - the EasyML runtime's C API ------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Runtime.h"
#include "easyml/Runtime/Simulation.h"

#include <string>

using namespace easyml::rt;

struct easyml_model {
  std::unique_ptr<ModelHandle> handle;
};
struct easyml_sim {
  std::unique_ptr<Simulation> sim;
};

static thread_local std::string lastError;

static int failWith(const std::string &msg) {
  lastError = msg;
  return 1;
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
  std::string error;
  auto handle = ModelHandle::load(path ? path : "", error);
  if (!handle) {
    failWith(error);
    return nullptr;
  }
  return new easyml_model{std::move(handle)};
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
  if (!model || numCells < 1) {
    failWith("easyml_sim_create: needs a model and at least one cell");
    return nullptr;
  }
  auto sim = std::make_unique<Simulation>(*model->handle, numCells,
                                          variant ? variant : "", device);
  std::string error;
  if (!sim->valid(error)) {
    failWith(error);
    return nullptr;
  }
  return new easyml_sim{std::move(sim)};
}

void easyml_sim_free(easyml_sim *sim) { delete sim; }

int easyml_sim_set_params(easyml_sim *sim, const char *modifiers) {
  std::string error;
  if (!applyParamMods(sim->sim->desc(), modifiers ? modifiers : "",
                      sim->sim->params(), error))
    return failWith(error);
  return 0;
}

int easyml_sim_set_threads(easyml_sim *sim, int threads) {
  if (threads < 0)
    return failWith("easyml_sim_set_threads: threads must be >= 0");
  sim->sim->setThreads(threads);
  return 0;
}

int easyml_sim_initialize(easyml_sim *sim, double dt) {
  if (!(dt > 0))
    return failWith("easyml_sim_initialize: dt must be positive");
  sim->sim->initialize(dt);
  if (!sim->sim->failure().empty())
    return failWith(sim->sim->failure());
  return 0;
}

int easyml_sim_advance(easyml_sim *sim, int64_t step0, int64_t nsteps,
                       double stim, int integrateVm) {
  sim->sim->advance(step0, nsteps, stim, integrateVm != 0);
  if (!sim->sim->failure().empty())
    return failWith(sim->sim->failure());
  NonFinite where;
  if (!sim->sim->checkFinite(where))
    return failWith("non-finite value: " + where.message());
  return 0;
}

double *easyml_sim_vm(easyml_sim *sim) { return sim->sim->vm(); }
double *easyml_sim_iion(easyml_sim *sim) { return sim->sim->iion(); }
const char *easyml_sim_variant(const easyml_sim *sim) {
  return sim->sim->variant().name;
}
void easyml_sim_get_states(const easyml_sim *sim, double *aos) {
  sim->sim->exportStates(aos);
}
void easyml_sim_set_states(easyml_sim *sim, const double *aos) {
  sim->sim->importStates(aos);
}
double *easyml_sim_state(easyml_sim *sim, int64_t cell, int64_t var) {
  return &sim->sim->state(cell, var);
}

} // extern "C"
