/* A C program linking a compiled model statically and driving it through
 * the runtime's C API: one HH cell, one stimulus, Vm peak checked. */
#include "hodgkin_huxley_1952.h"

#include <easyml-c/Runtime.h>

#include <stdio.h>

int main(void) {
  easyml_model *model = easyml_model_from_desc(&easyml_model_hodgkin_huxley_1952);
  easyml_sim *sim = model ? easyml_sim_create(model, 4, "baseline") : NULL;
  if (!sim || easyml_sim_set_params(sim, "g_K*1.0") ||
      easyml_sim_initialize(sim, 0.01)) {
    fprintf(stderr, "error: %s\n", easyml_last_error());
    return 1;
  }
  double peak = -1e9;
  for (int64_t step = 0; step < 2000; step += 10) {
    double stim = (step >= 100 && step < 150) ? 20.0 : 0.0;
    if (easyml_sim_advance(sim, step, 10, stim, 1)) {
      fprintf(stderr, "error: %s\n", easyml_last_error());
      return 1;
    }
    double v = easyml_sim_vm(sim)[3];
    if (v > peak)
      peak = v;
  }
  printf("states %d, peak %.1f mV, m = %.4f\n",
         (int)EASYML_hodgkin_huxley_1952_NUM_STATE, peak,
         *easyml_sim_state(sim, 0, EASYML_hodgkin_huxley_1952_STATE_m));
  /* Errors are reported, not crashed on. */
  if (easyml_sim_set_params(sim, "nope=1") == 0)
    return 1;
  printf("%s\n", easyml_last_error());
  easyml_sim_free(sim);
  easyml_model_free(model);
  return 0;
}
