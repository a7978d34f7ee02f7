//===- TissueRanks.cpp - a tissue across MPI ranks ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Each rank holds a block of the grid (RankBlock: slabs or boxes). A
// diffusion sub-step on the devices brings their boundary planes to the
// block's buffer, swaps halos with the other ranks (TissueComm), then runs
// on the devices over the block; with a mask (cell k is not point k) or
// boxes it runs on the host's threads. Slabs follow the simulation's moves
// between ranks (followRanks).
//
//===----------------------------------------------------------------------===//

#include "ConjugateGradient.h"
#include "RankBlock.h"

#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Simulation/SimulationInterface.h"
#include "easyml/Runtime/Support/Clock.h"
#include "easyml/Runtime/Tissue/Tissue.h"
#include "easyml/Runtime/Tissue/TissueComm.h"

#include <cstring>

using namespace easyml::rt;

TissueComm::~TissueComm() = default;

bool Tissue::initializeRanks(std::string &error) {
  if (!comm_ || comm_->size() != sim_.ranks())
    return error = "a tissue across ranks needs their communicator", false;
  if (grid_.points() > INT32_MAX)
    return error = "a tissue across ranks holds at most 2^31 points (its "
                   "outputs are gathered on rank 0)",
           false;
  ranks_ = std::make_unique<RankBlock>(grid_, cellPoint_, flags_, *comm_,
                                       options_, diffuse_);
  // Every rank's cells, and the points from its first cell's to the
  // next rank's first cell's (the grid's ends at either end).
  ranks_->setCells(comm_->blocks(sim_.owned()));
  ranked_ = true;
  int64_t empty = comm_->sum(ranks_->cells().size() == 0 || !sim_.coupling());
  if (empty > 0)
    return error = std::to_string(empty) + " of " +
                   std::to_string(sim_.ranks()) +
                   " ranks hold no point of the grid: use fewer ranks",
           false;
  if (boxes_)
    return ranks_->layOutBoxes(options_.processGrid, error);
  ranks_->layOutSlab(identity_);
  return true;
}

bool Tissue::followRanks(double haloBefore, std::string &error) {
  int64_t moves = sim_.figures().rankRepartitions();
  if (!ranked_ || boxes_ || moves == rankMoves_)
    return true;
  rankMoves_ = moves;
  retiredHaloSeconds_ += haloBefore;
  std::vector<CellRange> from = ranks_->cellRanges();
  ranks_->setCells(comm_->blocks(sim_.owned()));
  const std::vector<CellRange> &to = ranks_->cellRanges();
  if (!comm_->redistribute(from, to, lat_, error) ||
      !comm_->redistribute(from, to, prev_, error))
    return false;
  ranks_->layOutSlab(identity_);
  // The cells' new simulation keeps Vm where the old one did.
  sim_.coupling()->keepExternalsOnDevices(onDevices_);
  ++report_.rankRepartitions;
  return true;
}

std::array<int, 3> Tissue::cellOrder() const {
  return boxes_ ? options_.processGrid.p : std::array<int, 3>{{1, 1, 1}};
}

/// The sub-steps: Vm of the block from the simulation into the block's
/// buffer, then per sub-step the devices' boundary planes, the halos
/// between ranks and the devices' sub-step (updateActivation hands the new
/// Vm to the cells).
bool Tissue::diffuseOnRanks(std::string &error) {
  TissueCoupling &local = *sim_.coupling();
  std::vector<double> &vr = ranks_->buffer();
  CellRange block = ranks_->block();
  int64_t own = block.begin - ranks_->first(), n = block.size();
  double t0 = monotonicSeconds();
  std::memcpy(vr.data() + own, local.vm(), n * sizeof(double));
  stepWork_ += monotonicSeconds() - t0;
  DiffusionTask task;
  task.grid.sx = 1;
  task.grid.sy = grid_.n[0];
  task.grid.sz = grid_.n[0] * grid_.n[1];
  task.grid.cx = c_[0];
  task.grid.cy = c_[1];
  task.grid.cz = c_[2];
  task.halo = RankBlock::haloOf(grid_);
  // Cell k of this rank is point block.begin + k.
  task.flags = flags_.data() + block.begin;
  task.hostVm = vr.data() + own;
  task.hostOut = ranks_->scratch().data() + own;
  task.lo = -own;
  task.hi = static_cast<int64_t>(vr.size()) - own;
  for (int64_t s = 0; s < report_.substeps; ++s) {
    task.src = s == 0 && hasSource_ ? src_.data() + block.begin : nullptr;
    task.srcVersion = srcVersion_;
    task.downloadVm = s + 1 == report_.substeps;
    // A device that fails on one rank stops every rank, with its message.
    double t1 = monotonicSeconds();
    bool ok = local.sendHalos(task, /*always=*/true);
    stepWork_ += monotonicSeconds() - t1;
    if (Status all = sim_.agree(ok ? Status() : Status::failed(sim_.failure()));
        !all.ok())
      return error = all.message(), false;
    if (!ranks_->exchange(vr.data(), error))
      return false;
    double t2 = monotonicSeconds();
    ok = local.diffuse(task);
    stepWork_ += monotonicSeconds() - t2;
    if (Status all = sim_.agree(ok ? Status() : Status::failed(sim_.failure()));
        !all.ok())
      return error = all.message(), false;
  }
  return true; // updateActivation hands the buffer to the cells
}

/// On this rank's threads: Vm of its cells into the buffer, per sub-step
/// the halos between ranks and the operator over the runs.
bool Tissue::diffuseOnRanksHost(std::string &error) {
  return ranks_->explicitSubsteps(sim_.coupling()->vm(), report_.substeps, c_,
                                  hasSource_ ? src_.data() : nullptr, stepWork_,
                                  error);
}

/// As diffuseCrankNicolson, over this rank's block.
bool Tissue::diffuseCrankNicolsonOnRanks(std::string &error) {
  return solved(ranks_->crankNicolson(sim_.coupling()->vm(), c_,
                                      hasSource_ ? src_.data() : nullptr,
                                      error),
                error);
}
