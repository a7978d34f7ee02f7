//===- TissueRanks.cpp - a tissue across MPI ranks ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Each rank's cells are the points of tissue of a block of points in point
// order. Its Vm lives in vr_, the block with the halo either side (the
// points within the stencil's reach that other ranks own); a diffusion
// sub-step brings the devices' boundary planes to vr_, swaps halos with
// the other ranks (TissueComm), then runs on the devices over the block;
// with a mask (cell k is not point k) it runs on the host's threads. The
// blocks are the even shares of the cells the ranks start with.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Simulation.h"
#include "easyml/Runtime/SimulationInterface.h"
#include "easyml/Runtime/Tissue.h"
#include "easyml/Runtime/TissueComm.h"

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
  int64_t empty = comm_->sum(cells_.size() == 0 || !sim_.local());
  if (empty > 0)
    return error = std::to_string(empty) + " of " +
                   std::to_string(sim_.ranks()) +
                   " ranks hold no point of the grid: use fewer ranks",
           false;
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
  return true;
}

void Tissue::loadBlockVm() {
  const double *vm = sim_.local()->vm();
  for (int64_t k = cells_.begin; k < cells_.end; ++k)
    vr_[cellPoint_[k] - first_] = vm[k - cells_.begin];
}

/// As diffuseOnRanks, on this rank's threads: Vm of its cells into vr_,
/// per sub-step the halos between ranks and the operator over the block
/// into vo_ (then back into vr_), and the new Vm back into the cells.
bool Tissue::diffuseOnRanksHost(std::string &error) {
  loadBlockVm();
  int64_t own = block_.begin - first_, n = block_.size();
  int64_t halo = haloOf(grid_);
  for (int64_t s = 0; s < report_.substeps; ++s) {
    double t0 = now();
    if (!comm_->exchangeHalo(blocks_, halo, vr_.data(), error))
      return false;
    exchangeSeconds_ += now() - t0;
    applyOperator(vr_.data() + own, vo_.data() + own, c_,
                  s == 0 && hasSource_ ? src_.data() + block_.begin : nullptr,
                  flags_.data() + block_.begin, n);
    std::copy(vo_.begin() + own, vo_.begin() + own + n, vr_.begin() + own);
  }
  double *vm = sim_.local()->vm();
  for (int64_t k = cells_.begin; k < cells_.end; ++k)
    vm[k - cells_.begin] = vr_[cellPoint_[k] - first_];
  return true;
}

/// The sub-steps: Vm of the block from the simulation into vr_, then per
/// sub-step the devices' boundary planes, the halos between ranks and the
/// devices' sub-step; the new Vm back into the simulation.
bool Tissue::diffuseOnRanks(std::string &error) {
  Simulation &local = *sim_.local();
  int64_t own = block_.begin - first_, n = block_.size();
  double *vm = local.vm();
  std::memcpy(vr_.data() + own, vm, n * sizeof(double));
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
    bool ok = local.sendHalos(task, /*always=*/true);
    if (!ok)
      error = local.failure();
    if (!sim_.agree(ok, error))
      return false;
    double t0 = now();
    if (!comm_->exchangeHalo(blocks_, task.halo, vr_.data(), error))
      return false;
    exchangeSeconds_ += now() - t0;
    ok = local.diffuse(task);
    if (!ok)
      error = local.failure();
    if (!sim_.agree(ok, error))
      return false;
  }
  std::memcpy(vm, vr_.data() + own, n * sizeof(double));
  return true;
}

double Tissue::blockDot(const double *a, const double *b) const {
  const uint8_t *flags = flags_.data() + block_.begin;
  double sum = 0;
  for (int64_t i = 0, n = block_.size(); i < n; ++i)
    if (flags[i] & EASYML_DIFFUSION_TISSUE)
      sum += a[i] * b[i];
  return sum;
}

/// As diffuseCrankNicolson, over this rank's block: x is Vm in vr_, the
/// search direction p lives in a buffer with halos like vr_'s.
bool Tissue::diffuseCrankNicolsonOnRanks(std::string &error) {
  loadBlockVm();
  const int64_t own = block_.begin - first_, n = block_.size();
  const int64_t halo = haloOf(grid_);
  const uint8_t *flags = flags_.data() + block_.begin;
  double plus[3], minus[3];
  for (int a = 0; a < 3; ++a) {
    plus[a] = 0.5 * c_[a];
    minus[a] = -0.5 * c_[a];
  }
  auto exchange = [&](double *v) {
    double t0 = now();
    bool ok = comm_->exchangeHalo(blocks_, halo, v, error);
    exchangeSeconds_ += now() - t0;
    return ok;
  };
  double *x = vr_.data() + own;
  std::vector<double> b(n), r(n), q(n), ph(vr_.size(), 0.0);
  if (!exchange(vr_.data()))
    return false;
  applyOperator(x, b.data(), plus,
                hasSource_ ? src_.data() + block_.begin : nullptr, flags, n);
  ConjugateGradient cg;
  // x's halo is current; the search direction's comes before each product.
  cg.apply = [&](const double *in, double *out) {
    if (in != x && !exchange(ph.data()))
      return false;
    applyOperator(in, out, minus, nullptr, flags, n);
    return true;
  };
  cg.dot = [&](const double *u, const double *v) {
    return comm_->total(blockDot(u, v));
  };
  cg.mask = flags;
  cg.maskBit = EASYML_DIFFUSION_TISSUE;
  cg.tolerance = options_.cgTolerance;
  cg.maxIterations = options_.cgMaxIterations;
  if (!solved(cg.solve(n, x, b.data(), r.data(), q.data(), ph.data() + own),
              error))
    return false;
  double *vm = sim_.local()->vm();
  for (int64_t k = cells_.begin; k < cells_.end; ++k)
    vm[k - cells_.begin] = vr_[cellPoint_[k] - first_];
  return true;
}

std::vector<double> Tissue::gather(const std::vector<double> &values) {
  std::vector<double> whole;
  std::string ignored; // the grid's size was checked at initialize()
  comm_->gather(blocks_, values.data(), grid_.points(), whole, ignored);
  return whole;
}
