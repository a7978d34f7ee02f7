/*===- ABI.h - the contract between compiled models and the runtime -------===*
 *
 * Part of the EasyML toolchain.
 *
 * A compiled model exports one `easyml_model_desc` (as
 * `easyml_model_<name>`; shared libraries also as `easyml_model`). It
 * describes the model's variables and points at its kernels. Everything is
 * plain C so any simulator can load a model; every field is 8 bytes wide, so
 * the compiler can emit the layout without padding rules.
 *
 *===----------------------------------------------------------------------===*/

#ifndef EASYML_RUNTIME_ABI_H
#define EASYML_RUNTIME_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EASYML_ABI_VERSION 9

/* Arguments of every kernel entry point. One struct, so the ABI can grow
 * without changing function types. Field order is part of the ABI; every
 * field is 8 bytes wide.
 *
 * Per-cell storage is indexed in the kernel's own cell space: a device that
 * holds a window of the simulation's cells passes pointers to its window and
 * cell indices relative to it. Rows of `stride` cells (SoA variants, and
 * every per-cell array whatever the variant: externals, parameter rows,
 * biomarkers) hold cell `c` at `row[c]`. */
typedef struct easyml_kernel_args {
  int64_t begin;        /* first cell */
  int64_t end;          /* one past the last cell */
  int64_t nsteps;       /* compute: number of steps to advance */
  int64_t step0;        /* global index of the first step: t = (step0+k)*dt */
  double dt;            /* time step (ms) */
  double stim;          /* stimulus current added to Vm (Vm += stim*dt) */
  int64_t integrate_vm; /* 1: the kernel integrates Vm (bench, task waves) */
  int64_t stride;       /* cells per row (SoA variants, per-cell arrays) */
  double *sv;           /* state storage (layout per variant), sv_rows per
                           cell: states, nodal parameters, hidden states */
  double **ext;         /* one per-cell array per external, descriptor order */
  const double *params; /* parameters then flags */
  double *tables;       /* all lookup tables (written by build_tables) */
  int64_t *counters;    /* warning counters (see counter_names) */
  double *out;          /* eval: traced values, [cell][num_traces] (AoS) or
                           [trace][stride] (SoA) */

  /* --- ABI 3: per-cell parameters (EASYML_FEATURE_PARAM_ROWS) --------- */
  /* NULL, or one pointer per parameter and flag (params order): NULL where
   * the value is params[i] for every cell, else a row holding each cell's
   * value. Read by init, compute and eval; tables never read them. */
  const double *const *param_rows;

  /* --- ABI 3: samples recorded inside a wave (EASYML_FEATURE_RECORD) --- */
  /* compute records, at the start of every global step s in [step0,
   * step0 + nsteps) with s = rec_first + k*rec_every, 0 <= k < rec_samples,
   * the values selected by rec_slot for the cells in [rec_begin, rec_end):
   *   rec[(k*rec_num + rec_slot[v])*rec_stride + (cell - rec_begin)].
   * A value v is numbered in the descriptor's recordable space: sv rows,
   * then externals, then traces (traces are evaluated at the sample as eval
   * does). rec_slot[v] < 0: not recorded. rec_samples = 0: nothing. */
  double *rec;
  const int64_t *rec_slot; /* num_recordable entries */
  int64_t rec_num;         /* slots per sample */
  int64_t rec_begin, rec_end;
  int64_t rec_stride;
  int64_t rec_first; /* global step of sample 0 */
  int64_t rec_every; /* >= 1 */
  int64_t rec_samples;
  int64_t rec_traces; /* non-zero when a trace has a slot */

  /* --- ABI 3: biomarker accumulators (EASYML_FEATURE_BIOMARKERS) ------- */
  /* NULL, or EASYML_BIO_NUM_ROWS rows of `stride` cells that compute
   * updates after every step (see enum easyml_bio_row); the runtime
   * resets them at each beat. bio_ca: the sv row of the intracellular
   * calcium state, or -1. */
  double *bio;
  int64_t bio_ca;

  /* --- ABI 7: steps as one interval (EASYML_FEATURE_WHOLE_CELL) -------- */
  /* compute on a model that integrates Vm itself: non-zero makes the
   * nsteps steps one interval of nsteps*dt from t = step0*dt, which each
   * cell crosses in its own sub-steps without stopping at every step (the
   * stimulus and integrate_vm hold over the whole of it). The runtime
   * gives such a call no biomarkers and no samples. Other models ignore
   * it. */
  int64_t one_interval;

  /* --- ABI 8: Vm before the call (a tissue's activation test) ---------- */
  /* compute on a model with a Vm external: NULL, or an array indexed by
   * cell (the caller offsets it, as the externals) into which each cell's
   * Vm is stored as the kernel read it, before the call's first step (and
   * its stimulus). It saves the caller a copy of Vm where the kernel
   * integrates Vm in place. */
  double *vm_before;
} easyml_kernel_args;

