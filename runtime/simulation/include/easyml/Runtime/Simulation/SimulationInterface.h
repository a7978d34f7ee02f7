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
#include "easyml/Runtime/Core/Timeline.h"
#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Simulation/BiomarkerAccess.h"
#include "easyml/Runtime/Simulation/CellValues.h"
#include "easyml/Runtime/Simulation/OutputAccess.h"
#include "easyml/Runtime/Simulation/ParameterAccess.h"
#include "easyml/Runtime/Simulation/RunFigures.h"
#include "easyml/Runtime/Simulation/TissueCoupling.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

struct Columns;

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
  /// The values of the cells this rank holds (numbered from owned().begin
  /// as 0), or null when it holds none. Asked for again after cells moved
  /// between ranks.
  virtual CellValues *cellValues() = 0;
  /// The diffusion coupling of this rank's cells (null when it holds
  /// none): what a tissue needs beyond this interface. Asked for again
  /// after cells moved between ranks.
  virtual TissueCoupling *coupling() = 0;
  /// The devices in use on this rank ("CPU, 2 threads, ...").
  virtual std::string deviceDescription() const = 0;
  /// The CPU pool's (or first device's) variant.
  virtual std::string variantName() const = 0;

  //===--- Status -----------------------------------------------------===//
  /// Failed on every rank when the devices cannot be had on one.
  virtual Status valid() = 0;
  /// Empty while all is well; after a failure, what failed where (the same
  /// text on every rank). Not collective.
  virtual const std::string &failure() const = 0;
  /// Where a value first became non-finite (global cell), or null. Not
  /// collective.
  virtual const NonFinite *nonFinite() const = 0;
  /// An error on every rank when `mine` is one on some rank, with that
  /// rank's message ("rank N: ..." across ranks; its kind where it is this
  /// rank's, else Failed).
  virtual Status agree(Status mine) = 0;

  //===--- The parts --------------------------------------------------===//
  /// Model parameters, shared or per cell (not collective: every rank
  /// makes the same change).
  virtual ParameterAccess &parameters() = 0;
  const ParameterAccess &parameters() const {
    return const_cast<SimulationInterface *>(this)->parameters();
  }
  /// Biomarkers per cell and beat.
  virtual BiomarkerAccess &biomarkers() = 0;
  /// Sample matrices and checkpoints.
  virtual OutputAccess &outputs() = 0;
  /// Warnings, timings, speeds, the report.
  virtual RunFigures &figures() = 0;

  /// A population: per-cell values of the parameters `spec` names, sampled
  /// (samplePopulation; `grouped`: similar samples on neighbouring cells)
  /// and set; `taken` holds them. Every rank draws the same. Invalid for
  /// a bad specification or a parameter that cannot vary per cell.
  Status samplePerCellParams(const std::string &spec, uint64_t seed,
                             bool grouped, Columns &taken);
  /// Per-cell values read from a table (readParamTable: CSV or structured
  /// .npy, a column per parameter, a row per cell) and set; Invalid for a
  /// missing or bad table.
  Status readPerCellParams(const std::string &path, Columns &taken);

  //===--- The protocol -----------------------------------------------===//
  /// Builds the lookup tables for `dt` (after parameter changes), sets the
  /// initial state of every cell and computes Iion once; step() becomes 0.
  virtual bool initialize(double dt) = 0;
  virtual double dt() const = 0;
  /// Not collective (every rank adds the same).
  virtual void addStimulus(const Stimulus &stimulus) = 0;
  /// Records `variables` (state, external and trace names; externals also
  /// by simulator name such as "Vm") of the global cells `cells` at steps
  /// first + k*every; each rank gets the samples of the cells it holds,
  /// in order, after the wave that took them. One recording at a time.
  /// Not collective; Invalid for an unknown variable or a bad range.
  virtual Status record(const std::vector<std::string> &variables,
                        CellRange cells, int64_t first, int64_t every,
                        PartSampleFn fn) = 0;
  virtual void stopRecording() = 0;
  /// Registers `fn` for step `step` (and every `every` steps after when
  /// every > 0). Not collective (every rank adds the same). Returns its
  /// id.
  virtual int addEvent(int64_t step, EventFn fn, int64_t every = 0) = 0;
  /// Called on every rank once all have reached `step` (after each wave in
  /// one process, each epoch across ranks): collective output goes here.
  /// Not collective.
  virtual void onSync(std::function<bool(int64_t step, std::string &error)>
                          fn) = 0;
  /// Called on rank 0 with the step reached. Not collective.
  virtual void onProgress(std::function<void(int64_t step)> fn) = 0;
  /// Runs from step() to `untilStep`: the state is then at untilStep.
  /// Events at untilStep fire at the start of the next run. False when a
  /// device failed, a value became non-finite or an event stopped the run
  /// (failure(), nonFinite()).
  virtual bool run(int64_t untilStep) = 0;
  bool runUntil(double ms);
  /// The step the state is at.
  virtual int64_t step() const = 0;
};

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_SIMULATIONINTERFACE_H
