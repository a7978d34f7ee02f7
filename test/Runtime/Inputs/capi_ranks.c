/* A population with biomarkers through the public C API, in one process or
 * across the ranks of MPI_COMM_WORLD (the same calls): the biomarker table
 * (with the sampled parameter) and every cell's Vm are written by the
 * library.
 *
 *   capi_ranks MODEL.so VM.npy BIOMARKERS.csv */
#include <easyml-c/RuntimeMPI.h>

#include <stdio.h>

static int check(int rc, int rank) {
  if (rc && rank == 0)
    fprintf(stderr, "error: %s\n", easyml_last_error());
  return rc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  easyml_model *model = argc == 4 ? easyml_model_load(argv[1]) : NULL;
  if (!model) {
    fprintf(stderr, "usage: capi_ranks MODEL.so VM.npy BIOMARKERS.csv (%s)\n",
            easyml_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  easyml_sim *sim =
      size > 1 ? easyml_sim_create_mpi(model, 500, "cpu", NULL, MPI_COMM_WORLD)
               : easyml_sim_create(model, 500, NULL);
  int rc = check(!sim, rank) ||
           check(easyml_sim_set_threads(sim, 1) && size == 1, rank) ||
           check(easyml_sim_sample_params(sim, "G_Kr*uniform(0.5,1.5)", 7),
                 rank) ||
           check(easyml_sim_enable_biomarkers(sim, "Ca_i"), rank) ||
           check(easyml_sim_initialize(sim, 0.01), rank) ||
           check(easyml_sim_add_stimulus(sim, 10, 1, 60, 300, 3), rank) ||
           check(easyml_sim_save_vm(sim, argv[2], 0, 100, 90), rank) ||
           check(easyml_sim_run_until(sim, 900), rank) ||
           check(easyml_sim_close_beat(sim), rank) ||
           check(easyml_sim_write_biomarkers(sim, argv[3], "G_Kr"), rank) ||
           check(easyml_sim_finish(sim), rank);
  if (rank == 0 && !rc)
    printf("%d ranks: done\n", easyml_sim_ranks(sim));
  easyml_sim_free(sim);
  easyml_model_free(model);
  MPI_Finalize();
  return rc;
}
