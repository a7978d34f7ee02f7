//===- TissueMPI.h - a tissue's ranks over MPI ------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The MPI side of a tissue across ranks (TissueComm.h): halos with
// non-blocking point-to-point messages, reductions and the gather of whole
// arrays for output; and the simulation over the ranks that runTissue
// runs. In EasyMLRuntimeMPI.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUEMPI_H
#define EASYML_RUNTIME_TISSUEMPI_H

#include "easyml/Runtime/MPI/Distributed.h"
#include "easyml/Runtime/Tissue/TissueComm.h"
#include "easyml/Runtime/Tissue/TissueRun.h"

#include <mpi.h>

#include <memory>

namespace easyml::rt {

std::unique_ptr<TissueComm> makeMpiTissueComm(MPI_Comm comm);

/// What runTissue needs to run across the ranks of `comm`: a
/// DistributedSimulation (slabs start as even shares and follow its
/// balancer where the tissue asks; boxes stay put), and the communicator
/// (`comm` owns it). `base`: the ranks' options (slowRank for tests).
struct MpiTissueRanks {
  std::unique_ptr<TissueComm> comm;
  TissueRanks ranks;
};
MpiTissueRanks makeMpiTissueRanks(MPI_Comm comm,
                                  const DistributedOptions &base = {});

} // namespace easyml::rt

#endif // EASYML_RUNTIME_TISSUEMPI_H
