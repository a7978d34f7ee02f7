//===- TissueRanks.cpp - a tissue across MPI ranks ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Slabs: each rank's cells are the points of tissue of a block of points
// in point order. Its Vm lives in vr_, the block with the halo either side
// (the points within the stencil's reach that other ranks own); a
// diffusion sub-step brings the devices' boundary planes to vr_, swaps
// halos with the other ranks (TissueComm), then runs on the devices over
// the block; with a mask (cell k is not point k) it runs on the host's
// threads. The blocks start as even shares of the cells and follow the
// simulation's moves between ranks (followRanks).
//
// Boxes: each rank's cells are the points of tissue of its box, and vr_
// the box with one point of halo around it (BoxLayout); a sub-step swaps
// faces with the neighbouring boxes' ranks and runs the operator on the
// host's threads, row by row of the box (a row is contiguous in vr_ and
// in the grid, so the flags and the source are the grid's).
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Devices/HostCpus.h"
#include "easyml/Runtime/Simulation/Simulation.h"
#include "easyml/Runtime/Simulation/SimulationInterface.h"
#include "easyml/Runtime/Tissue/Tissue.h"
#include "easyml/Runtime/Tissue/TissueComm.h"

#include "ConjugateGradient.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

using namespace easyml::rt;

namespace {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// Points either side of a point that the operator reads.
int64_t haloOf(const TissueGrid &g) {
  return g.n[2] > 1 ? g.n[0] * g.n[1] : g.n[1] > 1 ? g.n[0] : 1;
}

/// The most points the operator runs over in one call on one thread.
constexpr int64_t kRunPiece = 8192;

} // namespace

TissueComm::~TissueComm() = default;

bool Tissue::initializeRanks(std::string &error) {
  if (!comm_ || comm_->size() != sim_.ranks())
    return error = "a tissue across ranks needs their communicator", false;
  if (grid_.points() > INT32_MAX)
    return error = "a tissue across ranks holds at most 2^31 points (its "
                   "outputs are gathered on rank 0)",
           false;
  // Every rank's cells, and the points from its first cell's to the
  // next rank's first cell's (the grid's ends at either end).
  std::vector<CellRange> cells = comm_->blocks(sim_.owned());
  cells_ = cells[comm_->rank()];
  cellRanges_ = cells;
  ranked_ = true;
  int64_t empty = comm_->sum(cells_.size() == 0 || !sim_.coupling());
  if (empty > 0)
    return error = std::to_string(empty) + " of " +
                   std::to_string(sim_.ranks()) +
                   " ranks hold no point of the grid: use fewer ranks",
           false;
  if (boxes_)
    return initializeBoxes(error);
  layOutSlab();
  return true;
}

void Tissue::layOutSlab() {
  const std::vector<CellRange> &cells = cellRanges_;
  blocks_.clear();
  for (size_t r = 0; r < cells.size(); ++r)
    blocks_.push_back(
        {r == 0 ? 0 : cellPoint_[cells[r].begin],
         r + 1 < cells.size() ? cellPoint_[cells[r + 1].begin]
                              : grid_.points()});
  block_ = blocks_[comm_->rank()];
  int64_t h = haloOf(grid_);
  first_ = std::max<int64_t>(0, block_.begin - h);
  int64_t last = std::min(grid_.points(), block_.end + h);
  // Points outside the tissue hold NaN: no operator reads them.
  vr_.assign(last - first_, identity_ ? 0.0 : NAN);
  vo_.assign(last - first_, identity_ ? 0.0 : NAN);
  cellSlot_.resize(cells_.size());
  for (int64_t k = 0; k < cells_.size(); ++k)
    cellSlot_[k] = cellPoint_[cells_.begin + k] - first_;
  sx_ = 1;
  sy_ = grid_.n[0];
  sz_ = grid_.n[0] * grid_.n[1];
  runs_.clear();
  for (int64_t p = block_.begin; p < block_.end; p += kRunPiece)
    runs_.push_back({p - first_, p, std::min(kRunPiece, block_.end - p),
                     p - block_.begin});
  runsAreCells_ = identity_;
}

bool Tissue::followRanks(double haloBefore, std::string &error) {
  int64_t moves = sim_.figures().rankRepartitions();
  if (!ranked_ || boxes_ || moves == rankMoves_)
    return true;
  rankMoves_ = moves;
  retiredHaloSeconds_ += haloBefore;
  std::vector<CellRange> from = cellRanges_;
  cellRanges_ = comm_->blocks(sim_.owned());
  cells_ = cellRanges_[comm_->rank()];
  if (!comm_->redistribute(from, cellRanges_, lat_, error) ||
      !comm_->redistribute(from, cellRanges_, prev_, error))
    return false;
  layOutSlab();
  // The cells' new simulation keeps Vm where the old one did.
  sim_.coupling()->keepExternalsOnDevices(onDevices_);
  ++report_.rankRepartitions;
  return true;
}

