//===- SimulationInterface.h - one simulation, one or many ranks *- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What a client (easyml-bench, the Python package, the C API) drives: N
// cells of one model, run by one process on the devices of its node
// (`Simulation`) or by the ranks of an MPI communicator, each holding a
// block of the cells (`DistributedSimulation`, EasyMLRuntimeMPI). A client
// written against this interface runs a protocol once, whatever the rank
// count: one process is the one-rank case.
//
// Under MPI every method is collective (every rank calls it, in the same
// order, with the same arguments) unless it says otherwise; results are the
// same on every rank. Cells are numbered globally. The library owns data
// movement, reductions and output files: biomarker tables and sample
// matrices are written with the one-process bytes whatever the rank count.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SIMULATIONINTERFACE_H
#define EASYML_RUNTIME_SIMULATIONINTERFACE_H

#include "easyml/ABI/ABI.h"
#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Core/Params.h"
#include "easyml/Runtime/Core/RunSummary.h"
#include "easyml/Runtime/Core/Timeline.h"
#include "easyml/Runtime/Simulation/TissueCoupling.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

class Simulation;
struct BiomarkerOptions;
struct RunPosition;
struct Columns;
struct BiomarkerTable;

/// A (rows x cols) float64 .npy matrix (samples x cells) that every rank
/// writes its columns of, under a temporary name until close().
class MatrixFile {
public:
  virtual ~MatrixFile();
  /// Row `row` of the columns `part` (part.size() values). Not collective:
  /// rows may be buffered until the next flush().
  virtual bool addRow(int64_t row, CellRange part, const double *values,
                      std::string &error) = 0;
  /// Writes what was buffered (the simulation calls it at its
  /// synchronisation points).
  virtual bool flush(std::string &error) = 0;
  /// Renames the file into place when `ok` (on every rank), else removes
  /// it.
  virtual bool close(bool ok, std::string &error) = 0;
  /// Seconds this rank spent writing or waiting for its writes, and bytes.
  virtual double seconds() const = 0;
  virtual double bytes() const = 0;
  /// The rows written so far, every one handed to the operating system:
  /// what a checkpoint records to continue the file (openMatrix's
  /// `resumeRows`). Not collective.
  virtual bool checkpoint(int64_t &rows, std::string &error) = 0;
  /// One line on how the file was written (writer ranks), or "".
  virtual std::string summary() const { return ""; }
  /// The same as JSON members (`"writer": {...}`), or "".
  virtual std::string summaryJson() const { return ""; }
};

class SimulationInterface {
public:
  /// An event: called on every rank when the run reaches `step`, before the
  /// wave (epoch) that starts there. False stops the run (with `error`).
  using EventFn = std::function<bool(SimulationInterface &sim, int64_t step,
                                     std::string &error)>;
  /// A recorded sample of the cells `part` this rank holds:
  /// values[slot * part.size() + c].
  using PartSampleFn =
      std::function<void(int64_t step, CellRange part, const double *values)>;

  virtual ~SimulationInterface();

  //===--- What and where (not collective) --------------------------===//
  virtual const easyml_model_desc &desc() const = 0;
  virtual int64_t numCells() const = 0;
  /// This process's rank and the number of ranks (0 and 1 in one process).
  virtual int rank() const { return 0; }
  virtual int ranks() const { return 1; }
  /// The cells this rank holds now (global numbering).
  virtual CellRange owned() const = 0;
  /// How many times the cells have moved between ranks (the same count on
  /// every rank; 0 in one process). A move replaces local().
  virtual int64_t rankRepartitions() const { return 0; }
  /// Seconds this rank computed for the run outside run() (a tissue's
  /// diffusion), counted with its next steps when the ranks balance.
  virtual void addWorkSeconds(double seconds) {}
  /// The one-process simulation of those cells (null when it holds none):
  /// per-cell access (states, state files) goes through it.
  virtual Simulation *local() = 0;
  /// The diffusion coupling of this rank's cells (null when it holds
  /// none): what a tissue needs beyond this interface. Asked for again
  /// after cells moved between ranks.
  virtual TissueCoupling *coupling() = 0;
  /// The devices in use on this rank ("CPU, 2 threads, ...").
  virtual std::string deviceDescription() const = 0;
  /// The CPU pool's (or first device's) variant.
  virtual std::string variantName() const = 0;

  //===--- Status -----------------------------------------------------===//
  /// False on every rank when the devices cannot be had on one.
  virtual bool valid(std::string &error) = 0;
  /// Empty while all is well; after a failure, what failed where (the same
  /// text on every rank). Not collective.
  virtual const std::string &failure() const = 0;
  /// Where a value first became non-finite (global cell), or null. Not
  /// collective.
  virtual const NonFinite *nonFinite() const = 0;
  /// False on every rank when `ok` is false on one, with that rank's
  /// message ("rank N: ..." across ranks).
  virtual bool agree(bool ok, std::string &error) = 0;

  //===--- Parameters (not collective: every rank makes the same change) ==//
  virtual const ParamSet &paramSet() const = 0;
  const std::vector<double> &params() const { return paramSet().values(); }
  virtual bool setParam(const std::string &name, double value,
                        std::string &error) = 0;
  virtual bool modifyParams(const std::string &mods, std::string &error,
                            std::vector<std::string> *log = nullptr) = 0;
  /// `values`: numCells() values, the same on every rank.
  virtual bool setPerCellParam(const std::string &name, const double *values,
                               std::string &error) = 0;
  virtual std::vector<std::string> unusedParamSettings() const = 0;
  /// A population: per-cell values of the parameters `spec` names, sampled
  /// (samplePopulation; `grouped`: similar samples on neighbouring cells)
  /// and set; `taken` holds them. Every rank draws the same.
  bool samplePerCellParams(const std::string &spec, uint64_t seed,
                           bool grouped, Columns &taken, std::string &error);
  /// Per-cell values read from a table (readParamTable: CSV or structured
  /// .npy, a column per parameter, a row per cell) and set.
  bool readPerCellParams(const std::string &path, Columns &taken,
                         std::string &error);

