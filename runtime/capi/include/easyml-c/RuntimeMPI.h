/*===- RuntimeMPI.h - the C API across MPI ranks ---------------------------===*
 *
 * Part of the EasyML toolchain.
 *
 * One simulation over the ranks of an MPI communicator, driven with the
 * calls of Runtime.h (every rank makes every call). Link EasyMLRuntimeMPI
 * (built when MPI is found) and MPI.
 *
 *===----------------------------------------------------------------------===*/

#ifndef EASYML_RUNTIME_RUNTIMEMPI_H
#define EASYML_RUNTIME_RUNTIMEMPI_H

#include "easyml-c/Runtime.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `num_cells` cells of `model` over the ranks of `comm`: each rank holds a
 * block of the cells and runs it on `devices` of its node ("cpu",
 * "cpu+gpu:all", ...; `cpu_variant` NULL for the CPU default). The same
 * results, bit for bit, as one process. Collective. */
easyml_sim *easyml_sim_create_mpi(const easyml_model *model, int64_t num_cells,
                                  const char *devices, const char *cpu_variant,
                                  MPI_Comm comm);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EASYML_RUNTIME_RUNTIMEMPI_H */