bool Tissue::initializeBoxes(std::string &error) {
  const ProcessGrid &pg = options_.processGrid;
  layout_ = BoxLayout(grid_, boxOf(grid_, pg, comm_->rank()));
  const TissueBox &b = layout_.box;
  cellSlot_.clear();
  runs_.clear();
  bool matches = true;
  for (int64_t z = b.lo[2]; z < b.hi[2]; ++z)
    for (int64_t y = b.lo[1]; y < b.hi[1]; ++y) {
      for (int64_t x = b.lo[0]; x < b.hi[0]; ++x) {
        int64_t p = grid_.index(x, y, z);
        if (!grid_.isTissue(p))
          continue;
        int64_t k = static_cast<int64_t>(cellSlot_.size());
        matches = matches && k < cells_.size() &&
                  cellPoint_[cells_.begin + k] == p;
        cellSlot_.push_back(layout_.slot(x, y, z));
      }
      for (int64_t x = b.lo[0]; x < b.hi[0]; x += kRunPiece)
        runs_.push_back({layout_.slot(x, y, z), grid_.index(x, y, z),
                         std::min(kRunPiece, b.hi[0] - x),
                         static_cast<int64_t>(cellSlot_.size()) -
                             (b.hi[0] - x)});
    }
  matches = matches && static_cast<int64_t>(cellSlot_.size()) == cells_.size();
  if (comm_->sum(!matches) > 0)
    return error = "the simulation's cells are not shared over the ranks as "
                   "process_grid " +
                   pg.str() + " cuts the grid",
           false;
  runsAreCells_ = grid_.mask.empty();
  boxMask_.assign(layout_.size(), 0);
  for (const Run &r : runs_)
    for (int64_t j = 0; j < r.n; ++j)
      boxMask_[r.slot + j] = flags_[r.point + j];
  sx_ = 1;
  sy_ = layout_.ext[0];
  sz_ = layout_.ext[0] * layout_.ext[1];
  vr_.assign(layout_.size(), NAN);
  vo_.assign(layout_.size(), NAN);
  return true;
}

bool Tissue::exchange(double *v, std::string &error) {
  double t0 = now();
  bool ok = boxes_ ? comm_->exchangeFaces(options_.processGrid, layout_, v,
                                          error)
                   : comm_->exchangeHalo(blocks_, haloOf(grid_), v, error);
  exchangeSeconds_ += now() - t0;
  return ok;
}

void Tissue::applyRuns(const double *v, double *out, const double c[3],
                       const double *src) {
  easyml_diffusion_args base{};
  base.sx = sx_;
  base.sy = sy_;
  base.sz = sz_;
  base.cx = c[0];
  base.cy = c[1];
  base.cz = c[2];
  const int64_t n = static_cast<int64_t>(runs_.size());
  // num_threads takes a positive count: the default team where unset.
  const int threads = cpuThreads(options_.threads);
  const PoolBinding bind = PoolBinding::current();
#pragma omp parallel num_threads(threads) if (threads != 1 && n > 1)
  {
    bind.hold();
#pragma omp for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      const Run &r = runs_[i];
      easyml_diffusion_args a = base;
      a.begin = 0;
      a.end = r.n;
      a.v = v + r.slot;
      a.out = out + r.slot;
      a.flags = flags_.data() + r.point;
      a.src = src ? src + r.point : nullptr;
      diffuse_(a);
    }
  }
}

std::vector<double> Tissue::ownValues(const std::vector<double> &byPoint) const {
  std::vector<double> own(cells_.size());
  for (int64_t k = 0; k < cells_.size(); ++k)
    own[k] = byPoint[cellPoint_[cells_.begin + k]];
  return own;
}

std::vector<double> Tissue::gatherCells(const std::vector<double> &own) {
  std::vector<double> cells;
  std::string ignored; // the grid's size was checked at initialize()
  comm_->gather(cellRanges_, own.data(), sim_.numCells(), cells, ignored);
  if (comm_->rank() != 0)
    return {};
  std::vector<double> whole(grid_.points(), NAN);
  for (size_t k = 0; k < cellPoint_.size(); ++k)
    whole[cellPoint_[k]] = cells[k];
  return whole;
}

std::array<int, 3> Tissue::cellOrder() const {
  return boxes_ ? options_.processGrid.p : std::array<int, 3>{{1, 1, 1}};
}

void Tissue::loadBlockVm() {
  const double *vm = sim_.coupling()->vm();
  if (runsAreCells_) {
    for (const Run &r : runs_) {
      std::memcpy(vr_.data() + r.slot, vm, r.n * sizeof(double));
      vm += r.n;
    }
    return;
  }
  for (int64_t k = 0; k < cells_.size(); ++k)
    vr_[cellSlot_[k]] = vm[k];
}


