//===- easyml-tissue.cpp - monodomain tissue simulations ------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Runs the monodomain simulation a JSON configuration describes (keys:
// docs/tissue.md) and prints where the time went:
//
//   easyml-tissue CONFIG.json [--report-json FILE] [--quiet] [--no-progress]
//                 [--checkpoint FILE [--checkpoint-every MS]]
//                 [--restart FILE] [--cache-dir DIR]
//
// Under mpirun (when built with MPI) the grid is split over the ranks;
// rank 0 prints and writes.
//
//===----------------------------------------------------------------------===//

#include "FindCompiler.h"

#include "easyml/Runtime/Apps/CommandLine.h"
#include "easyml/Runtime/Apps/CompilerProcess.h"
#include "easyml/Runtime/Apps/ExitStatus.h"
#include "easyml/Runtime/Apps/MpiOptions.h"
#include "easyml/Runtime/IO/OutputFile.h"
#include "easyml/Runtime/Tissue/TissueRun.h"
#ifdef EASYML_HAVE_MPI
#include "easyml/Runtime/MPI/MpiSession.h"
#include "easyml/Runtime/Tissue/TissueMPI.h"
#endif

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

using namespace easyml;

namespace {

int error(const std::string &what, int code = rt::kExitFailed) {
  std::fprintf(stderr, "easyml-tissue: error: %s\n", what.c_str());
  return code;
}

std::vector<rt::OptionSpec> optionSpecs() {
  using K = rt::ArgKind;
  return {
      {"report-json", 0, K::Required, "the run's report as JSON", ""},
      {"checkpoint", 0, K::Required,
       "write the whole run to this file every --checkpoint-every ms (a "
       "killed run continues with --restart, its output files identical)",
       ""},
      {"checkpoint-every", 0, K::Required,
       "with --checkpoint: simulated time between checkpoints (ms)", "100"},
      {"restart", 0, K::Required,
       "continue the run saved in this checkpoint (the same configuration; "
       "devices, threads and the rank count may differ, but not a process "
       "grid of boxes)",
       ""},
      {"no-recovery", 0, K::None,
       "stop when a GPU fails, instead of going on without it on the other "
       "devices (which keeps a host copy of every cell at each step's start)",
       ""},
      {"mpi-slow", 0, K::Required,
       "RANK:FACTOR: under mpirun, rank RANK's ionic steps take FACTOR times "
       "as long (it sleeps for the difference), to see the slabs follow the "
       "balancer",
       ""},
      {"cache-dir", 0, K::Required,
       "where models are cached ($EASYML_CACHE_DIR, ~/.cache/easyml)", ""},
      {"quiet", 'q', K::None, "no summary", ""},
      {"no-progress", 0, K::None, "no progress bar", ""},
      {"help", 'h', K::None, "print this help", ""},
  };
}

void print(const rt::TissueSetup &s, const rt::TissueResult &r) {
  const rt::TissueReport &t = r.report;
  std::printf("model %s on %s\n", r.model.c_str(), r.devices.c_str());
  std::printf("grid %lld x %lld x %lld (%lld points of tissue), %lld steps "
              "of %g ms, %lld diffusion sub-step(s)%s\n",
              (long long)s.grid.n[0], (long long)s.grid.n[1],
              (long long)s.grid.n[2], (long long)t.tissuePoints,
              (long long)t.steps, s.options.dt, (long long)t.substeps,
              s.options.scheme == rt::TissueOptions::CrankNicolson
                  ? " (crank-nicolson)"
                  : "");
  if (int ranks = t.processGrid[0] * t.processGrid[1] * t.processGrid[2];
      ranks > 1) {
    std::string held;
    for (size_t k = 0; k < t.rankPoints.size(); ++k)
      held += (k ? ", " : "") + std::to_string(t.rankPoints[k]);
    std::printf("%d ranks, process grid %d x %d x %d, points per rank %s, "
                "%lld move(s) between ranks\n",
                ranks, t.processGrid[0], t.processGrid[1], t.processGrid[2],
                held.c_str(), (long long)t.rankRepartitions);
  }
  if (t.fusedSteps > 0)
    std::printf("%-10s %10.3f s (%lld steps: the ionic step, diffusion and "
                "activation times in one pass)\n",
                "one pass", t.fusedSeconds, (long long)t.fusedSteps);
  std::printf("%-10s %10.3f s\n%-10s %10.3f s (halo %.3f s)\n%-10s %10.3f "
              "s\n%-10s %10.3f s\n",
              "ionic", t.ionicSeconds, "diffusion", t.diffusionSeconds,
              t.haloSeconds, "output", t.outputSeconds, "total", t.wallSeconds);
  std::printf("throughput %.4g point-steps/s\n", t.pointStepsPerSecond());
  for (const rt::TissueResult::Recovery &x : r.recoveries)
    std::printf("device lost %s at step %lld: %s; went on with %s\n",
                x.device.c_str(), (long long)x.step, x.error.c_str(),
                x.devices.c_str());
  for (int a = 0; a < 3; ++a)
    if (!std::isnan(r.velocity[a]))
      std::printf("conduction velocity along %c %.4g mm/ms\n", "xyz"[a],
                  r.velocity[a]);
  for (size_t i = 0; i < r.probeTimes.size(); ++i)
    std::printf("activation %-8s %s\n", s.outputs.probeNames[i].c_str(),
                std::isnan(r.probeTimes[i])
                    ? "never"
                    : (std::to_string(r.probeTimes[i]) + " ms").c_str());
}

/// --checkpoint, --checkpoint-every and --restart into `setup`.
bool checkpointOptions(const rt::CommandLine &args, rt::TissueSetup &setup,
                       std::string &e) {
  std::vector<std::string> errors;
  setup.checkpoint = args.get("checkpoint");
  setup.restart = args.get("restart");
  setup.checkpointEvery = args.number("checkpoint-every", errors);
  setup.recover = !args.has("no-recovery");
  if (!errors.empty())
    return e = errors.front(), false;
  if (!(setup.checkpointEvery > 0))
    return e = "--checkpoint-every must be positive", false;
  if (args.has("checkpoint-every") && setup.checkpoint.empty())
    return e = "--checkpoint-every needs --checkpoint", false;
  return true;
}

/// The ranks' side of a run under mpirun: MPI started, the communicator
/// made; nothing outside mpirun or without MPI.
struct Ranks {
#ifdef EASYML_HAVE_MPI
  rt::MpiTissueRanks mpi;
  bool started = false;
  Ranks(int &argc, char **&argv, int slow, double factor)
      : started(rt::mpi::underLauncher()) {
    rt::DistributedOptions base;
    base.slowRank = slow;
    base.slowFactor = factor;
    if (started && rt::mpi::start(argc, argv) >= 0)
      mpi = rt::makeMpiTissueRanks(MPI_COMM_WORLD, base);
  }
  ~Ranks() {
    mpi = {};
    rt::mpi::stop();
  }
  const rt::TissueRanks *get() const { return started ? &mpi.ranks : nullptr; }
  int rank() const { return started ? mpi.comm->rank() : 0; }
  int size() const { return started ? mpi.comm->size() : 1; }
#else
  Ranks(int &, char **&, int, double) {}
  const rt::TissueRanks *get() const { return nullptr; }
  int rank() const { return 0; }
  int size() const { return 1; }
#endif
};

} // namespace

