//===- Outputs.h - easyml-bench's output files -----------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The files openCARP's bench writes for cell 0 (the .txt table or the
// binaries of --bin/--validate, Trace_<n>.dat) and --save-vm, the Vm of
// every cell at every output step as a (samples x cells) .npy. Shared by
// the one-process run and the MPI run (where the rank holding cell 0
// writes the cell-0 files).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TOOLS_BENCH_OUTPUTS_H
#define EASYML_TOOLS_BENCH_OUTPUTS_H

#include "Options.h"

#include "easyml/Runtime/ABI.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace easyml::bench {

class BinaryWriter {
public:
  bool open(const std::string &path) {
    path_ = path;
    f_ = std::fopen(path.c_str(), "wb");
    return f_ != nullptr;
  }
  void write(double v) {
    std::fwrite(&v, sizeof v, 1, f_);
    ++count_;
  }
  void close() {
    if (f_)
      std::fclose(f_);
    f_ = nullptr;
  }
  ~BinaryWriter() { close(); }
  std::string path_;
  FILE *f_ = nullptr;
  long count_ = 0;
};

/// Cell 0's output files.
class CellZeroOutputs {
public:
  /// Opens the files the options ask for; false with `error`.
  bool open(const easyml_model_desc &d, const CommandLine &cl, long traceNo,
            std::string &error);
  /// The variables to record (Vm, Iion, states, traces as asked).
  const std::vector<std::string> &variables() const { return recorded_; }
  /// The same without opening anything.
  static std::vector<std::string> variablesFor(const easyml_model_desc &d,
                                               const CommandLine &cl);
  /// One sample: values[slot * stride] is cell 0's value of slot `slot`
  /// (null when nothing is recorded).
  void sample(int64_t step, double dt, const double *values, int64_t stride);
  /// Closes the files (and writes the --validate header).
  bool finish(std::string &error);
  /// Closes and removes every file written.
  void remove();
  /// Files written so far.
  std::vector<std::string> written;
  double seconds = 0;

private:
  const easyml_model_desc *d_ = nullptr;
  FILE *table_ = nullptr, *trace_ = nullptr;
  bool binary_ = false, validate_ = false;
  std::string fout_;
  BinaryWriter tBin_, vmBin_, iionBin_;
  std::vector<BinaryWriter> svBin_;
  std::vector<std::string> recorded_;
  int vmSlot_ = -1, iionSlot_ = -1, stateSlot_ = -1, traceSlot_ = -1;
};

/// --save-vm in one process: a (rows x cols) float64 .npy written row by
/// row under `path`.part and renamed into place by close().
int64_t sampleCount(int64_t first, int64_t every, int64_t end);

} // namespace easyml::bench

#endif // EASYML_TOOLS_BENCH_OUTPUTS_H
