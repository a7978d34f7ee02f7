//===- Tissue.h - monodomain reaction-diffusion on a grid -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A monodomain simulation on a structured grid (TissueGrid): one cell of
// the ionic model per point of tissue, run by a SimulationInterface, and
// the diffusion of Vm between them. Each step of length dt is split
// (Godunov splitting, first order in dt):
//
//   1. the ionic step: every cell's model advances by dt and Vm by
//      -Iion*dt (the simulation's own step, on its devices);
//   2. the diffusion step: dVm/dt = div(D grad Vm) + Istim/Cm over dt,
//      either explicitly in sub-steps short enough to be stable, or by one
//      Crank-Nicolson step solved with a matrix-free conjugate gradient.
//
// Both use the diffusion operator the compiler generates with every
// variant of every model (easyml_diffusion_args in ABI.h). Explicit
// diffusion on a grid without a mask (cell k is point k) runs on the
// simulation's devices, each over its own cells: Vm stays on a GPU between
// the ionic and diffusion steps, and only halo planes and the new Vm come
// to the host (Simulation::diffuse). With a mask, and for Crank-Nicolson,
// the diffusion step runs on the host's threads. The stimulus
// current enters the diffusion step as a source, and the local activation
// time of a point is when its Vm first crosses a threshold upwards
// (interpolated within the step).
//
// Across MPI ranks (a DistributedSimulation and a TissueComm), the grid is
// cut by a process grid (TissueDecomposition.h). Slabs: each rank holds a
// block of points in point order with the cells of its points of tissue
// (even shares of the cells at first, then as the ranks' balancer moves
// them: followRanks); before every diffusion sub-step the ranks
// exchange the planes of Vm within the stencil's reach of their blocks.
// Boxes: each rank holds a box and the cells of its points of tissue (the
// cells numbered box by box), Vm in a buffer with one point of halo around
// the box, and exchanges faces with the ranks of the neighbouring boxes.
// Boxes stay fixed, and so do slabs under Crank-Nicolson. The explicit
// scheme gives the same bits for any number of ranks, any process grid and
// any moves of the slabs. With a mask, boxes or
// diffusion_on host the explicit diffusion step runs on each rank's host
// threads, and so does Crank-Nicolson.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUE_H
#define EASYML_RUNTIME_TISSUE_H

#include "easyml/ABI/ABI.h"
#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Support/Status.h"
#include "easyml/Runtime/Tissue/TissueDecomposition.h"
#include "easyml/Runtime/Tissue/TissueGrid.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

struct BiomarkerTable;
struct RunPosition;
class SimulationInterface;
class TissueComm;
class RankBlock;
class GridOperator;
class TissueBeats;
struct CgResult;

struct TissueOptions {
  /// The step of the splitting (ms): the ionic models' step.
  double dt = 0.01;
  enum Scheme { Explicit, CrankNicolson } scheme = Explicit;
  /// Explicit diffusion sub-steps per step; 0: the fewest that are stable.
  /// A number that is not stable is an error naming the bound.
  int64_t substeps = 0;
  /// Crank-Nicolson: the conjugate gradient stops when the residual's norm
  /// is below this fraction of the right-hand side's.
  double cgTolerance = 1e-10;
  int64_t cgMaxIterations = 1000;
  /// Local activation time: Vm first above this (mV).
  double activationThreshold = 0;
  /// Explicit diffusion without a mask runs on the simulation's devices
  /// unless this is set: then on the host's threads (as with a mask).
  bool diffusionOnHost = false;
  /// With diffusion on the devices in one process, the GPUs do the
  /// activation pass where Vm is (Vm then stays there between steps)
  /// unless this is set: then the host does it, Vm coming back every step.
  bool activationOnHost = false;
  /// Threads of the diffusion step on the host (0: OpenMP's default).
  int threads = 0;
  /// Per-cell biomarkers (APDs, dV/dt max, ...; docs/biomarkers.md),
  /// measured in the ionic kernels on Vm as each ionic step leaves it. A
  /// beat starts at every onset of a stimulus; finishBeats() closes the
  /// last.
  bool biomarkers = false;
  /// Across ranks: how the grid is cut (automatic: slabs along the
  /// slowest axis; TissueRun chooses boxes where they pay). The
  /// simulation's cells must be numbered and shared as it says
  /// (tissueCellPoints, tissueCellCounts).
  ProcessGrid processGrid;
  /// Across ranks in slabs: the ranks' balancer moves the slabs' bounds
  /// where their ionic steps take unequal times (boxes stay put).
  bool balanceRanks = true;
};

