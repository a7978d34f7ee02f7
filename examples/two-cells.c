/* Two ionic models compiled into this program by easyml_add_model(), each
 * run on a few cells without tissue: one stimulus of 1 ms, 500 ms, openCARP-bench
 * stepping (the kernel integrates Vm), reporting each model's action
 * potential peak, APD90 and the variant the runtime chose. */
#include "luo_rudy_1991.h"
#include "mitchell_schaeffer_2003.h"

#include <easyml-c/Runtime.h>

#include <stdio.h>

static int run(const easyml_model_desc *desc, double stim, int cells) {
  const double dt = 0.01;
  easyml_model *model = easyml_model_from_desc(desc);
  easyml_sim *sim = model ? easyml_sim_create(model, cells, NULL) : NULL;
  if (!sim || easyml_sim_initialize(sim, dt)) {
    fprintf(stderr, "%s: error: %s\n", desc->name, easyml_last_error());
    return 1;
  }
  /* Waves of 1 ms (100 steps); the stimulus during [1, 2) ms. */
  enum { kMs = 500 };
  double vm[kMs + 1];
  vm[0] = easyml_sim_vm(sim)[0];
  for (int ms = 0; ms < kMs; ++ms) {
    double s = ms == 1 ? stim : 0.0;
    if (easyml_sim_advance(sim, ms * 100, 100, s, 1)) {
      fprintf(stderr, "%s: error: %s\n", desc->name, easyml_last_error());
      return 1;
    }
    vm[ms + 1] = easyml_sim_vm(sim)[cells - 1];
  }
  double rest = vm[0], peak = rest;
  int top = 0;
  for (int i = 0; i <= kMs; ++i)
    if (vm[i] > peak) {
      peak = vm[i];
      top = i;
    }
  double level = peak - 0.9 * (peak - rest);
  int up = -1, down = -1;
  for (int i = 1; i <= top && up < 0; ++i)
    if (vm[i] > level)
      up = i;
  for (int i = top; i <= kMs && down < 0; ++i)
    if (vm[i] < level)
      down = i;
  printf("%-24s variant %-8s cells %d  rest %8.3f  peak %8.3f  APD90 %d ms\n",
         desc->name, easyml_sim_variant(sim), cells, rest, peak,
         down - up);
  easyml_sim_free(sim);
  easyml_model_free(model);
  /* No action potential, or no repolarisation: something is wrong. */
  return up < 0 || down < 0;
}

int main(void) {
  int failed = run(&easyml_model_luo_rudy_1991, 60.0, 64);
  failed |= run(&easyml_model_mitchell_schaeffer_2003, 0.5, 64);
  return failed;
}
