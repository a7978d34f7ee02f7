//===- Checkpoint.h - a whole run saved to continue it ----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A checkpoint is a state file (PopulationState.h, the same format and
// checks) that holds everything a killed run needs to go on as if it had
// not stopped:
//
//   - every cell as the runtime moves it between devices and ranks
//     (Simulation::packCells): states, nodal and hidden values, externals,
//     per-cell parameter rows and, with biomarkers, the accumulators of the
//     beat in progress and the last beats' APD90;
//   - the clock (step, beat, start of the beat) and the closed beats'
//     biomarker rows;
//   - a second header line, the run: the client's settings (a restart with
//     other settings is refused, naming the first difference), how far each
//     output file got (bytes, or rows of a sample matrix), the devices'
//     measured speeds (the restarted run's first split) and the warning
//     counters.
//
// Output files are written under temporary names until complete
// (OutputFile), so a killed run leaves PATH.tmp: a restart cuts each back
// to the checkpoint's position and continues it. Every output file is then
// byte-identical to an uninterrupted run's.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_CHECKPOINT_H
#define EASYML_RUNTIME_CHECKPOINT_H

#include "easyml/Runtime/IO/PopulationState.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace easyml::rt {

/// What a checkpoint holds besides the cells.
struct RunPosition {
  /// The client's settings, "name=value" per line: a restart must give the
  /// same.
  std::string settings;
  /// Output file -> bytes written (or rows, for a sample matrix).
  std::vector<std::pair<std::string, int64_t>> files;
  /// Measured device speeds (cell-steps/s by device id).
  std::map<std::string, double> speeds;
  /// Warning counters (descriptor order).
  std::vector<int64_t> counters;
  /// The run had reached its end and closed its last beat: written just
  /// before its output files were moved into place, so a run killed while
  /// it did that is completed by a restart.
  bool complete = false;
  /// The client's own scalars (a tissue's step and beats) and values (its
  /// activation times per point; the file's extra values, after the
  /// rows). Across ranks, rank 0's are written.
  std::map<std::string, double> client;
  std::vector<double> data;

  /// One line of JSON, and back (Invalid for a damaged line).
  std::string json() const;
  Status parse(const std::string &line);
  /// The position of output `name`, or -1.
  int64_t file(const std::string &name) const;
  /// "" when `other` has the same settings, else the first difference
  /// ("--bcl: 500 here, 1000 in the checkpoint").
  std::string settingsDiffer(const std::string &other) const;
};

/// Reads checkpoint `path` without a simulation (the restarted run's
/// devices follow its speeds): the state and the run position. Invalid,
/// naming the file and what is wrong (not a checkpoint, damaged, truncated,
/// another format version), when it cannot.
Status readCheckpoint(const std::string &path, PopulationState &state,
                      RunPosition &position);

/// Reads only the run position of checkpoint `path` (its first lines: no
/// cell is read and the checksum is not checked; position.data stays
/// empty). For what a run must know before it restarts, such as the cell
/// order of a tissue's boxes. Invalid as readCheckpoint says.
Status readCheckpointPosition(const std::string &path, RunPosition &position);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_CHECKPOINT_H