/// Where the time went, and how much was done.
struct TissueReport {
  int64_t steps = 0, points = 0, tissuePoints = 0, substeps = 1;
  int64_t cgIterations = 0;
  /// haloSeconds is part of diffusionSeconds: halo planes brought from
  /// the devices to the host.
  double ionicSeconds = 0, diffusionSeconds = 0, haloSeconds = 0,
         outputSeconds = 0, wallSeconds = 0;
  /// Steps whose ionic step, first diffusion sub-step and (with one
  /// sub-step) activation pass ran in one pass over memory (FusedStep),
  /// and their time (not in the three above).
  int64_t fusedSteps = 0;
  double fusedSeconds = 0;
  /// Points whose activation time a GPU found where Vm is
  /// (DeviceActivation), not the host.
  int64_t activatedOnDevices = 0;
  /// Boxes per axis the ranks hold (1 x 1 x 1 in one process).
  std::array<int, 3> processGrid{{1, 1, 1}};
  /// Times the slabs moved between ranks (the ranks' balancer), and the
  /// points of tissue each rank holds now.
  int64_t rankRepartitions = 0;
  std::vector<int64_t> rankPoints;
  double pointStepsPerSecond() const {
    return wallSeconds > 0 ? double(tissuePoints) * steps / wallSeconds : 0;
  }
  std::string json(int indent = 0) const;
};

class Tissue {
public:
  using DiffuseFn = std::function<void(const easyml_diffusion_args &)>;
  /// Called after every step with the step reached; false stops the run.
  using StepFn = std::function<bool(int64_t step, std::string &error)>;

  /// `sim` holds one cell per tissue point, in point order. Across ranks
  /// `comm` connects them (it must outlive the tissue).
  Tissue(SimulationInterface &sim, TissueGrid grid, Conductivity conductivity,
         TissueOptions options, TissueComm *comm = nullptr);
  /// The simulation must outlive the tissue: its GPUs stop keeping the
  /// tissue's arrays here.
  ~Tissue();
  Tissue(const Tissue &) = delete;
  Tissue &operator=(const Tissue &) = delete;

  /// Checks the set-up (grid, conductivities, cell count, a stable or
  /// semi-implicit scheme, a diffusion operator) and initialises the
  /// simulation for dt; Invalid, saying what is wrong, when it cannot.
  Status initialize();
  void addStimulus(const TissueStimulus &s) { stimuli_.push_back(s); }
  void onStep(StepFn fn) { onStep_.push_back(std::move(fn)); }

  /// Runs to `untilStep`; Failed (a failed device, a step callback that
  /// stopped it) or NonFinite (a value that is no longer finite, with its
  /// point and time) when it stops early. In one process,
  /// while a GPU holds cells and another device is in play, every step
  /// starts from a host copy of every cell (the simulation's recovery,
  /// TissueCoupling::keepStepCopy): a GPU failing in a step, or in what
  /// follows it (a step's callbacks), is dropped and the step runs again
  /// on the others from that copy, with the same bits.
  Status run(int64_t untilStep);
  /// Whether run() stopped on a value that is no longer finite.
  bool stoppedNonFinite() const { return nonFinite_; }
  int64_t step() const { return step_; }
  double time() const { return step_ * options_.dt; }