/* Capabilities of a compiled model's kernels (easyml_model_desc.features). */
enum easyml_feature {
  EASYML_FEATURE_PARAM_ROWS = 1, /* honours param_rows */
  EASYML_FEATURE_RECORD = 2,     /* records samples inside a wave */
  EASYML_FEATURE_BIOMARKERS = 4, /* updates bio */
  /* Integrates Vm itself with every state, each cell its own steps
     (easyml-compile --adaptive): its last state holds Vm, loaded from the
     Vm external before each step and stored there after; stim is a
     current over the step; hidden values cvode.steps.* count sub-steps. */
  EASYML_FEATURE_WHOLE_CELL = 8
};

/* Rows of the biomarker accumulators, per cell, for the current beat
 * (times in ms; NaN until set). */
enum easyml_bio_row {
  EASYML_BIO_V_REST = 0, /* Vm at the first step of the beat */
  EASYML_BIO_V_PEAK,     /* highest Vm */
  EASYML_BIO_T_PEAK,     /* its time */
  EASYML_BIO_DVDT_MAX,   /* largest (Vm(t+dt) - Vm(t))/dt */
  EASYML_BIO_T_UPSTROKE, /* its time */
  EASYML_BIO_T_REPOL30,  /* first time after the peak below 30%, */
  EASYML_BIO_T_REPOL50,  /* 50% and 90% repolarisation (linearly */
  EASYML_BIO_T_REPOL90,  /* interpolated between steps) */
  EASYML_BIO_V_TROUGH,   /* lowest Vm since the peak */
  EASYML_BIO_EAD,        /* 1 when Vm rose again before 90% repol. */
  EASYML_BIO_CA_MIN,     /* lowest and highest calcium, time of the */
  EASYML_BIO_CA_MAX,     /* highest */
  EASYML_BIO_T_CA_PEAK,
  EASYML_BIO_NUM_ROWS
};

typedef void (*easyml_kernel_fn)(const easyml_kernel_args *);

/* ABI 5: recomputes, in dependency order and in place, every derived
 * parameter p (easyml_model_desc.derived_params) with keep[p] == 0 from the
 * values in params (parameters then flags, num_params + num_flags of
 * each); a kept one keeps its value and its dependents follow it. */
typedef void (*easyml_derive_fn)(double *params, const int64_t *keep);

