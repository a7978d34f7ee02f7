//===- BenchProtocol.h - openCARP bench's protocol on a simulation -*- C++
//-*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// openCARP's `bench` as a library call: parameters (--imp-par, per-cell
// tables or a sampled population), a stimulus train, cell 0's files (the
// .txt table or binaries, traces, state files), every cell's Vm and the
// biomarker table, checkpoints and restart, run over a SimulationInterface
// (one process, or the ranks of a DistributedSimulation: every rank calls
// it; the rank holding cell 0 writes cell 0's files). easyml-bench parses
// its options into a BenchProtocol and prints the summary; the steps are
// counted as docs/bench.md says.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_BENCHPROTOCOL_H
#define EASYML_RUNTIME_BENCHPROTOCOL_H

#include "easyml/Runtime/Core/RunSummary.h"
#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <string>

namespace easyml::rt {

class SimulationInterface;

struct BenchProtocol {
  //===--- Parameters -------------------------------------------------===//
  std::string impPar;
  /// Per-cell values from a table, or sampled (samplePopulation; grouped:
  /// similar samples on neighbouring cells).
  std::string paramFile, population;
  bool grouped = true;
  uint64_t seed = 1;

  //===--- Steps and stimulus (openCARP's rounding) -------------------===//
  double dt = 0.01;
  /// The last step (the run ends at step nLast + 1), the stimulus length
  /// in steps, the output grid, the state file's step (-1: none).
  int64_t nLast = 0, stimLen = 1, outFirst = 0, outEvery = 1, saveStep = -1;
  long numstim = 1;
  double stimStart = 1, stimCurr = 60, bcl = 1000;

  //===--- Files ------------------------------------------------------===//
  /// Cell 0: the table on stdout (no fout) or in fout.txt; binaries
  /// (fout.t.bin, ...) with `binary`, every state too with `validate`;
  /// Trace_<traceNo>.dat unless !trace.
  std::string fout = "BENCH_REG";
  bool haveFout = false, binary = false, validate = false, trace = true;
  long traceNo = 0;
  /// openCARP state files read at the start / written at saveStep.
  std::string readIni, saveIni = "singlecell.sv";
  /// Every cell's Vm at every output step (.npy), the biomarker table
  /// (.csv or .npy; "": none) and its calcium state.
  std::string saveVm, biomarkers, caVariable;

  //===--- Checkpoints (Checkpoint.h) ---------------------------------===//
  /// Written every checkpointMs of simulated time ("": none); a restart
  /// continues `restart`, whose settings must equal `settings`.
  std::string checkpoint, restart;
  double checkpointMs = 1000;
  std::string settings;

  //===--- Messages ---------------------------------------------------===//
  /// "TOOL: error: ..." and "TOOL: warning: ..." on stderr (rank 0).
  std::string tool = "easyml-bench";
  bool quiet = false;
  /// The progress bar: always, never, or on a terminal for long runs.
  enum class Progress { Auto, Always, Never } progress = Progress::Auto;
  /// For the first line under MPI (" computing, rank 3 writing").
  bool mpi = false;
  std::string writers;
};

/// Runs `p` on `sim` and fills the client's part of `summary` (times,
/// biomarker summary, writer, checkpoints). On an error (NonFinite for a
/// non-finite value) no output file is left behind; the caller says it.
Status runBenchProtocol(SimulationInterface &sim, const BenchProtocol &p,
                        RunSummary &summary);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_BENCHPROTOCOL_H