  //===--- The protocol -----------------------------------------------===//
  virtual bool initialize(double dt) = 0;
  virtual double dt() const = 0;
  /// Lookup table entries that are NaN (initialize()).
  virtual std::vector<std::string> tableWarnings() const = 0;
  /// Not collective (every rank adds the same).
  virtual void addStimulus(const Stimulus &stimulus) = 0;
  /// Records `variables` of the global cells `cells` at steps first +
  /// k*every; each rank gets the samples of the cells it holds. Not
  /// collective; false with `error` for an unknown variable or bad range.
  virtual bool record(const std::vector<std::string> &variables,
                      CellRange cells, int64_t first, int64_t every,
                      PartSampleFn fn, std::string &error) = 0;
  virtual void stopRecording() = 0;
  /// Not collective (every rank adds the same). Returns its id.
  virtual int addEvent(int64_t step, EventFn fn, int64_t every = 0) = 0;
  /// Called on every rank once all have reached `step` (after each wave in
  /// one process, each epoch across ranks): collective output goes here.
  /// Not collective.
  virtual void onSync(std::function<bool(int64_t step, std::string &error)>
                          fn) = 0;
  /// Called on rank 0 with the step reached. Not collective.
  virtual void onProgress(std::function<void(int64_t step)> fn) = 0;
  virtual bool enableBiomarkers(const BiomarkerOptions &options,
                                std::string &error) = 0;
  /// Ends the current beat: its biomarkers join the table.
  virtual bool closeBeat() = 0;
  /// This rank's rows of the closed beats (global cells), beat by beat.
  /// Not collective.
  virtual const BiomarkerTable &biomarkers() const = 0;
  /// Runs to `untilStep`. False when a device failed, a value became
  /// non-finite or an event stopped the run (failure(), nonFinite()).
  virtual bool run(int64_t untilStep) = 0;
  bool runUntil(double ms);
  virtual int64_t step() const = 0;
  /// Warning counters summed over the ranks.
  virtual std::vector<int64_t> counters() = 0;
  /// A model compiled with `--adaptive` (each cell's own step): the
  /// sub-steps its cells have taken since they started, tried and
  /// accepted or not, summed over the cells and ranks; -1 for a model
  /// stepped by dt alone.
  virtual double adaptiveSteps() = 0;

  //===--- Outputs ----------------------------------------------------===//
  /// A (rows x cols) sample matrix at `path`; the simulation flushes it at
  /// every synchronisation point while it is open. `resumeRows` > 0
  /// continues the file a killed run left after that many rows (a
  /// restart from a checkpoint).
  virtual std::shared_ptr<MatrixFile>
  openMatrix(const std::string &path, int64_t rows, int64_t cols,
             std::string &error, int64_t resumeRows = 0) = 0;
  /// The biomarker table (every rank's rows, beat by beat, cells in order)
  /// with, after the biomarkers, one column per name in `paramColumns`:
  /// each cell's value of that parameter. CSV or a structured .npy by the
  /// extension (writeTable()).
  virtual bool writeBiomarkers(const std::string &path,
                               const std::vector<std::string> &paramColumns,
                               std::string &error) = 0;
  /// The last closed beat's rows of every rank, on rank 0 (empty
  /// elsewhere), and the number of rows of every beat.
  virtual BiomarkerTable lastBeat(int64_t &totalRows) = 0;
  /// Every rank's rows of the closed beats, beat by beat and cells in
  /// order, on every rank.
  virtual BiomarkerTable allBiomarkers();
  /// Samples a rank took of the cells it holds, with -inf for the others'
  /// cells (`values`: `steps.size()` rows of `width`): afterwards every
  /// rank has every step any rank took (in order) and every cell's value.
  virtual void gatherSamples(std::vector<int64_t> &steps,
                             std::vector<double> &values, int64_t width) {}

  //===--- Checkpoints (Checkpoint.h) ---------------------------------===//
  /// Writes the whole run to `path`, whole or not at all: every cell, the
  /// clock, the closed beats' biomarkers and `position` (the client's
  /// settings and output positions), to which the devices' speeds and the
  /// counters are added.
  virtual bool saveCheckpoint(const std::string &path, RunPosition position,
                              std::string &error) = 0;
  /// Continues the run saved in `path`, after initialize() and the same
  /// per-cell parameters and biomarker setting as the run that saved it;
  /// `position` receives its client part. False with `error` naming the
  /// file and what differs, and nothing changed.
  virtual bool loadCheckpoint(const std::string &path, RunPosition &position,
                              std::string &error) = 0;

  //===--- What happened ----------------------------------------------===//
  /// Compute seconds: the slowest rank's.
  virtual double computeSeconds() = 0;
  /// The largest of every rank's `seconds`.
  virtual double slowest(double seconds) { return seconds; }
  /// Adds output seconds and bytes to this rank's figures. Not collective.
  virtual void addOutput(double seconds, double bytes) = 0;
  /// The run's report (complete on rank 0): waves per device in one
  /// process; epochs, ranks and their devices across ranks.
  virtual std::string reportJson(int indent = 0) = 0;
  /// The same as a table for people, on rank 0.
  virtual void printReport(FILE *out) = 0;
  /// Fills the simulation's part of `summary` (model, variant, devices,
  /// warnings, the report; complete on rank 0).
  virtual void summarize(RunSummary &summary) = 0;
};

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_SIMULATIONINTERFACE_H