/* ABI 6: the diffusion operator of the monodomain equation on a block of
 * a structured grid (tissue), the same in every model and variant. Points
 * are numbered x fastest; for every i in [begin, end):
 *
 *   out[i] = v[i] + sum over the axes a of
 *              c_a * ( ((flags[i] & a-) ? v[i - s_a] - v[i] : 0)
 *                    + ((flags[i] & a+) ? v[i + s_a] - v[i] : 0) )
 *            + (src ? src[i] : 0)
 *
 * and out[i] = v[i] where flags[i] lacks EASYML_DIFFUSION_TISSUE. An
 * explicit sub-step of length h has c_a = D_a h / dx_a^2 (D_a the
 * monodomain conductivity over surface-to-volume ratio and capacitance);
 * the same operator with other coefficients is the matrix of a
 * semi-implicit step. The caller offsets the pointers so that index i is
 * its point, and guarantees v[i +- s_a] wherever flags[i] names that
 * neighbour (halo points included). Every field is 8 bytes wide.
 *
 * Every variant computes exactly this, in IEEE double precision, each
 * operation rounded on its own (no fused multiply-add, no reassociation),
 * in this order, so all variants give the same bits for the same
 * arguments (a grid may be split between devices in any way):
 *
 *   d_a  = m_a + p_a          (a = x, y, z), where
 *          m_a = v[i - s_a] - v[i] if flags[i] has a- and TISSUE, else 0
 *          p_a = v[i + s_a] - v[i] if flags[i] has a+ and TISSUE, else 0
 *   lap  = ((c_x * d_x) + (c_y * d_y)) + (c_z * d_z)
 *   next = v[i] + lap
 *   next = next + src[i]      (only when src is not NULL)
 *
 * Neighbours are read only where that neighbour's bit and TISSUE are set;
 * nothing outside [begin, end) is written, and only v, flags and src at
 * the points themselves and at the neighbours so named are read.
 *
 * ABI 9: the activation pass of a tissue step, where `prev` is not NULL
 * (the last sub-step of a step on a device that keeps Vm). For every point
 * i of TISSUE in [begin, end), with x = out[i] as computed above:
 *
 *   if prev[i] < threshold and x >= threshold and lat[i] is NaN:
 *     lat[i] = t1 - (dt * (x - threshold)) / (x - prev[i])
 *     counts[0] += 1                        (atomically)
 *   if x is NaN or infinite: counts[1] += 1 (atomically)
 *   prev[i] = x
 *
 * each operation rounded on its own, as above: the bits of the host's
 * activation pass. prev, lat and counts are read and written only there. */
typedef struct easyml_diffusion_args {
  int64_t begin;        /* first point */
  int64_t end;          /* one past the last point */
  int64_t sx, sy, sz;   /* index distance to the neighbour along x, y, z */
  double cx, cy, cz;    /* coefficient per axis */
  const double *v;      /* Vm before */
  double *out;          /* Vm after (not aliasing v) */
  const uint8_t *flags; /* per point: enum easyml_diffusion_flag bits */
  const double *src;    /* NULL, or per point: added (a stimulus, dt*I/Cm) */
  /* ABI 9: the activation pass (above); prev NULL: none. */
  double *prev;     /* per point: Vm after the last step, then out */
  double *lat;      /* per point: activation time (ms), NaN before */
  int64_t *counts;  /* [0] points activated, [1] not finite */
  double threshold; /* mV */
  double t1, dt;    /* end of the step and its length (ms) */
} easyml_diffusion_args;

/* Which neighbours a point exchanges current with: none across the grid's
 * boundary or with a point outside the tissue (no flux). */
enum easyml_diffusion_flag {
  EASYML_DIFFUSION_XM = 1, /* x - 1 */
  EASYML_DIFFUSION_XP = 2, /* x + 1 */
  EASYML_DIFFUSION_YM = 4,
  EASYML_DIFFUSION_YP = 8,
  EASYML_DIFFUSION_ZM = 16,
  EASYML_DIFFUSION_ZP = 32,
  EASYML_DIFFUSION_TISSUE = 64 /* the point is tissue (updated) */
};

typedef void (*easyml_diffuse_fn)(const easyml_diffusion_args *);

enum easyml_layout {
  EASYML_LAYOUT_AOS = 0, /* sv[cell * sv_size + var] (openCARP's shape) */
  EASYML_LAYOUT_SOA = 1  /* sv[var * stride + cell] */
};

enum easyml_access {
  EASYML_ACCESS_READ = 0,
  EASYML_ACCESS_WRITE = 1,
  EASYML_ACCESS_READWRITE = 2
};

