/* Checkpoints through the C API: a run with biomarkers and a Vm matrix is
 * saved half way; a child process goes on and dies without cleaning up (as
 * a killed run); a fresh simulation restarts from the checkpoint and its
 * files are compared by the test with an uninterrupted run's. */
#include "easyml-c/Runtime.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static easyml_sim *setUp(easyml_model *model, int restart) {
  double gsi[16];
  for (int c = 0; c < 16; ++c)
    gsi[c] = 0.07 + 0.0025 * c;
  easyml_sim *sim = easyml_sim_create(model, 16, NULL);
  if (!sim || easyml_sim_set_param_per_cell(sim, "g_si", gsi) ||
      easyml_sim_initialize(sim, 0.01) ||
      easyml_sim_add_stimulus(sim, 1, 1, 60, 250, 4) ||
      easyml_sim_enable_biomarkers(sim, "") ||
      (restart && easyml_sim_restart(sim, "ck.bin")) ||
      easyml_sim_save_vm(sim, "vm.npy", 0, 100, 1000))
    return NULL;
  return sim;
}

static int finish(easyml_sim *sim, const char *bio) {
  return easyml_sim_run_until(sim, 1000) || easyml_sim_close_beat(sim) ||
         easyml_sim_finish(sim) || easyml_sim_write_biomarkers(sim, bio, "");
}

int main(int argc, char **argv) {
  easyml_model *model = easyml_model_load(argv[1]);
  int whole = argc > 2;
  easyml_sim *sim = model ? setUp(model, 0) : NULL;
  if (!sim)
    return printf("error: %s\n", easyml_last_error()), 1;
  if (whole)
    return finish(sim, "bio.csv") ? printf("error: %s\n", easyml_last_error())
                                  : 0;
  if (easyml_sim_run_until(sim, 400) || easyml_sim_checkpoint(sim, "ck.bin"))
    return printf("error: %s\n", easyml_last_error()), 1;
  pid_t child = fork();
  if (child == 0) {
    easyml_sim_run_until(sim, 700);
    _exit(0); /* killed: no destructor runs, vm.npy.tmp stays */
  }
  int status = 0;
  waitpid(child, &status, 0);
  printf("child stopped at 700 ms, vm.npy.tmp %s\n",
         access("vm.npy.tmp", F_OK) == 0 ? "left" : "missing");
  easyml_sim *again = setUp(model, 1);
  if (!again || finish(again, "bio.csv"))
    return printf("error: %s\n", easyml_last_error()), 1;
  printf("restarted and finished\n");
  /* A checkpoint cannot come after the Vm file is open. */
  easyml_sim *late = easyml_sim_create(model, 16, NULL);
  easyml_sim_initialize(late, 0.01);
  easyml_sim_save_vm(late, "late.npy", 0, 100, 11);
  if (easyml_sim_restart(late, "ck.bin"))
    printf("%s\n", easyml_last_error());
  return 0;
}
