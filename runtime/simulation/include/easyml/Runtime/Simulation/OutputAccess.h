//===- OutputAccess.h - sample matrices and checkpoints ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The files a running simulation writes (SimulationInterface::outputs()):
// sample matrices that every rank writes its columns of, and checkpoints
// of the whole run. Under MPI every method is collective unless it says
// otherwise; the library writes the one-process bytes whatever the rank
// count.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_OUTPUTACCESS_H
#define EASYML_RUNTIME_SIMULATION_OUTPUTACCESS_H

#include "easyml/Runtime/Core/CellStore.h"
#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

struct RunPosition;

/// A (rows x cols) float64 .npy matrix (samples x cells) that every rank
/// writes its columns of, under a temporary name until close().
class MatrixFile {
public:
  virtual ~MatrixFile();
  /// Row `row` of the columns `part` (part.size() values). Not collective:
  /// rows may be buffered until the next flush(). Failed for a row out of
  /// order or a write that failed.
  virtual Status addRow(int64_t row, CellRange part, const double *values) = 0;
  /// Writes what was buffered (the simulation calls it at its
  /// synchronisation points).
  virtual Status flush() = 0;
  /// Renames the file into place when `keep` (on every rank), else removes
  /// it; Failed when rows are missing or the file cannot be completed.
  virtual Status close(bool keep) = 0;
  /// Seconds this rank spent writing or waiting for its writes, and bytes.
  virtual double seconds() const = 0;
  virtual double bytes() const = 0;
  /// The rows written so far, every one handed to the operating system:
  /// what a checkpoint records to continue the file (openMatrix's
  /// `resumeRows`). Not collective.
  virtual Expected<int64_t> checkpoint() = 0;
  /// One line on how the file was written (writer ranks), or "".
  virtual std::string summary() const { return ""; }
  /// The same as JSON members (`"writer": {...}`), or "".
  virtual std::string summaryJson() const { return ""; }
};

class OutputAccess {
public:
  virtual ~OutputAccess();

  /// A (rows x cols) sample matrix at `path`; the simulation flushes it at
  /// every synchronisation point while it is open. `resumeRows` > 0
  /// continues the file a killed run left after that many rows (a
  /// restart from a checkpoint). Failed when it cannot be written.
  virtual Expected<std::shared_ptr<MatrixFile>>
  openMatrix(const std::string &path, int64_t rows, int64_t cols,
             int64_t resumeRows = 0) = 0;
  /// Samples a rank took of the cells it holds, with -inf for the others'
  /// cells (`values`: `steps.size()` rows of `width`): afterwards every
  /// rank has every step any rank took (in order) and every cell's value.
  virtual void gatherSamples(std::vector<int64_t> &steps,
                             std::vector<double> &values, int64_t width) {}
  /// Writes the whole run to `path` (Checkpoint.h), whole or not at all:
  /// every cell, the clock, the closed beats' biomarkers and `position`
  /// (the client's settings and output positions), to which the devices'
  /// speeds and the counters are added. Failed when it cannot be written.
  virtual Status saveCheckpoint(const std::string &path,
                                RunPosition position) = 0;
  /// Continues the run saved in `path`, after initialize() and the same
  /// per-cell parameters and biomarker setting as the run that saved it;
  /// `position` receives its client part. Invalid, naming the file and
  /// what differs (or what is damaged), and nothing changed.
  virtual Status loadCheckpoint(const std::string &path,
                                RunPosition &position) = 0;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_OUTPUTACCESS_H
