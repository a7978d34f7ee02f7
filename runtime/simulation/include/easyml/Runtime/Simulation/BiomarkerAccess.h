//===- BiomarkerAccess.h - per-cell, per-beat biomarkers --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Biomarkers computed during the run, where the cells are (definitions:
// docs/biomarkers.md): the options, the table's columns, and what a client
// does with them (SimulationInterface::biomarkers()). A beat starts at
// every stimulus onset; closeBeat() ends the last one.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATION_BIOMARKERACCESS_H
#define EASYML_RUNTIME_SIMULATION_BIOMARKERACCESS_H

#include "easyml/Runtime/Core/Params.h"
#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace easyml::rt {

/// What the biomarkers look for.
struct BiomarkerOptions {
  /// The state holding intracellular calcium ("": no calcium biomarkers).
  std::string caVariable;
  /// A beat is excited when Vm peaks at least this far above its resting
  /// value (mV).
  double minAmplitude = 40;
  /// Alternans: APD90 changes by more than this (ms) in two beats in a row,
  /// with opposite signs.
  double alternansMs = 5;
};

/// Columns of the biomarker table (one row per cell and closed beat).
enum BiomarkerColumn {
  kBioCell = 0,
  kBioBeat,
  kBioStart,         // time of the beat's first step (ms)
  kBioVRest,         // Vm at the beat's first step (mV)
  kBioVPeak,         // highest Vm (mV)
  kBioDvdtMax,       // largest dVm/dt between two steps (mV/ms)
  kBioApd30,         // APD at 30%, 50%, 90% repolarisation (ms, from the
  kBioApd50,         // time of the largest dVm/dt)
  kBioApd90,         //
  kBioTriangulation, // APD90 - APD30 (ms)
  kBioCaAmplitude,   // highest - lowest calcium
  kBioCaTimeToPeak,  // time of the calcium peak after the upstroke (ms)
  kBioApd90Change,   // APD90 minus the previous beat's (ms)
  kBioFlags,         // enum BiomarkerFlag bits
  kBioNumColumns
};
enum BiomarkerFlag : int {
  kBioNoExcitation = 1,
  kBioNoRepolarisation = 2,
  kBioEad = 4,
  kBioAlternans = 8
};
/// "cell", "beat", "start", "v_rest", ..., "flags".
const char *biomarkerColumnName(int column);

/// Rows of kBioNumColumns values, beat by beat, cells in order.
struct BiomarkerTable {
  std::vector<double> values;
  int64_t rows() const {
    return static_cast<int64_t>(values.size()) / kBioNumColumns;
  }
  const double *row(int64_t r) const {
    return values.data() + r * kBioNumColumns;
  }
};

/// The columns of a biomarker table with parameter columns `params` (by
/// name): the biomarkers' then the parameters' (`indices`: params indices).
/// False with `error` for an unknown name.
bool biomarkerColumns(const ParamSet &ps,
                      const std::vector<std::string> &params,
                      std::vector<std::string> &names,
                      std::vector<int64_t> &indices, std::string &error);
/// The rows of `bt` with, after the biomarkers, value(p, cell) for every
/// params index p in `params` (cell counted from `firstCell`).
std::vector<double> biomarkerRowsWithParams(
    const BiomarkerTable &bt, const std::vector<int64_t> &params,
    int64_t firstCell,
    const std::function<double(int64_t p, int64_t cell)> &value);

/// The last closed beat's biomarkers as percentiles, as JSON ({"beats",
/// "rows", "last_beat": {...}}); `rows`: the table's rows over every beat.
/// Also printed as a table to `out` (null: not printed).
std::string summarizeBiomarkers(const BiomarkerTable &lastBeat, int64_t rows,
                                FILE *out);

/// The biomarkers of a running simulation. Collective under MPI unless
/// said otherwise.
class BiomarkerAccess {
public:
  virtual ~BiomarkerAccess();

  /// Computes biomarkers from now on (a model compiled with
  /// EASYML_FEATURE_BIOMARKERS); Invalid for an unknown calcium state or an
  /// older model, Failed when the devices cannot be had.
  virtual Status enable(const BiomarkerOptions &options) = 0;
  /// Ends the current beat: its biomarkers join the table.
  virtual bool closeBeat() = 0;
  /// This rank's rows of the closed beats (global cells), beat by beat.
  /// Not collective.
  virtual const BiomarkerTable &table() const = 0;
  /// Drops the rows so far (the beat count goes on). Not collective.
  virtual void clear() = 0;
  /// The last closed beat's rows of every rank, on rank 0 (empty
  /// elsewhere), and the number of rows of every beat.
  virtual BiomarkerTable lastBeat(int64_t &totalRows) = 0;
  /// Every rank's rows of the closed beats, beat by beat and cells in
  /// order, on every rank.
  virtual BiomarkerTable all() { return table(); }
  /// The table (every rank's rows, beat by beat, cells in order) with,
  /// after the biomarkers, one column per name in `paramColumns`: each
  /// cell's value of that parameter. CSV or a structured .npy by the
  /// extension (writeTable()). Invalid for an unknown parameter, Failed
  /// when the file cannot be written.
  virtual Status write(const std::string &path,
                       const std::vector<std::string> &paramColumns) = 0;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SIMULATION_BIOMARKERACCESS_H
