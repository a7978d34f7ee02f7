/*===- Runtime.h - the EasyML runtime's C API ------------------------------===*
 *
 * Part of the EasyML toolchain.
 *
 * A thin C interface over easyml::rt::SimulationInterface for simulators
 * written in C or other languages: one process (easyml_sim_create*) or the
 * ranks of an MPI communicator (easyml_sim_create_mpi, RuntimeMPI.h), with
 * the same calls. Every function that can fail returns 0 on success and a
 * non-zero code otherwise; easyml_last_error() then describes it.
 *
 * Across ranks every rank makes every call, in the same order with the
 * same arguments; calls marked "one process" refuse to run there (per-cell
 * access: states, Vm arrays, one wave at a time).
 *
 *===----------------------------------------------------------------------===*/

#ifndef EASYML_RUNTIME_RUNTIME_H
#define EASYML_RUNTIME_RUNTIME_H

#include "easyml/ABI/ABI.h"

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
/* `num_cells` cells on a set of devices: "cpu", "gpu:0,2", "cuda:all",
 * "cpu+gpu:all", "auto" (resource dimensioning); `cpu_variant` NULL for the
 * CPU default. The cells are split between the devices by measured speed
 * and re-split when their times differ by more than the threshold. */
easyml_sim *easyml_sim_create_devices(const easyml_model *model,
                                      int64_t num_cells, const char *devices,
                                      const char *cpu_variant);
/* Options before the first wave: "lb_threshold" (fraction, default 0.1),
 * "lb_min_window" (seconds), "lb_fixed" (1: never re-split), "lb_share"
 * (0: two CPU pools side by side do not share their waves), "max_wave_steps",
 * "probe_steps", "dim_window" (steps), "dim_tolerance", "threads". */
int easyml_sim_set_option(easyml_sim *sim, const char *name, double value);
void easyml_sim_free(easyml_sim *sim);
/* The variant it runs ("baseline", "cpu-simd", "cuda", "rocm"). */
const char *easyml_sim_variant(const easyml_sim *sim);
/* openCARP --imp-par syntax ("GNa*0.5,flags=EPI"); before initialize. A
 * derived parameter (computed from others, docs/parameters.md) follows
 * what it reads unless it is set itself. */
int easyml_sim_set_params(easyml_sim *sim, const char *modifiers);
/* Parameters set (shared or per cell) that change nothing, one line each
 * ("parameter 'GKr_b' is set but changes nothing: ..."), "" when none;
 * valid until the next call on `sim`. */
const char *easyml_sim_param_warnings(easyml_sim *sim);
int easyml_sim_set_threads(easyml_sim *sim, int threads);
/* Builds tables for dt, sets initial states and computes Iion. */
int easyml_sim_initialize(easyml_sim *sim, double dt);
/* One process: advances all cells by nsteps from global step step0; with integrate_vm
 * the kernel applies Vm += stim*dt before and Vm -= Iion*dt after each
 * model step (openCARP bench). Returns non-zero if a value became NaN/Inf,
 * with the cell, variable, step and time in easyml_last_error(). */
int easyml_sim_advance(easyml_sim *sim, int64_t step0, int64_t nsteps,
                       double stim, int integrate_vm);
/* Parameter or flag `name` for all cells / per cell (`values`: num_cells
 * values; refused for parameters a lookup table reads). The derived
 * parameters computed from it follow, per cell where it is. */
int easyml_sim_set_param(easyml_sim *sim, const char *name, double value);
int easyml_sim_set_param_per_cell(easyml_sim *sim, const char *name,
                                  const double *values);
/* Samples per-cell parameters as easyml-bench --population does
 * ("GKr*lognormal(1,0.2),GNa*uniform(0.5,1.5)"; the same spec and seed give
 * the same population everywhere) and gives them to the cells. */
int easyml_sim_sample_params(easyml_sim *sim, const char *spec,
                             uint64_t seed);

/* The runtime's time loop. Stimulus trains in ms (openCARP bench
 * rounding: steps = lround(ms/dt)), from the dt of initialize. */
int easyml_sim_add_stimulus(easyml_sim *sim, double start_ms,
                            double duration_ms, double strength,
                            double period_ms, int64_t count);
/* Records `variables` (comma-separated state, external or trace names) of
 * cells [cell_begin, cell_end) at steps first_step + k*every: `fn` gets
 * each sample (values[slot*cells + c]) after the wave that took it. */
