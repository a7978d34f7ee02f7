//===- easyml-bench.cpp - openCARP-bench-compatible single-cell driver ----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Runs a compiled EasyML model like openCARP's `bench`: same options, time
// stepping, stimulus arithmetic and output files (see docs/bench.md). Adds
// --model (compile on the fly, cached), --variant, --threads, a progress bar,
// a final report (--report-json) and --pointwise (evaluate Iion at the states
// of a reference CSV).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include "FindCompiler.h"
#include "easyml/Runtime/IO/Checkpoint.h"
#include "easyml/Runtime/Apps/CompilerProcess.h"
#include "easyml/Runtime/Devices/GpuDriver.h"
#include "easyml/Runtime/Apps/ModelInfo.h"
#ifdef EASYML_HAVE_MPI
#include "easyml/Runtime/MPI/MpiSession.h"
#endif
#include "easyml/ABI/Occupancy.h"
#include "easyml/Runtime/Apps/Pointwise.h"
#include "easyml/Runtime/Core/Population.h"
#include "easyml/Runtime/Simulation/Simulation.h"
#include "easyml/Support/VersionInfo.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace easyml;
using namespace easyml::bench;

namespace easyml::bench {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void fail(const std::string &msg, int code) {
#ifdef EASYML_HAVE_MPI
  if (rt::mpi::rank() >= 0) {
    std::fprintf(stderr, "easyml-bench: error: rank %d: %s\n", rt::mpi::rank(),
                 msg.c_str());
    rt::mpi::abort(code);
  }
#endif
  std::fprintf(stderr, "easyml-bench: error: %s\n", msg.c_str());
  std::exit(code);
}

int said(const rt::Status &error, int rank) {
  if (!error.ok() && rank == 0)
    std::fprintf(stderr, "easyml-bench: error: %s\n", error.message().c_str());
  return rt::exitStatus(error);
}

#ifdef EASYML_HAVE_MPI
bool mpiAgree(bool ok, std::string &error) { return rt::mpi::agree(ok, error); }
void mpiStop() { rt::mpi::stop(); }
#else
bool mpiAgree(bool ok, std::string &) { return ok; }
void mpiStop() {}
int runDistributed(const BenchRun &) {
  fail("this easyml-bench was built without MPI", rt::kExitFailed);
}
#endif

/// The model, its parameters, populations and biomarkers.
std::vector<OptionSpec> modelOptions() {
  using K = ArgKind;
  return {
      {"load-module", 0, K::Required,
       "compiled model (.so from easyml-compile --emit=shared)", ""},
      {"model", 'M', K::Required,
       "EasyML model file, compiled on the fly and cached", ""},
      {"imp", 'I', K::Required,
       "built-in model name (not available: use --load-module or --model)", ""},
      {"imp-par", 'p', K::Required,
       "parameter modifiers: name=v,name*v,name+10%,flags=EPI", ""},
      {"imp-info", 0, K::None, "print parameters, states, flags and exit", ""},
      {"param-file", 0, K::Required,
       "per-cell parameter values: CSV with a header of parameter names and "
       "one row per cell, or a structured .npy (one float64 field per "
       "parameter)",
       ""},
      {"population", 0, K::Required,
       "sample per-cell parameters: 'GNa*lognormal(1,0.2),GKr*uniform(0.5,"
       "1.5)' (NAME*DIST scales the value, NAME=DIST sets it; uniform(lo,hi), "
       "normal(mean,sd), lognormal(median,sigma))",
       ""},
      {"seed", 0, K::Required, "random seed of --population", "1"},
      {"population-order", 0, K::Required,
       "which cell gets which sample of --population: grouped (similar "
       "samples on neighbouring cells, which share a SIMD vector or GPU "
       "warp) or drawn (cell c gets the c-th draw)",
       "grouped"},
      {"biomarkers", 0, K::Required,
       "compute per-cell, per-beat biomarkers during the run and write them "
       "to this file (.csv or .npy); a beat starts at each stimulus",
       ""},
      {"ca-variable", 0, K::Required,
       "with --biomarkers: the intracellular calcium state (Ca transient "
       "amplitude and time to peak)",
       ""},
      {"list-devices", 0, K::None,
       "list the GPUs the CUDA driver and HIP report (with a model: the "
       "code object each would load) and exit",
       ""},
  };
}

/// openCARP bench's protocol and its files.
std::vector<OptionSpec> protocolOptions() {
  using K = ArgKind;
  return {
      {"numstim", 0, K::Required, "number of stimuli (<= 0: none)", "1"},
      {"stim-start", 'i', K::Required, "first stimulus time (ms)", "1.0"},
      {"stim-dur", 'T', K::Required, "stimulus duration (ms)", "1.0"},
      {"stim-curr", 'c', K::Required,
       "stimulus strength (uA/cm^2, positive depolarises)", "60.0"},
      {"bcl", 'b', K::Required, "basic cycle length (ms)", "1000"},
      {"duration", 'a', K::Required, "simulated time (ms)", ""},
      {"past-stim", 0, K::Required,
       "time simulated after the last stimulus without --duration", "1000"},
      {"dt", 'D', K::Required, "time step (ms)", "0.01"},
      {"dt-out", 'o', K::Required, "output interval (ms)", "1.0"},
      {"start-out", 0, K::Required, "first output time (ms)", "0"},
      {"num", 'n', K::Required, "number of cells", "1"},
      {"fout", 'O', K::Optional, "output base name", "BENCH_REG"},
      {"bin", 'B', K::None, "binary output (with --fout)", ""},
      {"validate", 'v', K::None,
       "dump all state variables, Vm, Iion and t as binaries", ""},
      {"no-trace", 0, K::None, "do not write traces", ""},
      {"trace-no", 0, K::Required, "trace file number (Trace_<n>.dat)", "0"},
      {"save-ini-time", 'S', K::Required,
       "write a state file at this time (ms)", ""},
      {"save-ini-file", 'F', K::Required,
       "state file written at --save-ini-time", "singlecell.sv"},
      {"read-ini-file", 'R', K::Required, "start from this state file", ""},
      {"save-vm", 0, K::Required,
       "write Vm of every cell at every output step to this .npy (float64, "
       "samples x cells); under MPI every rank writes its cells with MPI-IO "
       "while the next epoch computes",
       ""},
  };
}

/// How the run goes (none changes the result): checkpoints, MPI,
/// devices, balancing, dimensioning.
std::vector<OptionSpec> runOptions() {
  using K = ArgKind;
  constexpr OptionEffect HowItRuns = OptionEffect::HowItRuns;
  return {
      {"checkpoint", 0, K::Required,
       "write the whole run to this file every --checkpoint-every ms (a "
       "killed run continues with --restart, its output files "
       "byte-identical)",
       "", HowItRuns},
      {"checkpoint-every", 0, K::Required,
       "with --checkpoint: simulated time between checkpoints (ms)", "1000", HowItRuns},
      {"restart", 0, K::Required,
       "continue the run saved in this checkpoint (give the same options; "
       "devices, threads and balancing may differ)",
       "", HowItRuns},
      {"mpi-slow", 0, K::Required,
       "under MPI, for testing the balance across ranks: RANK:FACTOR makes "
       "that rank take FACTOR times as long",
       "", HowItRuns},
      {"mpi-writer", 0, K::Optional,
       "under MPI: the last N ranks (default 1) compute nothing and write "
       "--save-vm, each receiving the rows of a contiguous group of ranks "
       "while the next epoch computes (instead of collective MPI-IO from "
       "every rank)",
       "1", HowItRuns},
      {"mpi-epoch-steps", 0, K::Required,
       "under MPI: at most this many steps between two exchanges of the "
       "ranks' times (0: 20 steps, doubling while the split holds, up to "
       "1280)",
       "0", HowItRuns},
      {"devices", 0, K::Required,
       "devices to run on: cpu, gpu:0,2, gpu:all, cuda:1, rocm:all, "
       "cpu+gpu:all, or auto (dimensioning); cpu:VARIANT@THREADS gives a "
       "CPU pool its own variant and threads (several side by side: "
       "cpu:baseline@1+cpu:cpu-simd@1); cells are split by measured speed",
       "", HowItRuns},
      {"variant", 0, K::Required,
       "compiled variant: the CPU pool's (baseline, cpu-simd; default "
       "cpu-simd when compiled), or cuda/rocm to run on GPU --device alone",
       "", HowItRuns},
      {"threads", 0, K::Required, "CPU threads (0: OpenMP default)", "0", HowItRuns},
      {"device", 0, K::Required,
       "with --variant cuda|rocm: the GPU (see --list-devices)", "0", HowItRuns},
      {"max-wave-steps", 0, K::Required,
       "at most this many steps per kernel call (1: one-step kernels, as "
       "for a simulator that owns Vm; 0: whole waves)",
       "0", HowItRuns},
      {"lb-threshold", 0, K::Required,
       "re-split the cells when device times differ by more than this "
       "fraction (0.1 = 10%)",
       "0.1", HowItRuns},
      {"lb-min-window", 0, K::Required,
       "accumulate waves until the slowest device has spent this many ms "
       "before judging the balance",
       "20", HowItRuns},
      {"lb-shares", 0, K::Required,
       "initial shares of the cells per device, in device order (a "
       "remembered ratio: '1,9'); default: even until measured",
       "", HowItRuns},
      {"no-lb", 0, K::None, "keep the initial split (no repartitioning)", "", HowItRuns},
      {"no-lb-sharing", 0, K::None,
       "two CPU pools side by side split every wave in advance by the "
       "balancer, instead of sharing it (each computing chunks from its end "
       "of their cells until they meet)",
       "", HowItRuns},
      {"lb-periodic", 0, K::None,
       "under a periodic stimulus, learn each device's speed per phase of "
       "the cycle and split each wave by its phase's speeds (from the second "
       "cycle on)",
       "", HowItRuns},
      {"no-recovery", 0, K::None,
       "stop when a GPU fails, instead of recomputing its cells on the "
       "other devices and going on without it (which keeps a host copy of "
       "the GPUs' cells after every wave)",
       "", HowItRuns},
      {"lb-memory", 0, K::Required,
       "remember the devices' measured speeds in this file: the next run "
       "of the same model starts from the split they give",
       "", HowItRuns},
      {"dim-window", 0, K::Required,
       "with --devices auto: steps per measurement window", "300", HowItRuns},
      {"dim-tolerance", 0, K::Required,
       "with --devices auto: fewer GPUs are chosen while within this "
       "fraction of the best",
       "0.05", HowItRuns},
  };
}

/// Compiling --model, reports, the pointwise check, help.
std::vector<OptionSpec> toolOptions() {
  using K = ArgKind;
  constexpr OptionEffect HowItRuns = OptionEffect::HowItRuns;
  return {
      {"no-tables", 0, K::None,
       "with --model: evaluate lookup-table expressions directly", ""},
      {"compile-args", 0, K::Required,
       "with --model: more easyml-compile options (e.g. '--adaptive "
       "--cvode-rtol 1e-5': each cell takes its own error-controlled steps)",
       ""},
      {"cache-dir", 0, K::Required,
       "where --model keeps compiled models ($EASYML_CACHE_DIR, "
       "~/.cache/easyml)",
       "", HowItRuns},
      {"report-json", 0, K::Required,
       "write the final report as JSON to this file", "", HowItRuns},
      {"progress", 0, K::None, "always show the progress bar", "", HowItRuns},
      {"no-progress", 0, K::None, "never show the progress bar", "", HowItRuns},
      {"quiet", 'q', K::None, "no banner and no report on stderr", "", HowItRuns},
      {"pointwise", 0, K::Required,
       "evaluate Iion at every row of a reference CSV and compare", ""},
      {"pointwise-write", 0, K::Required,
       "with --pointwise: write the table with the model's Iion", ""},
      {"pointwise-step", 0, K::Required,
       "with --pointwise: advance every row's state by one step (dt, Vm "
       "held) and write the new states to this CSV",
       ""},
      {"help", 'h', K::None, "print this help", ""},
      {"version", 0, K::None, "print the version", ""},
  };
}

std::vector<OptionSpec> optionSpecs() {
  std::vector<OptionSpec> all;
  for (auto group : {modelOptions, protocolOptions, runOptions, toolOptions})
    for (OptionSpec &o : group())
      all.push_back(std::move(o));
  return all;
}

//===----------------------------------------------------------------------===//
// Pointwise validation
//===----------------------------------------------------------------------===//

} // namespace easyml::bench

