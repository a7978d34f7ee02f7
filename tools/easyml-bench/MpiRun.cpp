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
#include "Outputs.h"

#include "easyml/Runtime/Distributed.h"
#include "easyml/Runtime/Population.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace easyml;
using namespace easyml::bench;

namespace {
int gRank = -1;
bool gStarted = false;
} // namespace

namespace easyml::bench {

int mpiRank() { return gRank; }

[[noreturn]] void mpiAbort(int code) {
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

bool underMpirun() {
  for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                        "MPI_LOCALNRANKS"})
    if (std::getenv(v))
      return true;
  return false;
}

int mpiStart(int &argc, char **&argv) {
  if (!gStarted) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    gStarted = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &gRank);
  }
  return gRank;
}

void mpiStop() {
  if (gStarted) {
    MPI_Finalize();
    gStarted = false;
    gRank = -1;
  }
}

bool mpiAgree(bool ok, std::string &error) {
  if (!gStarted)
    return ok;
  return rt::agree(MPI_COMM_WORLD, ok, error);
}

namespace {
/// The computing ranks' side of --mpi-writer.
struct WriterLink {
  int rank = -1;        // the first writer's rank in MPI_COMM_WORLD (-1: none)
  int count = 0;        // writers, the last ranks of MPI_COMM_WORLD
  bool started = false; // rank 0 has opened a file through them
};

/// One simulation over the ranks of `comm`; with a writer rank, --save-vm
/// goes through it.
int runRanks(const BenchRun &run, MPI_Comm comm, WriterLink &writer) {
  const CommandLine &cl = *run.cl;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const easyml_model_desc &d = run.model->desc();
  const long num = run.num;
  const double dt = run.dt;
  std::string error;
  // Every rank takes the same decisions; a problem found on one rank is
  // said once, by rank 0, and every rank stops.
  auto stop = [&](const std::string &msg, int code) {
    if (rank == 0)
      std::fprintf(stderr, "easyml-bench: error: %s\n", msg.c_str());
    return code;
  };
  auto check = [&](bool ok, std::string msg) {
    return rt::agree(comm, ok, msg) ? std::string() : msg;
  };

  rt::DistributedOptions dopts;
  dopts.balance = run.options.balance;
  dopts.probeSteps = run.options.probeSteps;
  if (cl.has("mpi-epoch-steps")) {
    std::vector<std::string> errors;
    dopts.maxEpochSteps = cl.integer("mpi-epoch-steps", errors);
    if (!errors.empty() || dopts.maxEpochSteps < 0)
      return stop("--mpi-epoch-steps must be >= 0, got " +
                      cl.get("mpi-epoch-steps"),
                  1);
  }
  if (cl.has("mpi-slow")) {
    std::string v = cl.get("mpi-slow");
    size_t colon = v.find(':');
    char *end1 = nullptr, *end2 = nullptr;
    long r = colon == std::string::npos
                 ? -1
                 : std::strtol(v.substr(0, colon).c_str(), &end1, 10);
    double f = colon == std::string::npos
                   ? 0
                   : std::strtod(v.c_str() + colon + 1, &end2);
    if (colon == std::string::npos || *end1 || *end2 || r < 0 || r >= size ||
        !(f >= 1))
      return stop("--mpi-slow: expected RANK:FACTOR with RANK < " +
                      std::to_string(size) + " and FACTOR >= 1, got '" + v +
                      "'",
                  1);
    dopts.slowRank = static_cast<int>(r);
    dopts.slowFactor = f;
  }
  // --lb-shares and --lb-memory are per device, inside each rank.
  rt::DistributedSimulation sim(comm, *run.model, num, run.options, dopts);
  if (!sim.valid(error))
    return stop(error, 1);
  if (!run.quiet) {
    std::fprintf(stderr, "Ionic model: %s\nMPI: %d ranks", d.name, size);
    if (writer.count == 1)
      std::fprintf(stderr, " computing, rank %d writing", writer.rank);
    else if (writer.count > 1)
      std::fprintf(stderr, " computing, ranks %d-%d writing", writer.rank,
                   writer.rank + writer.count - 1);
    std::fprintf(stderr, "\n");
  }
  std::vector<std::string> log;
  if (!sim.modifyParams(cl.get("imp-par"), error, &log))
    return stop(error, 1);
  if (!run.quiet)
    for (auto &l : log)
      std::fprintf(stderr, "%s\n", l.c_str());

  // Per-cell parameters: every rank reads or samples the whole population
  // and keeps its block.
  if (cl.has("param-file") && cl.has("population"))
    return stop("give one of --param-file and --population", 1);
  rt::Columns perCell;
  bool ok = true;
  if (cl.has("param-file")) {
    std::string path = cl.get("param-file");
    ok = rt::readParamTable(path, num, perCell, error) &&
         rt::checkParamNames(perCell, d, path, error);
  } else if (cl.has("population")) {
    std::string order = cl.get("population-order");
    if (order != "grouped" && order != "drawn")
      return stop("--population-order: expected grouped or drawn, got '" +
                      order + "'",
                  1);
    ok = rt::samplePopulation(cl.get("population"), run.seed, d, sim.params(),
                              num, perCell, error, order == "grouped");
  }
  for (size_t c = 0; c < perCell.names.size() && ok; ++c)
    if (!sim.setPerCellParam(perCell.names[c], perCell.values[c].data(),
                             error)) {
      error = (cl.has("param-file") ? cl.get("param-file") + ": column " +
                                          std::to_string(c + 1) + ": "
                                    : std::string("--population: ")) +
              error;
      ok = false;
    }
  if (std::string e = check(ok, error); !e.empty())
    return stop(e, 1);
  if (!run.quiet && !perCell.names.empty()) {
    std::string names;
    for (auto &n : perCell.names)
      names += (names.empty() ? "" : ", ") + n;
    std::fprintf(stderr, "Per-cell parameters: %s\n", names.c_str());
  }
  if (rank == 0)
    for (const std::string &w : sim.unusedParamSettings())
      std::fprintf(stderr, "easyml-bench: warning: %s\n", w.c_str());
  if (cl.has("ca-variable") && !cl.has("biomarkers"))
    return stop("--ca-variable applies to --biomarkers", 1);

  if (!sim.initialize(dt))
    return stop(sim.failure(), 1);
  for (const std::string &w : sim.tableWarnings)
    std::fprintf(stderr, "easyml-bench: warning: %s\n", w.c_str());
  if (cl.has("read-ini-file")) {
    if (sim.local()) {
      readStateFile(cl.get("read-ini-file"), *sim.local());
      sim.local()->evaluate(0);
    }
  }
  if (cl.has("biomarkers")) {
    rt::BiomarkerOptions bo;
    bo.caVariable = cl.get("ca-variable");
    if (!sim.enableBiomarkers(bo, error))
      return stop(error, 1);
  }
  if (run.numstim > 0) {
    rt::Stimulus stim;
    stim.start = std::lround(run.stimStart / dt);
    stim.duration = run.stimLen;
    stim.strength = run.stimCurr;
    stim.period = std::lround(run.bcl / dt);
    stim.count = run.numstim;
    sim.addStimulus(stim);
  }

  // Outputs. Cell 0's files on rank 0 (which always holds cell 0).
  CellZeroOutputs outputs;
  ok = rank != 0 || outputs.open(d, cl, run.traceNo, error);
  if (std::string e = check(ok, error); !e.empty())
    return stop(e, 1);
  int64_t samples = sampleCount(run.outFirst, run.outEvery, run.nLast + 1);
  rt::ParallelMatrixFile vmAll;
  if (cl.has("save-vm")) {
    bool opened;
    if (writer.rank >= 0) {
      writer.started = true;
      opened = vmAll.openViaWriter(comm, MPI_COMM_WORLD, writer.rank,
                                   writer.count, cl.get("save-vm"), samples,
                                   num, error);
    } else {
      opened = vmAll.open(comm, cl.get("save-vm"), samples, num, error);
    }
    if (!opened) {
      outputs.remove();
      return stop(error, 1);
    }
  }
  // Every rank records the same variables of the same cells (cell 0, or
  // all with --save-vm), so every rank cuts the same epochs; each takes the
  // samples of the cells it holds.
  std::vector<std::string> recorded = CellZeroOutputs::variablesFor(d, cl);
  int vmSlot = -1;
  if (vmAll.isOpen()) {
    std::string vm = d.external_names[d.vm_index];
    for (size_t i = 0; i < recorded.size(); ++i)
      if (recorded[i] == vm)
        vmSlot = static_cast<int>(i);
    if (vmSlot < 0) {
      vmSlot = static_cast<int>(recorded.size());
      recorded.push_back(vm);
    }
  }
  rt::CellRange recordCells =
      vmAll.isOpen() ? rt::CellRange{0, num} : rt::CellRange{0, 1};
  // Samples of this rank's cells in the current epoch, for --save-vm.
  std::vector<double> epochVm;
  int64_t epochFirst = -1, epochCount = 0;
  rt::CellRange epochPart;
  double outputSeconds = 0;
  auto onSample = [&](int64_t step, rt::CellRange part,
                      const double *values) {
    double o0 = now();
    if (rank == 0 && part.contains(0))
      outputs.sample(step, dt, values, part.size());
    if (vmAll.isOpen()) {
      if (epochCount == 0) {
        epochFirst = (step - run.outFirst) / run.outEvery;
        epochPart = part;
      }
      epochVm.insert(epochVm.end(), values + vmSlot * part.size(),
                     values + (vmSlot + 1) * part.size());
      ++epochCount;
    }
    outputSeconds += now() - o0;
  };
  if (recorded.empty()) {
    // Nothing to record (no Vm, Iion or states): the output steps still
    // print their (zero) lines.
    sim.addEvent(
        run.outFirst,
        [&](rt::DistributedSimulation &, int64_t step, std::string &) {
          if (rank == 0)
            outputs.sample(step, dt, nullptr, 1);
          return true;
        },
        run.outEvery);
  } else {
    ok = sim.record(recorded, recordCells, run.outFirst, run.outEvery,
                    onSample, error);
    if (std::string e = check(ok, error); !e.empty()) {
      outputs.remove();
      vmAll.close(false, error);
      return stop(e, 1);
    }
  }
  // The epoch's Vm rows go out while the next epoch computes.
  if (vmAll.isOpen())
    sim.onEpoch([&](int64_t, std::string &err) {
      int64_t n = epochCount, first = epochFirst;
      // Every rank wrote the same sample steps: agree on them.
      long long mine[2] = {n ? first : -1, n}, mx[2];
      MPI_Allreduce(mine, mx, 2, MPI_LONG_LONG, MPI_MAX, comm);
      if (mx[1] == 0)
        return true;
      double o0 = now();
      bool okw = vmAll.writeRows(mx[0], mx[1],
                                 n ? epochPart : rt::CellRange{},
                                 epochVm.data(), err);
      epochVm.clear();
      epochCount = 0;
      outputSeconds += now() - o0;
      return okw;
    });
  if (run.saveStep >= 0)
    sim.addEvent(run.saveStep,
                 [&](rt::DistributedSimulation &s, int64_t, std::string &) {
                   if (s.rank() == 0 && s.local()) {
                     double o0 = now();
                     writeStateFile(cl.get("save-ini-file"), *s.local());
                     outputSeconds += now() - o0;
                   }
                   return true;
                 });
  bool progress =
      cl.has("progress") ||
      (!cl.has("no-progress") && rank == 0 && isatty(2) &&
       static_cast<double>(run.nLast) * num > 5e7);
  long lastPct = -1;
  if (progress && rank == 0)
    sim.onProgress([&](int64_t step) {
      long pct = static_cast<long>(100.0 * step / (run.nLast + 1));
      if (pct != lastPct) {
        lastPct = pct;
        std::fprintf(stderr, "\r[%-40s] %3ld%%  t = %.1f ms",
                     std::string(pct * 40 / 100, '#').c_str(), pct, step * dt);
      }
    });

  double wallStart = now();
  ok = sim.run(run.nLast + 1);
  if (progress && rank == 0)
    std::fprintf(stderr, "\n");
  auto abandon = [&](const std::string &msg, int code) {
    outputs.remove();
    std::string ignored;
    vmAll.close(false, ignored);
    return stop(msg, code);
  };
  if (!ok)
    return abandon(sim.nonFinite() ? sim.failure() : sim.failure(),
                   sim.nonFinite() ? 3 : 1);
  if (cl.has("biomarkers") && !sim.closeBeat())
    return abandon(sim.failure(), 1);
  double wall = now() - wallStart;

  // Output files: all or nothing.
  ok = rank != 0 || outputs.finish(error);
  if (std::string e = check(ok, error); !e.empty())
    return abandon(e, 1);
  bool viaWriter = vmAll.viaWriter();
  if (vmAll.isOpen() && !vmAll.close(true, error)) {
    outputs.remove();
    return stop(error, 1);
  }
  std::string bioJson;
  if (cl.has("biomarkers")) {
    const rt::BiomarkerTable &bt = sim.biomarkers();
    std::vector<std::string> names;
    for (int c = 0; c < rt::kBioNumColumns; ++c)
      names.push_back(rt::biomarkerColumnName(c));
    std::vector<double> rows = bt.values;
    size_t k = rt::kBioNumColumns;
    if (!perCell.names.empty()) {
      size_t k0 = k;
      k = k0 + perCell.names.size();
      std::vector<double> wide(bt.rows() * k);
      for (int64_t r = 0; r < bt.rows(); ++r) {
        std::copy(bt.row(r), bt.row(r) + k0, wide.begin() + r * k);
        int64_t cell = static_cast<int64_t>(bt.row(r)[rt::kBioCell]);
        for (size_t p = 0; p < perCell.names.size(); ++p)
          wide[r * k + k0 + p] = perCell.values[p][cell];
      }
      rows.swap(wide);
      names.insert(names.end(), perCell.names.begin(), perCell.names.end());
    }
    std::vector<int64_t> keys(bt.rows());
    for (int64_t r = 0; r < bt.rows(); ++r)
      keys[r] = static_cast<int64_t>(bt.row(r)[rt::kBioBeat]);
    double o0 = now();
    if (!rt::writeTableParallel(comm, cl.get("biomarkers"), names, rows, keys,
                                error)) {
      outputs.remove();
      return stop(error, 1);
    }
    outputSeconds += now() - o0;
    // The summary from every rank's rows of the last beat, on rank 0.
    long long lastMine = bt.rows() ? static_cast<long long>(
                                         bt.row(bt.rows() - 1)[rt::kBioBeat])
                                   : -1,
              last = -1;
    MPI_Allreduce(&lastMine, &last, 1, MPI_LONG_LONG, MPI_MAX, comm);
    std::vector<double> mineLast;
    for (int64_t r = 0; r < bt.rows(); ++r)
      if (static_cast<long long>(bt.row(r)[rt::kBioBeat]) == last)
        mineLast.insert(mineLast.end(), bt.row(r),
                        bt.row(r) + rt::kBioNumColumns);
    int n = static_cast<int>(mineLast.size());
    std::vector<int> counts(size), displs(size);
    MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
    rt::BiomarkerTable lastBeat;
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += counts[r];
    }
    lastBeat.values.resize(rank == 0 ? total : 0);
    MPI_Gatherv(mineLast.data(), n, MPI_DOUBLE, lastBeat.values.data(),
                counts.data(), displs.data(), MPI_DOUBLE, 0, comm);
    if (rank == 0)
      bioJson = biomarkerSummary(lastBeat, run.quiet);
  }

