//===- TissueRanks.cpp - a tissue across MPI ranks ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Each rank's cells are a block of points in point order (cell k is point
// k: no mask). Its Vm lives in vr_, the block with the halo either side
// (the points within the stencil's reach that other ranks own); a
// diffusion sub-step brings the devices' boundary planes to vr_, swaps
// halos with the other ranks (TissueComm), then runs on the devices over
// the block. The blocks are the even shares the ranks start with.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Simulation.h"
#include "easyml/Runtime/SimulationInterface.h"
#include "easyml/Runtime/Tissue.h"
#include "easyml/Runtime/TissueComm.h"

#include <algorithm>
#include <chrono>
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
  if (!identity_)
    return error = "a tissue across ranks needs a grid without a mask",
           false;
  if (options_.scheme != TissueOptions::Explicit || options_.diffusionOnHost)
    return error = "a tissue across ranks needs explicit diffusion on the "
                   "devices (crank-nicolson and diffusion_on host run in "
                   "one process)",
           false;
  if (grid_.points() > INT32_MAX)
    return error = "a tissue across ranks holds at most 2^31 points (its "
                   "outputs are gathered on rank 0)",
           false;
  blocks_ = comm_->blocks(sim_.owned());
  block_ = blocks_[comm_->rank()];
  int64_t empty = comm_->sum(block_.size() == 0 || !sim_.local());
  if (empty > 0)
    return error = std::to_string(empty) + " of " +
                   std::to_string(sim_.ranks()) +
                   " ranks hold no point of the grid: use fewer ranks",
           false;
  int64_t h = haloOf(grid_);
  first_ = std::max<int64_t>(0, block_.begin - h);
  int64_t last = std::min(grid_.points(), block_.end + h);
  vr_.assign(last - first_, 0.0);
  vo_.assign(last - first_, 0.0);
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

std::vector<double> Tissue::gather(const std::vector<double> &values) {
  std::vector<double> whole;
  std::string ignored; // the grid's size was checked at initialize()
  comm_->gather(blocks_, values.data(), grid_.points(), whole, ignored);
  return whole;
}