  /// Brings to the host what steps left on the devices (Vm, and the
  /// activation times and last Vm the GPUs keep: DeviceActivation); vm(),
  /// activationTimes() and savePosition() read the host's copies, so a
  /// caller checks this first. Failed when a device fails to give them
  /// back.
  Status syncHost();
  /// Vm at every grid point (NaN outside the tissue). Across ranks:
  /// collective, the grid on rank 0 and empty elsewhere.
  std::vector<double> vm();
  /// Local activation time of every grid point (ms; NaN before it
  /// activates and outside the tissue). Across ranks as vm().
  std::vector<double> activationTimes();
  /// Closes the running beat (biomarkers on): call once, after the last
  /// run(). Collective across ranks.
  Status finishBeats();
  /// Beats closed so far (biomarkers on).
  int64_t beats() const;
  /// Biomarker `column` (biomarkerColumnName) of beat `beat` at every grid
  /// point (NaN outside the tissue). Across ranks as vm().
  std::vector<double> biomarkerMap(int column, int64_t beat);
  /// What a checkpoint of the simulation (SimulationInterface::
  /// saveCheckpoint) needs besides the cells to continue the tissue: the
  /// step, the beats and, on rank 0, every point's activation time and Vm
  /// after the last diffusion step; the cells are given the grid's Vm.
  /// Collective across ranks.
  void savePosition(RunPosition &position);
  /// Continues from `position`, read with the simulation's checkpoint
  /// (after initialize() and loadCheckpoint); Invalid when it is not a
  /// checkpoint of this grid.
  Status restorePosition(const RunPosition &position);

  /// Points of tissue that have activated (on every rank).
  int64_t activated() const { return activated_; }
  const TissueGrid &grid() const { return grid_; }
  const Conductivity &conductivity() const { return conductivity_; }
  const TissueReport &report() const { return report_; }
  /// The longest stable explicit diffusion step (ms): 1 / (2 sum_a
  /// D_a / h_a^2).
  static double stableStep(const TissueGrid &grid, const Conductivity &c);

private:
  /// initialize() and run(), with the message in `error`.
  bool setUp(std::string &error);
  bool runSteps(int64_t untilStep, std::string &error);
  bool generatedDiffusion(std::string &error);
  /// Vm on the grid: the simulation's own array when every point is
  /// tissue (cell k is point k), else v_ (gathered from the cells). Across
  /// ranks: Vm of the block and its halo, point p at gridVm()[p - first_].
  double *gridVm();
  void gatherVm();
  void scatterVm();
  void stimulusSource(int64_t step);
  bool diffuseExplicit();
  DiffusionTask diffusionTask();
  /// Explicit sub-steps from `first` on on the simulation's devices.
  bool diffuseOnDevices(std::string &error, int64_t first = 0);
  /// The step's work on the cells: the ionic step (`fused` with the first
  /// diffusion sub-step where it was), then diffusion (`t1`: when the
  /// ionic step ended), from and to a step copy where one is kept.
  bool advance(bool &fused, double &t1, std::string &error);
  /// The diffusion step, where the scheme and the process put it (after
  /// a `fused` step, from its second sub-step).
  bool diffusionStep(bool fused, std::string &error);
  /// Runs `op`, and again after every GPU lost in it that the simulation
  /// could go on without from the copy of step_ (recoverStep).
  bool survive(const std::function<bool(std::string &)> &op,
               std::string &error);
  /// Where the simulation keeps step copies now: the activation arrays
  /// the GPUs kept come to the host, and the step starts from a copy.
  bool keepStepStart(std::string &error);
  /// After a step that started from a copy: the copy of the next step.
  bool keepStepEnd(std::string &error);
  /// Every cell went back to the copy of step_: Vm on the host, none of
  /// the GPUs' activation arrays.
  void rolledBack();
  /// The step's ionic wave, fused with its diffusion where the
  /// simulation can (`fused` says whether it did).
  bool ionicStep(bool &fused, std::string &error);
  /// The next step's FusedStep, or null where it cannot be fused.
  FusedStep *fusedStep();
  /// prev_ holds Vm after the last diffusion step again (fused steps do
  /// not keep it).
  void syncPrev();
  /// The error of a Vm no longer finite at `point`; the tissue stopped.
  std::string nonFiniteError(int64_t point, double t);
  bool diffuseCrankNicolson(std::string &error);
  /// A Crank-Nicolson solve's outcome: its iterations counted, an error
  /// where it did not converge.
  bool solved(const CgResult &r, std::string &error);
  /// Activation times and the check that Vm is finite after a step;
  /// across ranks, also the new Vm from vr_ into the cells.
  bool updateActivation(int64_t step, std::string &error);
  /// The same over the cells outside `done` (one process).
  bool updateActivation(int64_t step, const std::vector<CellRange> &done,
                        std::string &error);
  /// After diffusion sub-steps whose last did the activation pass on the
  /// devices (act_): their counts, a point that is not finite, and the
  /// host's pass over the other cells.
  bool finishDeviceActivation(std::string &error);
  /// Vm on the host again where steps left it on the devices (false:
  /// a device failed, sim_.failure() says why).
  bool syncHostVm();
  // Across ranks (TissueRanks.cpp).
  bool initializeRanks(std::string &error);
  /// After a step in which the simulation moved cells between ranks (its
  /// balancer, slabs only): the slabs follow, and the activation times
  /// and last Vm of the cells move with them.
  bool followRanks(double haloBefore, std::string &error);
  /// The sub-steps on the devices (no mask: cell k is point k).
  bool diffuseOnRanks(std::string &error);
  /// The sub-steps on the host's threads over this rank's block (a mask,
  /// or diffusion_on host).
  bool diffuseOnRanksHost(std::string &error);
  /// Crank-Nicolson over this rank's block.
  bool diffuseCrankNicolsonOnRanks(std::string &error);
  /// The order the cells are in, saved with a checkpoint: the process
  /// grid of boxes, 1 x 1 x 1 for point order.
  std::array<int, 3> cellOrder() const;

