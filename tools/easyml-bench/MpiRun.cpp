//===- MpiRun.cpp - easyml-bench across MPI ranks -------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// `mpirun -np N easyml-bench ...` runs the same protocol as one process,
// over a DistributedSimulation: each rank owns a block of the cells and
// runs them on the devices of its node (--devices applies per rank). Rank 0
// holds cell 0 and writes its files; --save-vm and --biomarkers are written
// by every rank with MPI-IO into the one-process formats. A failure on any
// rank stops every rank with one message naming the rank.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include "easyml/Runtime/Apps/MpiOptions.h"
#include "easyml/Runtime/MPI/Distributed.h"
#include "easyml/Runtime/MPI/MpiSession.h"
#include "easyml/Runtime/Core/Population.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

using namespace easyml;
using namespace easyml::bench;

namespace easyml::bench {

namespace {

/// The options only the MPI run has; false (said by rank 0) on a bad one.
bool distributedOptions(const BenchRun &run, int size, const rt::WriterRanks &w,
                        rt::DistributedOptions &dopts, int rank) {
  const CommandLine &cl = *run.cl;
  auto bad = [&](const std::string &msg) {
    if (rank == 0)
      std::fprintf(stderr, "easyml-bench: error: %s\n", msg.c_str());
    return false;
  };
  dopts.balance = run.options.balance;
  dopts.probeSteps = run.options.probeSteps;
  dopts.world = MPI_COMM_WORLD;
  dopts.firstWriter = w.first();
  dopts.writers = w.count();
  if (cl.has("mpi-epoch-steps")) {
    std::vector<std::string> errors;
    dopts.maxEpochSteps = cl.integer("mpi-epoch-steps", errors);
    if (!errors.empty() || dopts.maxEpochSteps < 0)
      return bad("--mpi-epoch-steps must be >= 0, got " +
                 cl.get("mpi-epoch-steps"));
  }
  if (cl.has("mpi-slow")) {
    rt::SlowRank slow;
    rt::Status s = rt::parseSlowRank(cl.get("mpi-slow"), slow);
    if (s.ok())
      s = rt::checkSlowRank(slow, size);
    if (!s.ok())
      return bad(s.message());
    dopts.slowRank = slow.rank;
    dopts.slowFactor = slow.factor;
  }
  return true;
}

/// The protocol on the computing ranks, then the summary (rank 0).
int runRanks(const BenchRun &given, const rt::WriterRanks &writers,
             bool &writersUsed) {
  MPI_Comm comm = writers.computing();
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  BenchRun run = given;
  run.protocol.writers = writers.describe();
  rt::DistributedOptions dopts;
  if (!distributedOptions(run, size, writers, dopts, rank))
    return rt::kExitInvalid;
  rt::DistributedSimulation sim(comm, *run.model, run.num, run.options, dopts);
  rt::RunSummary summary;
  rt::Status s = rt::runBenchProtocol(sim, run.protocol, summary);
  writersUsed = sim.usedWriters();
  return s.ok() ? report(sim, run, summary) : said(s, rank);
}
} // namespace

int runDistributed(const BenchRun &run) {
  int count = 0;
  std::string v = run.cl->get("mpi-writer");
  if (run.cl->has("mpi-writer")) {
    char *end = nullptr;
    long k = std::strtol(v.c_str(), &end, 10);
    count = v.empty() || *end || k < 1 ? -1 : static_cast<int>(k);
  }
  rt::WriterRanks writers(MPI_COMM_WORLD, count);
  std::string error;
  if (!writers.valid(error)) {
    if (rt::mpi::rank() == 0)
      std::fprintf(stderr,
                   "easyml-bench: error: --mpi-writer=N needs 1 <= N < the "
                   "%d ranks (the last N write), got '%s'\n",
                   writers.worldSize(), v.c_str());
    return rt::kExitInvalid;
  }
  if (writers.writing())
    return writers.serve(error) ? 0 : 1;
  bool used = false;
  int code = runRanks(run, writers, used);
  writers.release(used);
  return code;
}

} // namespace easyml::bench
