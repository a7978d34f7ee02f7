//===- BenchOutputs.h - openCARP bench's files of cell 0 -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The files openCARP's bench writes for cell 0 (the .txt table or the
// binaries of --bin/--validate, Trace_<n>.dat), written by the rank that
// holds cell 0 (BenchProtocol.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_BENCHOUTPUTS_H
#define EASYML_RUNTIME_LIB_BENCHOUTPUTS_H

#include "easyml/ABI/ABI.h"
#include "easyml/Runtime/IO/Checkpoint.h"
#include "easyml/Runtime/IO/OutputFile.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

struct BenchProtocol;

/// One of cell 0's files: written under a temporary name, moved into
/// place when the run completes (rt::OutputFile); stdout for the table
/// without --fout.
class CellFile {
public:
  /// A new file, or (`resumeAt` >= 0) the one a killed run left, cut back
  /// to `resumeAt` bytes.
  bool open(const std::string &path, int64_t resumeAt, std::string &error);
  FILE *get() const { return file_ ? file_->get() : stdout; }
  void write(double v) {
    file_->write(&v, sizeof v);
    ++count_;
  }
  bool commit(std::string &error);
  void drop() { file_.reset(); }
  std::string path_;
  std::unique_ptr<OutputFile> file_;
  long count_ = 0;
};

/// Cell 0's output files.
class CellZeroOutputs {
public:
  /// Opens the files the options ask for; false with `error`. With
  /// `resume` (a restart), continues the files a killed run left at the
  /// checkpoint's positions.
  bool open(const easyml_model_desc &d, const BenchProtocol &p,
            std::string &error, const RunPosition *resume = nullptr);
  /// Every file's position, handed to the operating system (a
  /// checkpoint); false with `error`.
  bool positions(RunPosition &position, std::string &error);
  /// The variables to record (Vm, Iion, states, traces as asked).
  const std::vector<std::string> &variables() const { return recorded_; }
  /// The same without opening anything.
  static std::vector<std::string> variablesFor(const easyml_model_desc &d,
                                               const BenchProtocol &p);
  /// One sample: values[slot * stride] is cell 0's value of slot `slot`
  /// (null when nothing is recorded).
  void sample(int64_t step, double dt, const double *values, int64_t stride);
  /// Closes the files (and writes the --validate header).
  bool finish(std::string &error);
  /// Removes every file written.
  void remove();
  double seconds = 0;

private:
  std::vector<CellFile *> files();
  const easyml_model_desc *d_ = nullptr;
  bool binary_ = false, validate_ = false, table_ = false, trace_ = false;
  std::string fout_;
  CellFile tableFile_, traceFile_, tBin_, vmBin_, iionBin_;
  std::string traceHeader_;
  std::vector<CellFile> svBin_;
  std::vector<std::string> recorded_;
  int vmSlot_ = -1, iionSlot_ = -1, stateSlot_ = -1, traceSlot_ = -1;
};

/// The number of steps first + k*every before `end`.
int64_t sampleCount(int64_t first, int64_t every, int64_t end);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_LIB_BENCHOUTPUTS_H