enum easyml_device_kind {
  EASYML_DEVICE_CPU = 0,
  EASYML_DEVICE_CUDA = 1, /* images: fatbin (cubin + PTX) per chip */
  EASYML_DEVICE_ROCM = 2  /* images: hsaco code object per chip */
};

/* Bytes of kernel parameters every GPU launch may pass (CUDA's and HIP's
 * portable limit). ABI 4 GPU kernels take easyml_kernel_args by value and,
 * where they fit in the rest, the parameters and flags by value after it
 * (easyml_variant.params_by_value). */
#define EASYML_GPU_PARAM_SPACE 4096

/* The most threads per block a GPU kernel is launched with: its launch
 * bound (nvvm.maxntid, amdgpu-flat-work-group-size), so block_size below is
 * at most this. */
#define EASYML_GPU_MAX_BLOCK_SIZE 256

/* A GPU code object for one chip. */
typedef struct easyml_gpu_image {
  const char *chip;   /* "sm_80", "sm_90", "gfx90a", "gfx942" */
  const char *format; /* "fatbin", "hsaco" */
  const void *data;
  int64_t size; /* bytes */
  /* ABI 3: how to launch the kernels and what the compute kernel uses, as
   * read from the code object at build time (0: unknown, the runtime picks
   * 128 threads). */
  int64_t block_size;  /* threads per block: the highest occupancy */
  int64_t registers;   /* per thread (CUDA) or vector registers (AMDGPU) */
  int64_t spill_bytes; /* local (CUDA stack frame) or private (AMDGPU
                        * scratch) memory per thread, where spills go */
} easyml_gpu_image;

/* One compiled variant of the model. CPU variants point at host functions;
 * GPU variants carry code objects whose kernels (named in *_kernel) take,
 * since ABI 4, an easyml_kernel_args by value (its pointers are device
 * pointers) and then, when params_by_value is non-zero, that many doubles
 * by value: the parameters then flags (params order), then the model's
 * num_derived derived values (build_derived), which the kernels read
 * instead of args.params. One thread per cell of [begin, end). Every compute
 * entry also adds the number of cells it leaves with a non-finite state or
 * external to counters[num_counters], a slot the host allocates after the
 * model's counters (NaN detection where the cells are). */
typedef struct easyml_variant {
  const char *name;         /* "baseline", "cpu-simd", "cuda", "rocm" */
  int64_t layout;           /* enum easyml_layout */
  int64_t vector_width;     /* cells per vector (1 for scalar) */
  easyml_kernel_fn init;    /* initial states (+ Vm) of [begin, end) */
  easyml_kernel_fn compute; /* advance [begin, end) by nsteps */
  easyml_kernel_fn eval;    /* outputs and traces from the current state */
  int64_t device;           /* enum easyml_device_kind */
  int64_t num_images;       /* GPU variants */
  const easyml_gpu_image *images;
  const char *init_kernel, *compute_kernel, *eval_kernel;
  /* ABI 4, GPU variants: doubles passed by value after the kernel
   * arguments (num_params + num_flags + num_derived, or 0: the kernels
   * read args.params and compute the derived values). 0 for CPU
   * variants. */
  int64_t params_by_value;
  /* ABI 4: the parameters and flags (params indices) whose per-cell rows
   * (args.param_rows) the kernels read. -1: any of them (CPU variants). GPU
   * variants read only those named at compile time (easyml-compile
   * --per-cell-params) and the shared value of every other one, so a
   * simulation that varies another parameter per cell cannot run them. */
  int64_t num_row_params;
  const int64_t *row_params;
  /* ABI 6: the diffusion operator (easyml_diffusion_args): a host function
   * on CPU variants; on GPU variants the kernel named here, taking
   * easyml_diffusion_args by value, one thread per point of [begin, end). */
  easyml_diffuse_fn diffuse;
  const char *diffuse_kernel;
} easyml_variant;