namespace {

/// The command line's numbers, every bad one reported.
struct Numbers {
  long numstim = 1, num = 1, traceNo = 0, threads = 0, device = 0,
       maxWaveSteps = 0, dimWindow = 1, seed = 1;
  double stimStart = 0, stimDur = 0, stimCurr = 0, bcl = 0, pastStim = 0,
         dt = 0.01, dtOut = 1, startOut = 0, lbThreshold = 0, lbMinWindow = 0,
         dimTolerance = 0, duration = 0, saveIniTime = 0, checkpointMs = 0;
  std::vector<double> shares;
};

bool readNumbers(const CommandLine &cl, Numbers &n,
                 std::vector<std::string> &errors) {
  n.numstim = cl.integer("numstim", errors);
  n.stimStart = cl.number("stim-start", errors);
  n.stimDur = cl.number("stim-dur", errors);
  n.stimCurr = cl.number("stim-curr", errors);
  n.bcl = cl.number("bcl", errors);
  n.pastStim = cl.number("past-stim", errors);
  n.dt = cl.number("dt", errors);
  n.dtOut = cl.number("dt-out", errors);
  n.startOut = cl.number("start-out", errors);
  n.num = cl.integer("num", errors);
  n.traceNo = cl.integer("trace-no", errors);
  n.threads = cl.integer("threads", errors);
  n.device = cl.integer("device", errors);
  n.maxWaveSteps = cl.integer("max-wave-steps", errors);
  n.lbThreshold = cl.number("lb-threshold", errors);
  n.lbMinWindow = cl.number("lb-min-window", errors);
  n.dimWindow = cl.integer("dim-window", errors);
  n.seed = cl.integer("seed", errors);
  n.dimTolerance = cl.number("dim-tolerance", errors);
  n.checkpointMs = cl.number("checkpoint-every", errors);
  if (cl.has("duration"))
    n.duration = cl.number("duration", errors);
  if (cl.has("save-ini-time"))
    n.saveIniTime = cl.number("save-ini-time", errors);
  if (!errors.empty())
    return false;
  auto need = [&](bool ok, const char *option, const char *what) {
    if (!ok)
      errors.push_back(std::string("--") + option + " must be " + what +
                       ", got " + cl.get(option));
  };
  need(n.dt > 0, "dt", "positive");
  need(n.dtOut > 0, "dt-out", "positive");
  need(n.num >= 1, "num", "at least 1");
  need(n.threads >= 0, "threads", ">= 0");
  need(n.device >= 0, "device", ">= 0");
  need(n.maxWaveSteps >= 0, "max-wave-steps", ">= 0");
  need(n.stimDur >= 0, "stim-dur", ">= 0");
  need(n.numstim <= 1 || n.bcl > 0, "bcl", "positive");
  need(!cl.has("duration") || n.duration >= 0, "duration", ">= 0");
  need(n.startOut >= 0, "start-out", ">= 0");
  need(n.lbThreshold >= 0, "lb-threshold", ">= 0");
  need(n.lbMinWindow >= 0, "lb-min-window", ">= 0");
  need(n.dimWindow >= 1, "dim-window", "at least 1");
  need(n.checkpointMs > 0, "checkpoint-every", "positive");
  need(n.dimTolerance >= 0 && n.dimTolerance < 1, "dim-tolerance", "in [0, 1)");
  n.shares = cl.numbers("lb-shares", errors);
  return errors.empty();
}

/// Loads --load-module, or compiles --model through easyml-compile's cache
/// (under MPI rank 0 first, the others then hit the cache). Null after a
/// message (said once), with `status` the exit status.
std::unique_ptr<rt::ModelHandle> loadModel(const CommandLine &cl, int rank,
                                           BenchRun &run, int &status) {
  for (const char *option : {"no-tables", "compile-args"})
    if (cl.has(option) && !cl.has("model"))
      fail(std::string("--") + option +
           " applies when compiling: use it with --model");
  std::vector<std::string> flags;
  if (cl.has("no-tables"))
    flags.push_back("--no-tables");
  std::istringstream words(cl.get("compile-args"));
  for (std::string w; words >> w;)
    flags.push_back(w);
  std::unique_ptr<rt::ModelHandle> model;
  rt::ModelOrigin compiled;
  rt::CompilerProcess models(tools::findCompiler(), cl.get("cache-dir"));
  std::string error, ignored;
  double t0 = now();
  for (int turn = 0; turn < 2; ++turn) {
    if ((rank == 0) == (turn == 0)) {
      auto loaded = cl.has("model")
                        ? models.load({cl.get("model"), flags}, &compiled)
                        : rt::ModelHandle::load(cl.get("load-module"));
      if (loaded.ok())
        model = loaded.take();
      else
        error = loaded.status().message();
      status = rt::exitStatus(loaded.status());
    }
    if (turn == 0)
      mpiAgree(true, ignored);
  }
  // A model that one rank cannot load stops every rank, with one message.
  if (!mpiAgree(model != nullptr, error)) {
    if (rank == 0)
      std::fprintf(stderr, "easyml-bench: error: %s\n", error.c_str());
    return nullptr;
  }
  run.cached = compiled.cached;
  run.compileSeconds = compiled.seconds;
  run.loadSeconds = now() - t0 - compiled.seconds;
  return model;
}

/// --imp-info, --list-devices and --pointwise answer about the model and
/// exit: their exit status, or -1 for a run.
int answerQuestions(const CommandLine &cl, const rt::ModelHandle &model,
                    double dt) {
  const easyml_model_desc &d = model.desc();
  std::string error;
  if (cl.has("imp-info")) {
    // The values --imp-par gives, derived ones recomputed.
    rt::ParamSet ps(d);
    if (rt::Status changed = ps.modify(cl.get("imp-par")); !changed.ok())
      fail(changed.message());
    rt::describeModel(stdout, ps);
    return 0;
  }
  if (cl.has("list-devices"))
    return rt::describeDevices(stdout, &d), 0;
  if (!cl.has("pointwise"))
    return -1;
  rt::PointwiseOptions po;
  po.reference = cl.get("pointwise");
  po.variant = cl.get("variant");
  po.impPar = cl.get("imp-par");
  po.dt = dt;
  po.writePath = cl.get("pointwise-write");
  po.stepPath = cl.get("pointwise-step");
  std::string json;
  bool ok = rt::pointwiseCheck(model, po, json, error);
  if (!json.empty())
    std::printf("%s\n", json.c_str());
  if (!ok)
    fail(error);
  return 0;
}

/// The devices (--devices, or as before it one device from --variant) and
/// how the runtime uses them.
rt::SimulationOptions deviceOptions(const CommandLine &cl,
                                    const rt::ModelHandle &model,
                                    const Numbers &n) {
  rt::SimulationOptions options;
  std::string variant = cl.get("variant");
  const easyml_variant *v = model.variant(variant);
  bool gpuVariant = v && rt::backendOf(*v) != rt::Backend::Cpu;
  if (cl.has("devices")) {
    if (gpuVariant)
      fail("--variant " + variant +
           " names a GPU variant: with --devices the GPUs are chosen there "
           "(--devices " +
           variant + ":" + cl.get("device") +
           "), and --variant is the CPU pool's");
    options.devices = rt::DeviceSpec(cl.get("devices"));
    if (!options.devices.valid())
      fail(options.devices.error);
    options.cpuVariant = variant;
  } else if (gpuVariant) {
    options.devices = rt::DeviceSpec::gpu(rt::backendOf(*v), n.device);
  } else {
    options.devices = "cpu";
    options.cpuVariant = variant;
  }
  options.threads = static_cast<int>(n.threads);
  options.maxWaveSteps = n.maxWaveSteps;
  options.balance.threshold = n.lbThreshold;
  options.balance.minWindowSeconds = n.lbMinWindow / 1e3;
  options.balance.fixed = cl.has("no-lb");
  options.balance.periodic = cl.has("lb-periodic");
  options.balance.share = !cl.has("no-lb-sharing");
  options.recover = !cl.has("no-recovery");
  options.shares = n.shares;
  std::string error;
  if (cl.has("lb-memory") &&
      !rt::readSpeedMemory(cl.get("lb-memory"), model.desc().name,
                           options.speeds, error))
    fail(error);
  if (cl.has("restart") && !cl.has("lb-memory")) {
    // The checkpointed run's measured speeds give the first split.
    rt::PopulationState state;
    rt::RunPosition position;
    if (rt::readCheckpoint(cl.get("restart"), state, position).ok())
      options.speeds = position.speeds;
  }
  options.dimension.windowSteps = n.dimWindow;
  options.dimension.tolerance = n.dimTolerance;
  return options;
}


/// The protocol the runtime runs: steps as openCARP's bench rounds them,
/// parameters, files and checkpoints.
void protocolOf(const CommandLine &cl, const Numbers &n, BenchRun &run) {
  rt::BenchProtocol &p = run.protocol;
  double duration = n.duration;
  if (!cl.has("duration"))
    duration = cl.has("numstim") && n.numstim <= 0
                   ? static_cast<float>(n.stimStart + n.pastStim)
                   : static_cast<float>(n.stimStart + n.bcl * (n.numstim - 1) +
                                        n.pastStim);
  p.dt = n.dt;
  p.nLast = std::lround(duration / n.dt);
  p.stimLen = std::max(1L, std::lround(n.stimDur / n.dt));
  p.outFirst = std::lround(n.startOut / n.dt);
  p.outEvery = std::max(1L, std::lround(n.dtOut / n.dt));
  p.saveStep = cl.has("save-ini-time") ? std::lround(n.saveIniTime / n.dt) : -1;
  p.numstim = n.numstim;
  p.stimStart = n.stimStart;
  p.stimCurr = n.stimCurr;
  p.bcl = n.bcl;
  p.impPar = cl.get("imp-par");
  p.paramFile = cl.get("param-file");
  p.population = cl.get("population");
  std::string order = cl.get("population-order");
  if (order != "grouped" && order != "drawn")
    fail("--population-order: expected grouped or drawn, got '" + order + "'");
  p.grouped = order == "grouped";
  p.seed = static_cast<uint64_t>(n.seed);
  p.fout = cl.get("fout");
  p.haveFout = cl.has("fout");
  p.binary = cl.has("bin");
  p.validate = cl.has("validate");
  p.trace = !cl.has("no-trace");
  p.traceNo = n.traceNo;
  p.readIni = cl.get("read-ini-file");
  p.saveIni = cl.get("save-ini-file");
  p.saveVm = cl.get("save-vm");
  p.biomarkers = cl.get("biomarkers");
  p.caVariable = cl.get("ca-variable");
  p.checkpoint = cl.get("checkpoint");
  p.restart = cl.get("restart");
  p.checkpointMs = n.checkpointMs;
  p.settings = cl.resultSettings();
  p.quiet = cl.has("quiet");
  p.progress = cl.has("progress")      ? rt::BenchProtocol::Progress::Always
               : cl.has("no-progress") ? rt::BenchProtocol::Progress::Never
                                       : rt::BenchProtocol::Progress::Auto;
  run.num = n.num;
}

} // namespace

