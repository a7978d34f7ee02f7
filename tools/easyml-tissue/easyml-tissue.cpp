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
//                 [--cache-dir DIR]
//
// Under mpirun (when built with MPI) the grid is split over the ranks;
// rank 0 prints and writes.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/OutputFile.h"
#include "easyml/Runtime/TissueRun.h"
#ifdef EASYML_HAVE_MPI
#include "easyml/Runtime/TissueMPI.h"
#endif

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

using namespace easyml;

namespace {

const char kUsage[] =
    "usage: easyml-tissue CONFIG.json [--report-json FILE] [--quiet]\n"
    "                     [--no-progress] [--cache-dir DIR]\n"
    "Runs a monodomain tissue simulation (configuration keys: "
    "docs/tissue.md).\n";

int error(const std::string &what, int code = 1) {
  std::fprintf(stderr, "easyml-tissue: error: %s\n", what.c_str());
  return code;
}

struct Args {
  std::string config, reportJson, cacheDir;
  bool quiet = false, progress = true;
};

/// False after a message (exit code in `code`).
bool parse(int argc, char **argv, Args &a, int &code) {
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    std::string *value = s == "--report-json" ? &a.reportJson
                         : s == "--cache-dir" ? &a.cacheDir
                                              : nullptr;
    if (value && i + 1 >= argc)
      return code = error("option '" + s + "' needs a value", 2), false;
    if (value)
      *value = argv[++i];
    else if (s == "-h" || s == "--help")
      return std::fputs(kUsage, stdout), code = 0, false;
    else if (s == "-q" || s == "--quiet")
      a.quiet = true;
    else if (s == "--no-progress")
      a.progress = false;
    else if ((!s.empty() && s[0] == '-') || !a.config.empty())
      return code = error("unknown argument '" + s + "'\n" + kUsage, 2), false;
    else
      a.config = s;
  }
  if (a.config.empty())
    return code = error(std::string("no configuration given\n") + kUsage, 2),
           false;
  return true;
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
  std::printf("%-10s %10.3f s\n%-10s %10.3f s (halo %.3f s)\n%-10s %10.3f "
              "s\n%-10s %10.3f s\n",
              "ionic", t.ionicSeconds, "diffusion", t.diffusionSeconds,
              t.haloSeconds, "output", t.outputSeconds, "total",
              t.wallSeconds);
  std::printf("throughput %.4g point-steps/s\n", t.pointStepsPerSecond());
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

/// The ranks' side of a run under mpirun: MPI started, the communicator
/// made; nothing outside mpirun or without MPI.
struct Ranks {
#ifdef EASYML_HAVE_MPI
  rt::MpiTissueRanks mpi;
  bool started = false;
  Ranks(int &argc, char **&argv) {
    for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
      started = started || std::getenv(v);
    if (!started)
      return;
    MPI_Init(&argc, &argv);
    mpi = rt::makeMpiTissueRanks(MPI_COMM_WORLD);
  }
  ~Ranks() {
    if (started) {
      mpi = {};
      MPI_Finalize();
    }
  }
  const rt::TissueRanks *get() const { return started ? &mpi.ranks : nullptr; }
  int rank() const { return started ? mpi.comm->rank() : 0; }
#else
  Ranks(int &, char **&) {}
  const rt::TissueRanks *get() const { return nullptr; }
  int rank() const { return 0; }
#endif
};

} // namespace

int main(int argc, char **argv) {
  Args args;
  int code = 0;
  if (!parse(argc, argv, args, code))
    return code;
  rt::TissueSetup setup;
  std::string e;
  if (!rt::readTissueConfig(args.config, setup, e))
    return error(e);
  Ranks ranks(argc, argv);
  bool lead = ranks.rank() == 0;
  bool bar = lead && args.progress && !args.quiet && isatty(fileno(stderr));
  auto progress = [&](double f) {
    std::fprintf(stderr, "\r[%-50s] %3.0f%%", std::string(size_t(50 * f), '#').c_str(),
                 100 * f);
    std::fflush(stderr);
  };
  rt::TissueResult result;
  bool ok = rt::runTissue(setup, result, e, bar ? std::function<void(double)>(progress)
                                                : nullptr,
                          args.cacheDir, ranks.get());
  if (bar)
    std::fprintf(stderr, "\n");
  if (!ok)
    return lead ? error(e) : 1;
  if (!lead)
    return 0;
  if (!args.quiet)
    print(setup, result);
  if (!args.reportJson.empty() &&
      !rt::writeWholeFile(args.reportJson, result.json(setup), e))
    return error(e);
  return 0;
}
