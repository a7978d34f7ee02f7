/*===- Runtime.h - the EasyML runtime's C API ------------------------------===*
 *
 * Part of the EasyML toolchain.
 *
 * A thin C interface over easyml::rt::Simulation for simulators written in
 * C or other languages. Every function that can fail returns 0 on success
 * and a non-zero code otherwise; easyml_last_error() then describes it.
 *
 *===----------------------------------------------------------------------===*/

#ifndef EASYML_RUNTIME_RUNTIME_H
#define EASYML_RUNTIME_RUNTIME_H

#include "easyml/Runtime/ABI.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct easyml_model easyml_model;
typedef struct easyml_sim easyml_sim;

/* The message of the last failed call on this thread. */
const char *easyml_last_error(void);

/* A model linked into the program (its descriptor), or a shared library
 * built with easyml-compile --emit=shared. */
easyml_model *easyml_model_from_desc(const easyml_model_desc *desc);
easyml_model *easyml_model_load(const char *path);
const easyml_model_desc *easyml_model_get_desc(const easyml_model *model);
void easyml_model_free(easyml_model *model);

/* `num_cells` cells of `model` on the CPU, variant "baseline", "cpu-simd";
 * NULL: the CPU default (cpu-simd when compiled, else the first). */
easyml_sim *easyml_sim_create(const easyml_model *model, int64_t num_cells,
                              const char *variant);
/* The same on GPU `device` of the variant's vendor for "cuda" and "rocm"
 * (NULL with the reason in easyml_last_error() when there is no driver,
 * no such device or no code object for it). */
easyml_sim *easyml_sim_create_on(const easyml_model *model, int64_t num_cells,
                                 const char *variant, int device);
void easyml_sim_free(easyml_sim *sim);
/* The variant it runs ("baseline", "cpu-simd", "cuda", "rocm"). */
const char *easyml_sim_variant(const easyml_sim *sim);
/* openCARP --imp-par syntax ("GNa*0.5,flags=EPI"); before initialize. */
int easyml_sim_set_params(easyml_sim *sim, const char *modifiers);
int easyml_sim_set_threads(easyml_sim *sim, int threads);
/* Builds tables for dt, sets initial states and computes Iion. */
int easyml_sim_initialize(easyml_sim *sim, double dt);
/* Advances all cells by nsteps from global step step0; with integrate_vm
 * the kernel applies Vm += stim*dt before and Vm -= Iion*dt after each
 * model step (openCARP bench). Returns non-zero if a value became NaN/Inf,
 * with the cell, variable, step and time in easyml_last_error(). */
int easyml_sim_advance(easyml_sim *sim, int64_t step0, int64_t nsteps,
                       double stim, int integrate_vm);
/* Per-cell arrays owned by the simulation (valid until it is freed). */
double *easyml_sim_vm(easyml_sim *sim);
double *easyml_sim_iion(easyml_sim *sim);
double *easyml_sim_state(easyml_sim *sim, int64_t cell, int64_t var);
/* Layout conversion for simulators holding openCARP-style per-cell records:
 * copies all cells' states (num_cells * sv_size values, cell-major) out of /
 * into the simulation, whatever layout its variant uses. */
void easyml_sim_get_states(const easyml_sim *sim, double *aos);
void easyml_sim_set_states(easyml_sim *sim, const double *aos);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EASYML_RUNTIME_RUNTIME_H */