  std::vector<int64_t> counters = sim.counters();
  sim.addOutput(outputSeconds + vmAll.waitSeconds(), vmAll.bytesWritten());
  rt::DistributedReport report = sim.report();
  // Compute seconds: the slowest rank's.
  double compute = sim.computeSeconds(), slowest = 0;
  MPI_Allreduce(&compute, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  double outputAll = 0;
  MPI_Allreduce(&outputSeconds, &outputAll, 1, MPI_DOUBLE, MPI_MAX, comm);
  if (rank != 0)
    return 0;
  for (int64_t i = 0; i < d.num_counters; ++i)
    if (counters[i])
      std::fprintf(stderr, "easyml-bench: warning: %s: %lld times\n",
                   d.counter_names[i], static_cast<long long>(counters[i]));
  std::fflush(stdout);
  double cellSteps = static_cast<double>(run.nLast + 1) * num;
  double rate = slowest > 0 ? cellSteps / slowest : 0;
  const char *variant = sim.local() ? sim.local()->variant().name : "?";
  if (!run.quiet) {
    std::fprintf(stderr,
                 "\n%-22s %s\n%-22s %s\n%-22s %ld\n%-22s %ld (dt %g ms, %lld "
                 "epochs)\n%-22s %d\n",
                 "model", d.name, "variant", variant, "cells", num, "steps",
                 run.nLast + 1, dt,
                 static_cast<long long>(report.totalEpochs), "ranks", size);
    auto row = [](const char *name, double s) {
      std::fprintf(stderr, "%-22s %10.4f s\n", name, s);
    };
    if (cl.has("model"))
      row(run.cached ? "compile (cached)" : "compile", run.compileSeconds);
    row("load", run.loadSeconds);
    row("compute", slowest);
    row("output", outputAll);
    row("total", wall + run.loadSeconds + run.compileSeconds);
    report.print(stderr);
    if (viaWriter) {
      const rt::WriterStats &w = vmAll.writerStats();
      if (w.writers > 1)
        std::fprintf(stderr, "writer ranks %d-%d: ", w.rank,
                     w.rank + w.writers - 1);
      else
        std::fprintf(stderr, "writer rank %d: ", w.rank);
      std::fprintf(stderr,
                   "%.3g MB written; the busiest writer %.4f s writing, "
                   "%.4f s waiting for rows\n",
                   w.bytes / 1e6, w.writeSeconds, w.idleSeconds);
    }
  }
  if (cl.has("report-json")) {
    std::string p = cl.get("report-json");
    FILE *f = std::fopen(p.c_str(), "w");
    if (!f)
      return stop("cannot write '" + p + "': " + std::strerror(errno), 1);
    std::fprintf(f,
                 "{\n  \"model\": \"%s\",\n  \"num_states\": %lld,\n  "
                 "\"variant\": \"%s\",\n  \"cells\": %ld,\n  \"steps\": "
                 "%ld,\n  \"dt\": %g,\n  \"ranks\": %d,\n  \"seconds\": "
                 "{\"compile\": %.6f, \"load\": %.6f, \"compute\": %.6f, "
                 "\"output\": %.6f, \"total\": %.6f},\n  "
                 "\"cell_steps_per_second\": %.6e,\n  \"devices\": \"%s\",\n"
                 "  \"warnings\": {",
                 d.name, static_cast<long long>(d.num_states), variant, num,
                 run.nLast + 1, dt, size, run.compileSeconds, run.loadSeconds,
                 slowest, outputAll,
                 wall + run.loadSeconds + run.compileSeconds, rate,
                 run.options.devices.c_str());
    bool first = true;
    for (int64_t i = 0; i < d.num_counters; ++i)
      if (counters[i]) {
        std::fprintf(f, "%s\"%s\": %lld", first ? "" : ", ",
                     d.counter_names[i], static_cast<long long>(counters[i]));
        first = false;
      }
    std::fprintf(f, "}");
    if (!bioJson.empty())
      std::fprintf(f, ",\n  \"biomarkers\": %s", bioJson.c_str());
    if (viaWriter) {
      const rt::WriterStats &w = vmAll.writerStats();
      std::fprintf(f,
                   ",\n  \"writer\": {\"rank\": %d, \"writers\": %d, "
                   "\"bytes\": %.0f, \"write_seconds\": %.6f, "
                   "\"idle_seconds\": %.6f}",
                   w.rank, w.writers, w.bytes, w.writeSeconds,
                   w.idleSeconds);
    }
    std::fprintf(f, ",\n  \"mpi\": %s\n}\n", report.json(2).c_str());
    std::fclose(f);
  }
  return 0;
}
} // namespace

