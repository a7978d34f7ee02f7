//===- Bench.h - easyml-bench's pieces shared by its two runs --*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// easyml-bench runs a protocol in one process (easyml-bench.cpp) or, under
// mpirun, across MPI ranks (MpiRun.cpp). What both use.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TOOLS_BENCH_BENCH_H
#define EASYML_TOOLS_BENCH_BENCH_H

#include "Options.h"

#include "easyml/Runtime/RunSummary.h"
#include "easyml/Runtime/Simulation.h"

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace easyml::bench {

double now();
/// Prints "easyml-bench: error: <msg>" and exits with `code`. Under MPI
/// (after MPI_Init) the message names the rank and every rank stops.
[[noreturn]] void fail(const std::string &msg, int code = 1);
/// What main() prepared for a run.
struct BenchRun {
  const CommandLine *cl = nullptr;
  rt::ModelHandle *model = nullptr;
  rt::SimulationOptions options;
  long num = 1, traceNo = 0, numstim = 1;
  long nLast = 0, stimLen = 1, outFirst = 0, outEvery = 1, saveStep = -1;
  double dt = 0.01, stimStart = 0, stimCurr = 0, bcl = 0;
  /// --checkpoint-every (ms).
  double checkpointMs = 0;
  uint64_t seed = 1;
  bool quiet = false, cached = false;
  double compileSeconds = 0, loadSeconds = 0;
  /// Under mpirun (the MPI summary and report), and how the writer ranks
  /// are set (" computing, rank 3 writing"), for the first line.
  bool mpi = false;
  std::string writers;
};

/// What a run measured, for the summary and the report (complete on rank
/// 0).
/// Runs the protocol of `run` on `sim`; fills the client's part of
/// `summary`. 0, or the exit status after a message.
int runProtocol(rt::SimulationInterface &sim, const BenchRun &run,
                rt::RunSummary &summary);
/// Warnings, the table for people and the reports (rank 0).
int report(rt::SimulationInterface &sim, const BenchRun &run,
           rt::RunSummary &summary);

bool underMpirun();
/// Under mpirun: MPI_Init (once). Returns this rank.
int mpiStart(int &argc, char **&argv);
/// MPI_Finalize if started.
void mpiStop();
/// Collective under MPI: false on every rank when `ok` is false on one,
/// with that rank's message ("rank N: ..."). True without MPI.
bool mpiAgree(bool ok, std::string &error);
/// The protocol of `run` across the MPI ranks. Returns the exit status.
int runDistributed(const BenchRun &run);

} // namespace easyml::bench

#endif // EASYML_TOOLS_BENCH_BENCH_H
