//===- CAPIMPI.cpp - the C API across MPI ranks ---------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

#include "easyml/Runtime/MPI/Distributed.h"
#include "easyml-c/RuntimeMPI.h"

using namespace easyml::rt;
using namespace easyml::rt::capi;

easyml_sim *easyml_sim_create_mpi(const easyml_model *model, int64_t numCells,
                                  const char *devices, const char *cpuVariant,
                                  MPI_Comm comm) {
  if (!model || numCells < 1) {
    failWith("easyml_sim_create_mpi: needs a model and at least one cell");
    return nullptr;
  }
  SimulationOptions o;
  o.devices = devices ? devices : "cpu";
  o.cpuVariant = cpuVariant ? cpuVariant : "";
  return wrap(model, o,
              std::make_unique<DistributedSimulation>(comm, *model->handle,
                                                      numCells, o));
}