typedef struct easyml_table_desc {
  const char *variable;
  double lo, hi, step;
  int64_t num_rows, num_columns, offset; /* offset in doubles */
  const char *const *column_names;
  /* ABI 3: the parameters and flags (params indices) its columns read. */
  int64_t num_params_read;
  const int64_t *params_read;
} easyml_table_desc;

typedef struct easyml_model_desc {
  int64_t abi_version; /* EASYML_ABI_VERSION */
  const char *name;
  const char *source;   /* the .model file it was compiled from */
  const char *compiler; /* "easyml-compile <version>" */

  /* States, then nodal parameters: the per-cell storage (sv_size values). */
  int64_t num_states;
  const char *const *state_names;
  const char *const *state_methods; /* "fe", "rush_larsen", ... */
  const char *const *state_units;   /* "" when unknown */
  const double *state_lb;           /* NaN: no bound */
  const double *state_ub;
  int64_t num_nodal;                /* nodal parameters, stored per cell */
  const int64_t *nodal_param_index; /* their index in params */
  int64_t sv_size;                  /* num_states + num_nodal */
  /* ABI 3: per-cell values the kernels keep between steps that are not
   * model states (an integrator's step size), stored after the sv_size
   * values: sv_rows = sv_size + num_hidden per cell. */
  int64_t num_hidden;
  const char *const *hidden_names;
  int64_t sv_rows;

  /* Parameters then flags share the params array. */
  int64_t num_params;
  const char *const *param_names;
  const double *param_defaults;
  const char *const *param_units;
  int64_t num_flags;
  const char *const *flag_names;
  const double *flag_defaults;
  const char *const *flag_cases;    /* "ENDO|EPI|MCELL" */
  const double *const *flag_values; /* value of each case */

  int64_t num_externals;
  const char *const *external_names;     /* model names ("V") */
  const char *const *external_sim_names; /* simulator names ("Vm") */
  const int64_t *external_access;        /* enum easyml_access */
  int64_t vm_index;                      /* external named Vm, or -1 */
  int64_t iion_index;                    /* external named Iion, or -1 */

  int64_t num_tables;
  const easyml_table_desc *tables;
  int64_t table_size; /* doubles */

  int64_t num_traces;
  const char *const *trace_names;
  /* ABI 3: sv_rows + num_externals + num_traces (kernel args rec_slot). */
  int64_t num_recordable;
  int64_t features; /* enum easyml_feature bits */
  int64_t num_counters;
  const char *const *counter_names; /* "Cai < 1e-09", "table V out of range" */

  easyml_kernel_fn build_tables; /* reads params, dt; writes tables */
  int64_t num_variants;
  const easyml_variant *variants;

  /* ABI 4: the values the model computes from shared parameters, flags and
   * dt alone (openCARP's regional constants): build_derived reads params
   * and dt and writes num_derived doubles to out (null when none). GPU
   * variants that pass parameters by value take these after them; the
   * runtime calls it whenever parameters or dt change. */
  int64_t num_derived;
  easyml_kernel_fn build_derived;

  /* ABI 5: parameters whose default is an expression of other parameters
   * and flags (a Myokit export's GKr = GKr_b * 1.3, both marked .param()).
   * They follow what they read unless set themselves: the runtime calls
   * derive_params whenever parameters change, for the shared values and
   * for every cell with per-cell values, before the kernels run.
   * param_defaults holds their values with everything at its default. */
  int64_t num_derived_params;
  const int64_t *derived_params;       /* params indices, each after
                                          the derived ones it reads */
  const char *const *derived_formulas; /* the definitions as written */
  const int64_t *derived_read_offsets; /* num_derived_params + 1 */
  const int64_t *derived_reads;        /* params indices each reads:
                                          [offsets[k], offsets[k+1]) */
  /* num_params + num_flags: 1 where a kernel or table reads the value
   * directly (a parameter read by none acts only through its dependents,
   * and changes nothing when they are all set themselves). */
  const int64_t *param_read;
  easyml_derive_fn derive_params; /* null when there are none */
} easyml_model_desc;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EASYML_RUNTIME_ABI_H */
