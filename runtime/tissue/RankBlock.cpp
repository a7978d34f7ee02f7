//===- RankBlock.cpp - a rank's block of a tissue's grid ------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "RankBlock.h"

#include "ConjugateGradient.h"

#include "easyml/Runtime/Devices/HostCpus.h"
#include "easyml/Runtime/Support/Clock.h"
#include "easyml/Runtime/Tissue/TissueComm.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace easyml::rt;

namespace {
/// The most points the operator runs over in one call on one thread.
constexpr int64_t kRunPiece = 8192;
} // namespace

int64_t RankBlock::haloOf(const TissueGrid &g) {
  return g.n[2] > 1 ? g.n[0] * g.n[1] : g.n[1] > 1 ? g.n[0] : 1;
}

void RankBlock::setCells(const std::vector<CellRange> &cellRanges) {
  cellRanges_ = cellRanges;
  cells_ = cellRanges_[comm_.rank()];
}

void RankBlock::layOutSlab(bool identity) {
  const std::vector<CellRange> &cells = cellRanges_;
  blocks_.clear();
  for (size_t r = 0; r < cells.size(); ++r)
    blocks_.push_back({r == 0 ? 0 : cellPoint_[cells[r].begin],
                       r + 1 < cells.size() ? cellPoint_[cells[r + 1].begin]
                                            : grid_.points()});
  block_ = blocks_[comm_.rank()];
  int64_t h = haloOf(grid_);
  first_ = std::max<int64_t>(0, block_.begin - h);
  int64_t last = std::min(grid_.points(), block_.end + h);
  // Points outside the tissue hold NaN: no operator reads them.
  vr_.assign(last - first_, identity ? 0.0 : NAN);
  vo_.assign(last - first_, identity ? 0.0 : NAN);
  cellSlot_.resize(cells_.size());
  for (int64_t k = 0; k < cells_.size(); ++k)
    cellSlot_[k] = cellPoint_[cells_.begin + k] - first_;
  sx_ = 1;
  sy_ = grid_.n[0];
  sz_ = grid_.n[0] * grid_.n[1];
  runs_.clear();
  for (int64_t p = block_.begin; p < block_.end; p += kRunPiece)
    runs_.push_back(
        {p - first_, p, std::min(kRunPiece, block_.end - p), p - block_.begin});
  runsAreCells_ = identity;
}

bool RankBlock::layOutBoxes(const ProcessGrid &pg, std::string &error) {
  boxes_ = true;
  layout_ = BoxLayout(grid_, boxOf(grid_, pg, comm_.rank()));
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
        matches =
            matches && k < cells_.size() && cellPoint_[cells_.begin + k] == p;
        cellSlot_.push_back(layout_.slot(x, y, z));
      }
      for (int64_t x = b.lo[0]; x < b.hi[0]; x += kRunPiece)
        runs_.push_back(
            {layout_.slot(x, y, z), grid_.index(x, y, z),
             std::min(kRunPiece, b.hi[0] - x),
             static_cast<int64_t>(cellSlot_.size()) - (b.hi[0] - x)});
    }
  matches = matches && static_cast<int64_t>(cellSlot_.size()) == cells_.size();
  if (comm_.sum(!matches) > 0)
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

bool RankBlock::exchange(double *v, std::string &error) {
  double t0 = monotonicSeconds();
  bool ok = boxes_
                ? comm_.exchangeFaces(options_.processGrid, layout_, v, error)
                : comm_.exchangeHalo(blocks_, haloOf(grid_), v, error);
  exchangeSeconds_ += monotonicSeconds() - t0;
  return ok;
}

void RankBlock::applyRuns(const double *v, double *out, const double c[3],
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

void RankBlock::loadVm(const double *vm) {
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

std::vector<double> RankBlock::cellVm() const {
  std::vector<double> own(cells_.size());
  for (int64_t k = 0; k < cells_.size(); ++k)
    own[k] = vr_[cellSlot_[k]];
  return own;
}

bool RankBlock::explicitSubsteps(const double *vm, int64_t substeps,
                                 const double c[3], const double *src,
                                 double &work, std::string &error) {
  double t0 = monotonicSeconds();
  loadVm(vm);
  work += monotonicSeconds() - t0;
  for (int64_t s = 0; s < substeps; ++s) {
    if (!exchange(vr_.data(), error))
      return false;
    double t1 = monotonicSeconds();
    applyRuns(vr_.data(), vo_.data(), c, s == 0 ? src : nullptr);
    work += monotonicSeconds() - t1;
    // vo_ holds the block's new Vm; its halo is filled before it is read.
    vr_.swap(vo_);
  }
  return true;
}

CgResult RankBlock::crankNicolson(const double *vm, const double c[3],
                                  const double *src, std::string &error) {
  loadVm(vm);
  // The conjugate gradient's vectors are n points from `base` in vr_'s
  // layout: a slab's block, or a box's whole buffer with its halo and
  // padding masked out.
  const int64_t base = boxes_ ? 0 : block_.begin - first_;
  const int64_t n = boxes_ ? static_cast<int64_t>(vr_.size()) : block_.size();
  const uint8_t *mask = boxes_ ? boxMask_.data() : flags_.data() + block_.begin;
  double plus[3], minus[3];
  for (int a = 0; a < 3; ++a) {
    plus[a] = 0.5 * c[a];
    minus[a] = -0.5 * c[a];
  }
  double *x = vr_.data() + base;
  std::vector<double> b(n), r(n), q(n), ph(vr_.size(), 0.0);
  CgResult failed;
  failed.applied = false;
  if (!exchange(vr_.data(), error))
    return failed;
  applyRuns(vr_.data(), b.data() - base, plus, src);
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
    return comm_.total(sum);
  };
  cg.mask = mask;
  cg.maskBit = EASYML_DIFFUSION_TISSUE;
  cg.tolerance = options_.cgTolerance;
  cg.maxIterations = options_.cgMaxIterations;
  return cg.solve(n, x, b.data(), r.data(), q.data(), ph.data() + base);
}

std::vector<double>
RankBlock::ownValues(const std::vector<double> &byPoint) const {
  std::vector<double> own(cells_.size());
  for (int64_t k = 0; k < cells_.size(); ++k)
    own[k] = byPoint[cellPoint_[cells_.begin + k]];
  return own;
}

std::vector<double> RankBlock::gatherCells(const std::vector<double> &own,
                                           int64_t totalCells) {
  std::vector<double> cells;
  std::string ignored; // the grid's size was checked at initialize()
  comm_.gather(cellRanges_, own.data(), totalCells, cells, ignored);
  if (comm_.rank() != 0)
    return {};
  std::vector<double> whole(grid_.points(), NAN);
  for (size_t k = 0; k < cellPoint_.size(); ++k)
    whole[cellPoint_[k]] = cells[k];
  return whole;
}
