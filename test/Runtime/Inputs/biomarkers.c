/* Biomarkers through the C API: a model linked in, four cells with their
 * own IKr conductance, two beats, the table read back. */
#include "easyml-c/Runtime.h"
#include "ten_tusscher_panfilov_2006.h"

#include <stdio.h>

int main(void) {
  easyml_model *model =
      easyml_model_from_desc(&easyml_model_ten_tusscher_panfilov_2006);
  easyml_sim *sim = easyml_sim_create(model, 4, NULL);
  double gkr[4] = {0.08, 0.153, 0.25, 0.4};
  if (!sim || easyml_sim_set_param_per_cell(sim, "G_Kr", gkr) ||
      easyml_sim_initialize(sim, 0.01) ||
      easyml_sim_add_stimulus(sim, 10, 1, 60, 500, 2) ||
      easyml_sim_enable_biomarkers(sim, "Ca_i") ||
      easyml_sim_run_until(sim, 1000) || easyml_sim_close_beat(sim)) {
    printf("error: %s\n", easyml_last_error());
    return 1;
  }
  int64_t rows = 0;
  const double *t = easyml_sim_biomarkers(sim, &rows);
  printf("rows %lld\n", (long long)rows);
  for (int64_t r = 0; r < rows; ++r) {
    const double *row = t + r * EASYML_BIOMARKER_COLUMNS;
    printf("cell %.0f beat %.0f apd90 %.1f ca %.2g flags %.0f\n", row[0],
           row[1], row[8], row[10], row[13]);
  }
  if (easyml_sim_enable_biomarkers(sim, "nope"))
    printf("%s\n", easyml_last_error());
  easyml_sim_free(sim);
  easyml_model_free(model);
  return 0;
}
