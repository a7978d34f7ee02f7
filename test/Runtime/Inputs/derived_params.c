/* Derived parameters through the C API: a base given per cell makes what
 * is computed from it follow cell by cell (the bits of a uniform run with
 * that value), and a setting that changes nothing is reported. */
#include "derived.h"

#include <easyml-c/Runtime.h>

#include <stdio.h>
#include <string.h>

/* Vm of `cell` after 60 ms with one stimulus. */
static int run(easyml_sim *sim, int64_t cell, double *vm) {
  if (easyml_sim_initialize(sim, 0.01))
    return 1;
  for (int64_t step = 0; step < 6000; step += 10)
    if (easyml_sim_advance(sim, step, 10, step >= 100 && step < 200 ? 40 : 0,
                           1))
      return 1;
  *vm = easyml_sim_vm(sim)[cell];
  return 0;
}

int main(void) {
  easyml_model *model = easyml_model_from_desc(&easyml_model_derived);
  easyml_sim *cells = easyml_sim_create(model, 2, "cpu-simd");
  easyml_sim *one = easyml_sim_create(model, 1, "cpu-simd");
  easyml_sim *none = easyml_sim_create(model, 1, "cpu-simd");
  const double g_b[2] = {0.5, 1.0};
  double percell, uniform, unchanged;
  if (!cells || !one || !none ||
      easyml_sim_set_param_per_cell(cells, "g_b", g_b) ||
      run(cells, 1, &percell) || easyml_sim_set_params(one, "g_b*2") ||
      run(one, 0, &uniform) || run(none, 0, &unchanged)) {
    fprintf(stderr, "error: %s\n", easyml_last_error());
    return 1;
  }
  printf("per cell %s uniform, %s unchanged\n",
         memcmp(&percell, &uniform, sizeof percell) ? "!=" : "==",
         memcmp(&percell, &unchanged, sizeof percell) ? "!=" : "==");
  if (easyml_sim_set_params(none, "g_b*2,g=0.5"))
    return 1;
  printf("%s", easyml_sim_param_warnings(none));
  easyml_sim_free(cells);
  easyml_sim_free(one);
  easyml_sim_free(none);
  easyml_model_free(model);
  return 0;
}