/// As diffuseOnRanks, on this rank's threads: Vm of its cells into vr_,
/// per sub-step the halos between ranks and the operator over the runs
/// into vo_ (which then becomes vr_).
bool Tissue::diffuseOnRanksHost(std::string &error) {
  double t0 = now();
  loadBlockVm();
  stepWork_ += now() - t0;
  for (int64_t s = 0; s < report_.substeps; ++s) {
    if (!exchange(vr_.data(), error))
      return false;
    double t1 = now();
    applyRuns(vr_.data(), vo_.data(), c_,
              s == 0 && hasSource_ ? src_.data() : nullptr);
    stepWork_ += now() - t1;
    // vo_ holds the block's new Vm; its halo is filled before it is read.
    vr_.swap(vo_);
  }
  return true; // updateActivation hands vr_ to the cells
}

/// The sub-steps: Vm of the block from the simulation into vr_, then per
/// sub-step the devices' boundary planes, the halos between ranks and the
/// devices' sub-step (updateActivation hands the new Vm to the cells).
bool Tissue::diffuseOnRanks(std::string &error) {
  TissueCoupling &local = *sim_.coupling();
  int64_t own = block_.begin - first_, n = block_.size();
  double *vm = local.vm();
  double t0 = now();
  std::memcpy(vr_.data() + own, vm, n * sizeof(double));
  stepWork_ += now() - t0;
  DiffusionTask task;
  task.grid.sx = 1;
  task.grid.sy = grid_.n[0];
  task.grid.sz = grid_.n[0] * grid_.n[1];
  task.grid.cx = c_[0];
  task.grid.cy = c_[1];
  task.grid.cz = c_[2];
  task.halo = haloOf(grid_);
  // Cell k of this rank is point block_.begin + k.
  task.flags = flags_.data() + block_.begin;
  task.hostVm = vr_.data() + own;
  task.hostOut = vo_.data() + own;
  task.lo = -own;
  task.hi = static_cast<int64_t>(vr_.size()) - own;
  for (int64_t s = 0; s < report_.substeps; ++s) {
    task.src = s == 0 && hasSource_ ? src_.data() + block_.begin : nullptr;
    task.srcVersion = srcVersion_;
    task.downloadVm = s + 1 == report_.substeps;
    // A device that fails on one rank stops every rank, with its message.
    double t1 = now();
    bool ok = local.sendHalos(task, /*always=*/true);
    stepWork_ += now() - t1;
    if (!ok)
      error = sim_.failure();
    if (!sim_.agree(ok, error))
      return false;
    double t0 = now();
    if (!comm_->exchangeHalo(blocks_, task.halo, vr_.data(), error))
      return false;
    exchangeSeconds_ += now() - t0;
    double t2 = now();
    ok = local.diffuse(task);
    stepWork_ += now() - t2;
    if (!ok)
      error = sim_.failure();
    if (!sim_.agree(ok, error))
      return false;
  }
  return true; // updateActivation hands vr_ to the cells
}


/// As diffuseCrankNicolson, over this rank's block: x is Vm in vr_, the
/// search direction p lives in a buffer with halos like vr_'s.
bool Tissue::diffuseCrankNicolsonOnRanks(std::string &error) {
  loadBlockVm();
  // The conjugate gradient's vectors are n points from `base` in vr_'s
  // layout: a slab's block, or a box's whole buffer with its halo and
  // padding masked out.
  const int64_t base = boxes_ ? 0 : block_.begin - first_;
  const int64_t n = boxes_ ? static_cast<int64_t>(vr_.size()) : block_.size();
  const uint8_t *mask = boxes_ ? boxMask_.data() : flags_.data() + block_.begin;
  double plus[3], minus[3];
  for (int a = 0; a < 3; ++a) {
    plus[a] = 0.5 * c_[a];
    minus[a] = -0.5 * c_[a];
  }
  double *x = vr_.data() + base;
  std::vector<double> b(n), r(n), q(n), ph(vr_.size(), 0.0);
  if (!exchange(vr_.data(), error))
    return false;
  applyRuns(vr_.data(), b.data() - base, plus,
            hasSource_ ? src_.data() : nullptr);
  ConjugateGradient cg;
  // x's halo is current; the search direction's comes before each product.
  cg.apply = [&](const double *in, double *out) {
    if (in != x && !exchange(ph.data(), error))
      return false;
    applyRuns(in - base, out - base, minus, nullptr);
    return true;
  };
  cg.dot = [&](const double *u, const double *v) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i)
      if (mask[i] & EASYML_DIFFUSION_TISSUE)
        sum += u[i] * v[i];
    return comm_->total(sum);
  };
  cg.mask = mask;
  cg.maskBit = EASYML_DIFFUSION_TISSUE;
  cg.tolerance = options_.cgTolerance;
  cg.maxIterations = options_.cgMaxIterations;
  if (!solved(cg.solve(n, x, b.data(), r.data(), q.data(), ph.data() + base),
              error))
    return false;
  return true; // updateActivation hands vr_ to the cells
}