  SimulationInterface &sim_;
  TissueComm *comm_;
  /// Across ranks (ranked_): this rank's block of the grid; boxes_: cut
  /// into boxes (else slabs).
  bool ranked_ = false, boxes_ = false;
  std::unique_ptr<RankBlock> ranks_;
  /// Halo seconds of the local simulations a move between ranks
  /// replaced.
  double retiredHaloSeconds_ = 0;
  /// The simulation's moves between ranks that the slabs follow.
  int64_t rankMoves_ = 0;
  /// This step's work outside the ionic step on this rank (diffusion,
  /// activation; no waits on other ranks), for the ranks' balancer.
  double stepWork_ = 0;
  TissueGrid grid_;
  Conductivity conductivity_;
  TissueOptions options_;
  std::vector<TissueStimulus> stimuli_;
  std::vector<StepFn> onStep_;
  DiffuseFn diffuse_;
  /// Cell k is grid point cellPoint_[k].
  std::vector<int64_t> cellPoint_;
  std::vector<uint8_t> flags_;
  std::vector<double> v_, out_, tmp_, src_;
  /// Vm after the last step and the activation times: per grid point in
  /// one process, per cell of this rank across ranks.
  std::vector<double> prev_, lat_;
  /// Conjugate gradient work vectors.
  std::vector<double> r_, p_, q_;
  std::vector<std::vector<int64_t>> stimulusPoints_;
  double c_[3] = {0, 0, 0};
  int64_t step_ = 0, activated_ = 0;
  bool nonFinite_ = false;
  bool hasSource_ = false, initialized_ = false, identity_ = false;
  /// Explicit diffusion on the devices (DiffusionTask).
  bool onDevices_ = false;
  /// Steps may be fused (FusedStep): one process, no mask, explicit
  /// diffusion on the devices; prev_ is stale after a fused step.
  bool fusable_ = false, prevStale_ = false;
  /// The GPUs do the activation pass (DeviceActivation, one process,
  /// diffusion on the devices); the last step's, and whether the host's
  /// Vm is stale since.
  bool deviceActivation_ = false, hostVmStale_ = false;
  /// Some step since the GPUs last gave their activation arrays back did
  /// the activation pass on them.
  bool activationOnGpus_ = false;
  /// Steps may start again from a copy of the cells (one process), and
  /// this step did: the host does its activation pass, and it is not
  /// fused.
  bool stepCopies_ = false, stepCopied_ = false;
  DeviceActivation act_;
  bool activatedOnDevices_ = false;
  FusedStep fused_;
  /// Which stimuli were on at the last step, and the version of src_ that
  /// devices hold (it changes when that set changes).
  std::vector<bool> stimulusOn_;
  uint64_t srcVersion_ = 0;
  TissueReport report_;
  /// Biomarker beats (options_.biomarkers).
  std::unique_ptr<TissueBeats> beats_;
  /// The operator on the host's threads, in one process.
  std::unique_ptr<GridOperator> host_;
};

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_TISSUE_H
