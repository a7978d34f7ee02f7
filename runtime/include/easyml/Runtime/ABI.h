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

#define EASYML_ABI_VERSION 2

/* Arguments of every kernel entry point. One struct, so the ABI can grow
 * without changing function types. Field order is part of the ABI. */
typedef struct easyml_kernel_args {
  int64_t begin;        /* first cell */
  int64_t end;          /* one past the last cell */
  int64_t nsteps;       /* compute: number of steps to advance */
  int64_t step0;        /* global index of the first step: t = (step0+k)*dt */
  double dt;            /* time step (ms) */
  double stim;          /* stimulus current added to Vm (Vm += stim*dt) */
  int64_t integrate_vm; /* 1: the kernel integrates Vm (bench, task waves) */
  int64_t stride;       /* cells per state row (SoA variants) */
  double *sv;           /* state storage (layout per variant) */
  double **ext;         /* one per-cell array per external, descriptor order */
  const double *params; /* parameters then flags */
  double *tables;       /* all lookup tables (written by build_tables) */
  int64_t *counters;    /* warning counters (see counter_names) */
  double *out;          /* eval: traced values, [cell][num_traces] */
} easyml_kernel_args;

typedef void (*easyml_kernel_fn)(const easyml_kernel_args *);

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

/* A GPU code object for one chip. */
typedef struct easyml_gpu_image {
  const char *chip;   /* "sm_80", "sm_90", "gfx90a", "gfx942" */
  const char *format; /* "fatbin", "hsaco" */
  const void *data;
  int64_t size; /* bytes */
} easyml_gpu_image;

/* One compiled variant of the model. CPU variants point at host functions;
 * GPU variants carry code objects whose kernels (named in *_kernel) take
 * one argument: a device pointer to an easyml_kernel_args whose pointers
 * are device pointers, one thread per cell of [begin, end). Their compute
 * kernel also adds the number of cells left with a non-finite state or
 * external to counters[num_counters], a slot the host allocates after the
 * model's counters (NaN detection on the device). */
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
} easyml_variant;

typedef struct easyml_table_desc {
  const char *variable;
  double lo, hi, step;
  int64_t num_rows, num_columns, offset; /* offset in doubles */
  const char *const *column_names;
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
  int64_t num_counters;
  const char *const *counter_names; /* "Cai < 1e-09", "table V out of range" */

  easyml_kernel_fn build_tables; /* reads params, dt; writes tables */
  int64_t num_variants;
  const easyml_variant *variants;
} easyml_model_desc;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EASYML_RUNTIME_ABI_H */
