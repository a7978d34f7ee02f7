//===- MpiSession.cpp - MPI for a tool's process --------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/MPI/MpiSession.h"

#include "easyml/Runtime/MPI/ParallelIO.h"

#include <cstdio>
#include <cstdlib>
#include <mpi.h>

namespace {
int gRank = -1;
} // namespace

namespace easyml::rt::mpi {

bool underLauncher() {
  for (const char *v :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v))
      return true;
  return false;
}

int start(int &argc, char **&argv) {
  if (gRank < 0) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &gRank);
  }
  return gRank;
}

int rank() { return gRank; }

void stop() {
  if (gRank >= 0) {
    MPI_Finalize();
    gRank = -1;
  }
}

void abort(int code) {
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

bool agree(bool ok, std::string &error) {
  return gRank < 0 ? ok : rt::agree(MPI_COMM_WORLD, ok, error);
}

} // namespace easyml::rt::mpi