int main(int argc, char **argv) {
  rt::CommandLine args(optionSpecs(), /*positionals=*/1);
  std::vector<std::string> errors;
  const char *usage = "CONFIG.json [options]\nRuns a monodomain tissue "
                      "simulation (configuration keys: docs/tissue.md).";
  if (!args.parse(argc, argv, errors)) {
    for (const std::string &e : errors)
      error(e);
    return rt::kExitInvalid;
  }
  if (args.has("help"))
    return args.printHelp("easyml-tissue", usage), 0;
  if (args.positionals().empty())
    return error("no configuration given (usage: easyml-tissue " +
                     std::string(usage).substr(0, 21) + ")",
                 rt::kExitInvalid);
  bool quiet = args.has("quiet");
  rt::TissueSetup setup;
  std::string e;
  if (!rt::readTissueConfig(args.positionals()[0], setup, e))
    return error(e, rt::kExitInvalid);
  if (!checkpointOptions(args, setup, e))
    return error(e, rt::kExitInvalid);
  rt::SlowRank slow;
  if (args.has("mpi-slow"))
    if (rt::Status s = rt::parseSlowRank(args.get("mpi-slow"), slow); !s.ok())
      return error(s.message(), rt::exitStatus(s));
  Ranks ranks(argc, argv, slow.rank, slow.factor);
  bool lead = ranks.rank() == 0;
  if (rt::Status s = rt::checkSlowRank(slow, ranks.size()); !s.ok())
    return lead ? error(s.message(), rt::exitStatus(s)) : rt::exitStatus(s);
  bool bar =
      lead && !args.has("no-progress") && !quiet && isatty(fileno(stderr));
  auto progress = [&](double f) {
    std::fprintf(stderr, "\r[%-50s] %3.0f%%",
                 std::string(size_t(50 * f), '#').c_str(), 100 * f);
    std::fflush(stderr);
  };
  rt::TissueResult result;
  rt::CompilerProcess models(tools::findCompiler(), args.get("cache-dir"));
  rt::Status run = rt::runTissue(
      setup, result, bar ? std::function<void(double)>(progress) : nullptr,
      models, ranks.get());
  if (bar)
    std::fprintf(stderr, "\n");
  if (!run.ok())
    return lead ? error(run.message(), rt::exitStatus(run))
                : rt::exitStatus(run);
  if (!lead)
    return 0;
  if (!quiet)
    print(setup, result);
  if (args.has("report-json"))
    if (rt::Status written =
            rt::writeWholeFile(args.get("report-json"), result.json(setup));
        !written.ok())
      return error(written.message());
  return 0;
}
