//===- PopulationState.h - the saved state of a whole population -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A population's state saved to continue it later (a drug study paced to
// steady state, then more beats or other outputs): every cell's states,
// nodal parameters and the values its kernels keep between steps (an
// adaptive integrator's step size), its per-cell parameter values, and the
// clock. The file:
//
//   EASYML-STATE\n
//   one line of JSON: {"format": 1, "model": NAME, "cells": N,
//     "sv": [state, nodal and hidden names], "externals": [Vm, ...],
//     "params": [per-cell parameter names],
//     "step": S, "beat": B, "beat_start": S0, "dt": DT}
//   N * (len(sv) + len(externals) + len(params)) little-endian doubles:
//     cell by cell, its sv values, externals, then parameter values
//   CHECKSUM <16 hex digits: FNV-1a 64 of every byte before>\n
//
// A checkpoint (Checkpoint.h) is the same file with four optional header
// members: "accumulators": K (each cell's values end with K biomarker
// accumulators), "rows": R (R doubles after the cells: the closed beats'
// biomarker rows), "extra": E (E doubles after the rows: the client's own,
// a tissue's activation times) and "run": 1 (a second line of JSON, the
// run's position).
//
// It is written whole or not at all (OutputFile). Reading checks, before
// any cell changes, the magic, the format version, the model, the cell
// count, the variables, the length and the checksum, and names what
// differs.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_POPULATIONSTATE_H
#define EASYML_RUNTIME_POPULATIONSTATE_H

#include "easyml/ABI/ABI.h"
#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace easyml::rt {

class OutputFile;

/// The contents of a state file.
struct PopulationState {
  static constexpr int kFormat = 1;
  std::string model;
  int64_t cells = 0;
  std::vector<std::string> sv, externals, params;
  int64_t step = 0, beat = 0, beatStart = 0;
  double dt = 0;
  /// Checkpoints: biomarker accumulators per cell, closed beats' rows and
  /// the run's position (one line of JSON; empty in a state file).
  int64_t accumulators = 0;
  std::vector<double> rows;
  std::string run;
  /// Checkpoints: the client's own values (a tissue's activation times),
  /// after the rows.
  std::vector<double> extra;
  size_t width() const {
    return sv.size() + externals.size() + params.size() + accumulators;
  }
  /// cells * width() values, cell by cell: sv, externals, parameters,
  /// accumulators.
  std::vector<double> values;
};

/// The bytes of a state file, and back; `parse` checks the format and the
/// checksum, and names the first thing wrong ("truncated", "checksum
/// mismatch", ...).
std::string serializeState(const PopulationState &s);
/// The magic and header line(s) of `s` (everything before the values).
std::string stateHeader(const PopulationState &s);

/// Writes a state file piece by piece, without holding it in memory, whole
/// or not at all: the header of `header` (whose `values` are not written),
/// then add() the values and rows in file order, then commit().
class StateFileWriter {
public:
  StateFileWriter(const std::string &path, const PopulationState &header);
  ~StateFileWriter();
  bool add(const void *data, size_t bytes);
  /// The checksum line, and the file into place; Failed when it cannot.
  Status commit();

private:
  std::unique_ptr<OutputFile> file_;
  uint64_t hash_ = 1469598103934665603ull;
};

/// The state file `bytes` read back into `out`; Invalid, saying what is
/// wrong (not a state file, truncated, damaged), when it cannot be.
Status parseState(const std::string &bytes, PopulationState &out);
/// A state file written by several writers at once to `tmp`, all of it
/// but its checksum line: reads it back in order, appends the checksum,
/// syncs it and moves it to `path`. Failed (and `tmp` removed) when it
/// cannot.
Status sealStateFile(const std::string &tmp, const std::string &path);

/// The sv rows' names: states (with nodal parameters), then hidden values.
std::vector<std::string> stateRowNames(const easyml_model_desc &d);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_POPULATIONSTATE_H
