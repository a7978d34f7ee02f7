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

#include "easyml/Runtime/Apps/ExitStatus.h"
#include "easyml/Runtime/Apps/BenchProtocol.h"
#include "easyml/Runtime/Apps/CommandLine.h"
#include "easyml/Runtime/Core/RunSummary.h"
#include "easyml/Runtime/Simulation/Simulation.h"

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace easyml::bench {

using rt::ArgKind;
using rt::CommandLine;
using rt::OptionEffect;
using rt::OptionSpec;

double now();
/// Prints "easyml-bench: error: <msg>" and exits with `code` (an
/// rt::ExitStatus; by default what was given is wrong). Under MPI (after
/// MPI_Init) the message names the rank and every rank stops.
[[noreturn]] void fail(const std::string &msg, int code = rt::kExitInvalid);
/// Prints `error` (on rank 0 of a run across ranks) and returns its exit
/// status.
int said(const rt::Status &error, int rank = 0);
/// What main() prepared for a run: the model, the devices, the cell
/// count and the protocol the runtime runs (BenchProtocol.h).
struct BenchRun {
  const CommandLine *cl = nullptr;
  rt::ModelHandle *model = nullptr;
  rt::SimulationOptions options;
  long num = 1;
  rt::BenchProtocol protocol;
  bool cached = false;
  double compileSeconds = 0, loadSeconds = 0;
  /// Under mpirun (the MPI summary and report).
  bool mpi = false;
};

/// Warnings, the table for people and the reports (rank 0).
int report(rt::SimulationInterface &sim, const BenchRun &run,
           rt::RunSummary &summary);

/// The protocol of `run` across the MPI ranks. Returns the exit status.
int runDistributed(const BenchRun &run);

} // namespace easyml::bench

#endif // EASYML_TOOLS_BENCH_BENCH_H
