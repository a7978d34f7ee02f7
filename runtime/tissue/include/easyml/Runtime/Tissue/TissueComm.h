//===- TissueComm.h - how a tissue's ranks talk -----------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A tissue across MPI ranks (Tissue.h): each rank holds a block of the
// grid's points, the cells its DistributedSimulation owns, and needs its
// neighbours' planes of Vm (the halo) before every diffusion sub-step.
// This interface is what Tissue needs from the ranks; the MPI version is
// makeMpiTissueComm (TissueMPI.h, in EasyMLRuntimeMPI), so the runtime
// itself needs no MPI. Every call is collective.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUECOMM_H
#define EASYML_RUNTIME_TISSUECOMM_H

#include "easyml/Runtime/Devices/Device.h"
#include "easyml/Runtime/Tissue/TissueDecomposition.h"

#include <cstdint>
#include <string>
#include <vector>

namespace easyml::rt {

class TissueComm {
public:
  virtual ~TissueComm();
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// Every rank's block of points, from each rank's own (in rank order;
  /// the blocks tile the points).
  virtual std::vector<CellRange> blocks(CellRange mine) = 0;

  /// Fills the halo of this rank's block `blocks[rank()]`: `vm` holds Vm of
  /// points [lo, hi) at vm[p - lo], where lo = max(0, begin - halo) and hi
  /// = min(points, end + halo), the block's own points current; the points
  /// of [lo, begin) and [end, hi) come from the ranks that own them, which
  /// send the parts of their blocks within `halo` of this one.
  virtual bool exchangeHalo(const std::vector<CellRange> &blocks,
                            int64_t halo, double *vm,
                            std::string &error) = 0;

  /// Boxes (TissueDecomposition.h): `vm` is this rank's box of `pg` in
  /// its buffer `layout`; fills the halo's faces from the ranks of the
  /// neighbouring boxes and sends them this box's faces, every message
  /// posted at once (non-blocking, a derived datatype per face).
  virtual bool exchangeFaces(const ProcessGrid &pg, const BoxLayout &layout,
                             double *vm, std::string &error) = 0;

  /// Sums and minimum over the ranks.
  virtual int64_t sum(int64_t value) = 0;
  virtual int64_t minimum(int64_t value) = 0;
  virtual double total(double value) = 0;

  /// Per-cell values held by ranges `from` (this rank's `values`, one per
  /// cell of from[rank()]) now held by ranges `to`: `values` becomes this
  /// rank's part of `to`, each value sent by the rank that held it.
  virtual bool redistribute(const std::vector<CellRange> &from,
                            const std::vector<CellRange> &to,
                            std::vector<double> &values,
                            std::string &error) = 0;

  /// On rank 0, the whole array of `points` values from every rank's
  /// block (`local` holds this rank's, `blocks` are ranges of the array);
  /// other ranks get `whole` empty.
  virtual bool gather(const std::vector<CellRange> &blocks,
                      const double *local, int64_t points,
                      std::vector<double> &whole, std::string &error) = 0;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_TISSUECOMM_H
