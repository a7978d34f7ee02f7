/* Layout conversion at the simulator boundary: cell-major (openCARP-style)
 * state records go into and come out of every variant unchanged, whatever
 * its internal layout, and the vectorised variant advances cells that start
 * from different states exactly as the scalar one does. */
#include "ten_tusscher_panfilov_2006.h"

#include <easyml-c/Runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CELLS = 37 }; /* not a multiple of any vector width */

static easyml_sim *make(const easyml_model *model, const char *variant) {
  easyml_sim *sim = easyml_sim_create(model, CELLS, variant);
  if (!sim || easyml_sim_set_threads(sim, 2) ||
      easyml_sim_initialize(sim, 0.01)) {
    fprintf(stderr, "error: %s\n", easyml_last_error());
    exit(1);
  }
  return sim;
}

int main(void) {
  const easyml_model_desc *desc = &easyml_model_ten_tusscher_panfilov_2006;
  easyml_model *model = easyml_model_from_desc(desc);
  if (!model)
    return 1;
  easyml_sim *scalar = make(model, "baseline");
  easyml_sim *simd = make(model, NULL);
  printf("default variant: %s\n", easyml_sim_variant(simd));

  /* Distinct records per cell: each state scaled by a cell-dependent
   * factor, Vm spread over the cells. */
  int64_t n = desc->sv_size;
  double *aos = malloc(sizeof(double) * CELLS * n);
  double *back = malloc(sizeof(double) * CELLS * n);
  easyml_sim_get_states(scalar, aos);
  for (int c = 0; c < CELLS; ++c)
    for (int64_t v = 0; v < desc->num_states; ++v)
      aos[c * n + v] *= 1.0 + 0.01 * c;
  easyml_sim_set_states(scalar, aos);
  easyml_sim_set_states(simd, aos);

  /* Round trip and per-cell access agree with the records. */
  easyml_sim_get_states(simd, back);
  int roundtrip = memcmp(aos, back, sizeof(double) * CELLS * n) == 0;
  int access = 1;
  for (int c = 0; c < CELLS; ++c)
    for (int64_t v = 0; v < desc->num_states; ++v)
      access &= *easyml_sim_state(simd, c, v) == aos[c * n + v];
  printf("round trip: %s, per-cell access: %s\n",
         roundtrip ? "exact" : "DIFFERS", access ? "exact" : "DIFFERS");

  for (int c = 0; c < CELLS; ++c)
    easyml_sim_vm(scalar)[c] = easyml_sim_vm(simd)[c] = -86.0 + 2.0 * c;
  for (int64_t step = 0; step < 500; step += 50)
    if (easyml_sim_advance(scalar, step, 50, 0.0, 1) ||
        easyml_sim_advance(simd, step, 50, 0.0, 1)) {
      fprintf(stderr, "error: %s\n", easyml_last_error());
      return 1;
    }

  /* Compare per state relative to that state's largest magnitude. */
  double *a = malloc(sizeof(double) * CELLS * n);
  easyml_sim_get_states(scalar, a);
  easyml_sim_get_states(simd, back);
  double worst = 0, spread = 0;
  for (int64_t v = 0; v < desc->num_states; ++v) {
    double scale = 0;
    for (int c = 0; c < CELLS; ++c)
      scale = fmax(scale, fabs(a[c * n + v]));
    for (int c = 0; c < CELLS; ++c) {
      double d = fabs(a[c * n + v] - back[c * n + v]) / (scale > 0 ? scale : 1);
      worst = fmax(worst, d);
      spread =
          fmax(spread, fabs(a[c * n + v] - a[v]) / (scale > 0 ? scale : 1));
    }
  }
  double dv = 0;
  for (int c = 0; c < CELLS; ++c)
    dv = fmax(dv, fabs(easyml_sim_vm(scalar)[c] - easyml_sim_vm(simd)[c]));
  printf("cells differ from each other: %s\n", spread > 1e-3 ? "yes" : "NO");
  printf("baseline vs %s after 500 steps: states %s, Vm %s\n",
         easyml_sim_variant(simd), worst <= 1e-9 ? "agree" : "DIFFER",
         dv <= 1e-9 ? "agrees" : "DIFFERS");
  if (worst > 1e-9 || dv > 1e-9)
    fprintf(stderr, "max scaled difference %g, Vm %g\n", worst, dv);
  free(a);
  free(aos);
  free(back);
  easyml_sim_free(scalar);
  easyml_sim_free(simd);
  easyml_model_free(model);
  return 0;
}
