/* One population over the ranks of MPI_COMM_WORLD through the C API
 * (easyml-c/RuntimeMPI.h): 1,000 Luo-Rudy cells with a sampled g_si, paced
 * twice; every rank makes every call and the library writes the biomarker
 * table, the same bytes whatever the rank count.
 *
 *   mpirun -np 2 ranks biomarkers.csv */
#include "luo_rudy_1991.h"

#include <easyml-c/RuntimeMPI.h>

#include <stdio.h>

static int fail(int rank) {
  if (rank == 0)
    fprintf(stderr, "ranks: error: %s\n", easyml_last_error());
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 2) {
    if (rank == 0)
      fprintf(stderr, "usage: ranks BIOMARKERS.csv\n");
    MPI_Finalize();
    return 2;
  }
  easyml_model *model = easyml_model_from_desc(&easyml_model_luo_rudy_1991);
  easyml_sim *sim = model ? easyml_sim_create_mpi(model, 1000, "cpu", NULL,
                                                  MPI_COMM_WORLD)
                          : NULL;
  int rc = !sim || easyml_sim_sample_params(sim, "g_si*uniform(0.8,1.2)", 1) ||
           easyml_sim_enable_biomarkers(sim, "Cai") ||
           easyml_sim_initialize(sim, 0.01) ||
           easyml_sim_add_stimulus(sim, 10, 1, 60, 400, 2) ||
           easyml_sim_run_until(sim, 800) || easyml_sim_close_beat(sim) ||
           easyml_sim_write_biomarkers(sim, argv[1], "g_si") ||
           easyml_sim_finish(sim);
  if (rc)
    rc = fail(rank);
  else if (rank == 0)
    printf("%d ranks: 1000 cells, biomarkers in %s\n", easyml_sim_ranks(sim),
           argv[1]);
  easyml_sim_free(sim);
  easyml_model_free(model);
  MPI_Finalize();
  return rc;
}