typedef void (*easyml_sample_fn)(int64_t step, const double *values,
                                 void *user);
int easyml_sim_record(easyml_sim *sim, const char *variables,
                      int64_t cell_begin, int64_t cell_end, int64_t first_step,
                      int64_t every, easyml_sample_fn fn, void *user);
/* Calls `fn` when the simulation reaches `step` (then every `every` steps
 * when every > 0), before the wave that starts there; a non-zero return
 * stops the run. Returns the event's id (> 0). */
typedef int (*easyml_event_fn)(easyml_sim *sim, int64_t step, void *user);
int easyml_sim_add_event(easyml_sim *sim, int64_t step, int64_t every,
                         easyml_event_fn fn, void *user);
/* Runs to step `until_step` (to time until_ms). Non-zero when a device
 * failed, a value became non-finite (cell, variable, step in
 * easyml_last_error()) or an event stopped the run. */
int easyml_sim_run(easyml_sim *sim, int64_t until_step);
int easyml_sim_run_until(easyml_sim *sim, double until_ms);
int64_t easyml_sim_step(const easyml_sim *sim);
/* What the simulation did (throughput per device, waves, repartitions,
 * dimensioning) as JSON; valid until the next call on `sim`. */
const char *easyml_sim_report_json(easyml_sim *sim);
/* Row `var` (a state or nodal parameter) of every cell out of / into the
 * simulation, wherever the cells live. */
int easyml_sim_get_state_row(easyml_sim *sim, int64_t var, double *values);
int easyml_sim_set_state_row(easyml_sim *sim, int64_t var,
                             const double *values);

/* Biomarkers per cell and beat, computed during the run (a beat starts at
 * every stimulus onset; docs/biomarkers.md). `ca_variable`: the calcium
 * state, or NULL. close_beat ends the current beat; biomarkers returns the
 * table so far, `*rows` rows of EASYML_BIOMARKER_COLUMNS values (cell,
 * beat, start, v_rest, v_peak, dvdt_max, apd30, apd50, apd90,
 * triangulation, ca_amplitude, ca_time_to_peak, apd90_change, flags),
 * valid until the next call on `sim`. */
#define EASYML_BIOMARKER_COLUMNS 14
int easyml_sim_enable_biomarkers(easyml_sim *sim, const char *ca_variable);
int easyml_sim_close_beat(easyml_sim *sim);
const double *easyml_sim_biomarkers(easyml_sim *sim, int64_t *rows);

/* This process's rank and the number of ranks (0 and 1 in one process),
 * and the cells it holds [*begin, *end) (recorded samples and biomarker
 * rows are those of these cells). */
int easyml_sim_rank(const easyml_sim *sim);
int easyml_sim_ranks(const easyml_sim *sim);
void easyml_sim_owned(const easyml_sim *sim, int64_t *begin, int64_t *end);

/* Output files, written by the library with the same bytes whatever the
 * rank count. write_biomarkers: the biomarker table so far (CSV, or a
 * structured .npy by the extension) with one more column per name in
 * `param_columns` (comma-separated parameters: each cell's value). save_vm:
 * Vm of every cell at steps first_step + k*every, k < samples, as a
 * (samples x cells) .npy (it uses the recording: not with
 * easyml_sim_record); finish writes it into place once complete (or
 * removes it after a failed run). */
int easyml_sim_write_biomarkers(easyml_sim *sim, const char *path,
                                const char *param_columns);
int easyml_sim_save_vm(easyml_sim *sim, const char *path, int64_t first_step,
                       int64_t every, int64_t samples);
int easyml_sim_finish(easyml_sim *sim);

/* Checkpoints (docs/checkpoints.md). checkpoint: the whole run (every cell,
 * the clock, the closed beats' biomarkers, how far save_vm's file got) to
 * `path`, whole or not at all; call it between runs or from an event.
 * restart: continues the run saved at `path`, after the same set-up as the
 * run that saved it (parameters, initialize, biomarkers, stimuli) and
 * before easyml_sim_save_vm, which then continues the file the killed run
 * left. 0, or 1 with easyml_last_error() naming what differs. */
int easyml_sim_checkpoint(easyml_sim *sim, const char *path);
int easyml_sim_restart(easyml_sim *sim, const char *path);

/* Per-cell arrays owned by the simulation (valid until it is freed; one
 * process). */
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