int main(int argc, char **argv) {
  CommandLine cl(optionSpecs());
  std::vector<std::string> errors;
  if (!cl.parse(argc, argv, errors)) {
    for (auto &e : errors)
      std::fprintf(stderr, "easyml-bench: error: %s\n", e.c_str());
    return rt::kExitInvalid;
  }
  if (cl.has("help")) {
    cl.printHelp("easyml-bench",
                 "(--load-module lib.so | --model file.model) [options]");
    return 0;
  }
  if (cl.has("version")) {
    std::printf("easyml-bench %s (git %s)\n", EASYML_VERSION, EASYML_GIT_HASH);
    return 0;
  }
  if (cl.has("imp"))
    fail("no built-in model library: give a compiled model with "
         "--load-module lib.so or a model file with --model file.model");
  if (cl.has("list-devices") && !cl.has("load-module") && !cl.has("model"))
    return rt::describeDevices(stdout, nullptr), 0;
  if (cl.has("load-module") == cl.has("model"))
    fail("give exactly one of --load-module lib.so and --model file.model");
  Numbers n;
  if (!readNumbers(cl, n, errors)) {
    for (auto &e : errors)
      std::fprintf(stderr, "easyml-bench: error: %s\n", e.c_str());
    return rt::kExitInvalid;
  }
  BenchRun run;
  run.cl = &cl;
  // Under mpirun: one simulation across the ranks.
#ifdef EASYML_HAVE_MPI
  run.mpi = rt::mpi::underLauncher();
#endif
  if (!run.mpi && cl.has("mpi-writer"))
    fail("--mpi-writer applies under mpirun (one process writes its own "
         "files)");
#ifdef EASYML_HAVE_MPI
  int rank = run.mpi ? rt::mpi::start(argc, argv) : 0;
#else
  int rank = 0;
#endif
  protocolOf(cl, n, run);
  run.protocol.mpi = run.mpi;
  if (rank != 0)
    run.protocol.quiet = true;
  int loadStatus = rt::kExitInvalid; // a rank that did not load, told to stop
  std::unique_ptr<rt::ModelHandle> model = loadModel(cl, rank, run, loadStatus);
  if (!model)
    return mpiStop(),
           loadStatus == rt::kExitSuccess ? rt::kExitInvalid : loadStatus;
  if (run.mpi && rank != 0 &&
      (cl.has("imp-info") || cl.has("list-devices") || cl.has("pointwise")))
    return mpiStop(), 0; // rank 0 answers
  if (int status = answerQuestions(cl, *model, n.dt); status >= 0)
    return status;
  run.model = model.get();
  run.options = deviceOptions(cl, *model, n);
  if (run.mpi) {
    int status = runDistributed(run);
    mpiStop();
    return status;
  }
  rt::Simulation sim(*model, run.num, run.options);
  rt::RunSummary summary;
  if (rt::Status s = rt::runBenchProtocol(sim, run.protocol, summary); !s.ok())
    return said(s);
  return report(sim, run, summary);
}