int runDistributed(const BenchRun &run) {
  WriterLink writer;
  if (!run.cl->has("mpi-writer"))
    return runRanks(run, MPI_COMM_WORLD, writer);
  int worldSize = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  std::string v = run.cl->get("mpi-writer");
  char *end = nullptr;
  long k = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end || k < 1 || k >= worldSize) {
    if (gRank == 0)
      std::fprintf(stderr,
                   "easyml-bench: error: --mpi-writer=N needs 1 <= N < the "
                   "%d ranks (the last N write), got '%s'\n",
                   worldSize, v.c_str());
    return 1;
  }
  // The last k ranks write; the others compute, over a communicator of
  // their own (their ranks unchanged).
  writer.count = static_cast<int>(k);
  writer.rank = worldSize - writer.count;
  bool writing = gRank >= writer.rank;
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, writing ? 1 : 0, gRank, &comm);
  int code = 0;
  if (writing) {
    rt::WriterStats stats;
    std::string error;
    // A failure is reported by rank 0 (the writers tell it why).
    code = rt::serveMatrixFile(MPI_COMM_WORLD, comm, writer.rank, stats,
                               error)
               ? 0
               : 1;
  } else {
    code = runRanks(run, comm, writer);
    if (gRank == 0 && !writer.started)
      rt::releaseMatrixWriter(MPI_COMM_WORLD, writer.rank, writer.count);
  }
  MPI_Comm_free(&comm);
  return code;
}

} // namespace easyml::bench
