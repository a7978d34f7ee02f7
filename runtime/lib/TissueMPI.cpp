//===- TissueMPI.cpp - a tissue's ranks over MPI --------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Blocks of points are contiguous in point order (slabs along the grid's
// slowest axis), so a halo is a run of whole or partial planes: one
// contiguous message per pair of ranks and side, posted non-blocking in
// both directions at once. A block smaller than the halo is fine: the
// points come from every rank that owns some.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/TissueMPI.h"
#include "easyml/Runtime/Distributed.h"

#include <algorithm>

using namespace easyml::rt;

namespace {

CellRange intersect(CellRange a, CellRange b) {
  return {std::max(a.begin, b.begin), std::min(a.end, b.end)};
}

/// The two halo zones of `block` (below and above it).
void haloZones(CellRange block, int64_t halo, int64_t points,
               CellRange zones[2]) {
  zones[0] = {std::max<int64_t>(0, block.begin - halo), block.begin};
  zones[1] = {block.end, std::min(points, block.end + halo)};
}

class MpiTissueComm final : public TissueComm {
public:
  explicit MpiTissueComm(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<CellRange> blocks(CellRange mine) override {
    int64_t m[2] = {mine.begin, mine.end};
    std::vector<int64_t> all(2 * size_);
    MPI_Allgather(m, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm_);
    std::vector<CellRange> out(size_);
    for (int r = 0; r < size_; ++r)
      out[r] = {all[2 * r], all[2 * r + 1]};
    return out;
  }

  bool exchangeHalo(const std::vector<CellRange> &blocks, int64_t halo,
                    double *vm, std::string &error) override {
    int64_t points = blocks.back().end;
    CellRange me = blocks[rank_];
    if (me.size() == 0)
      return true; // nothing to send, nothing to receive
    int64_t lo = std::max<int64_t>(0, me.begin - halo);
    CellRange mine[2];
    haloZones(me, halo, points, mine);
    std::vector<MPI_Request> requests;
    for (int r = 0; r < size_; ++r) {
      if (r == rank_ || blocks[r].size() == 0)
        continue;
      CellRange theirs[2];
      haloZones(blocks[r], halo, points, theirs);
      for (int side = 0; side < 2; ++side) {
        CellRange in = intersect(mine[side], blocks[r]);
        if (in.size() > 0)
          post(false, vm + (in.begin - lo), in.size(), r, side, requests);
        CellRange out = intersect(theirs[side], me);
        if (out.size() > 0)
          post(true, vm + (out.begin - lo), out.size(), r, side, requests);
      }
    }
    int rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                         MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
      return error = "exchanging the halo of Vm between ranks failed", false;
    return true;
  }

  int64_t sum(int64_t value) override {
    int64_t out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_SUM, comm_);
    return out;
  }
  double total(double value) override {
    double out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, comm_);
    return out;
  }
  int64_t minimum(int64_t value) override {
    int64_t out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MIN, comm_);
    return out;
  }

  bool gather(const std::vector<CellRange> &blocks, const double *local,
              int64_t points, std::vector<double> &whole,
              std::string &error) override {
    std::vector<int> counts(size_), displs(size_);
    for (int r = 0; r < size_; ++r) {
      if (blocks[r].end > INT32_MAX)
        return error = "the grid is too large to gather on one rank", false;
      counts[r] = static_cast<int>(blocks[r].size());
      displs[r] = static_cast<int>(blocks[r].begin);
    }
    whole.assign(rank_ == 0 ? points : 0, 0.0);
    MPI_Gatherv(local, counts[rank_], MPI_DOUBLE, whole.data(), counts.data(),
                displs.data(), MPI_DOUBLE, 0, comm_);
    return true;
  }

private:
  /// A non-blocking message of `n` doubles to or from rank `peer`; the tag
  /// is the side of the receiver's block the values lie on.
  void post(bool send, double *p, int64_t n, int peer, int side,
            std::vector<MPI_Request> &requests) {
    requests.emplace_back();
    if (send)
      MPI_Isend(p, static_cast<int>(n), MPI_DOUBLE, peer, side, comm_,
                &requests.back());
    else
      MPI_Irecv(p, static_cast<int>(n), MPI_DOUBLE, peer, side, comm_,
                &requests.back());
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

} // namespace

std::unique_ptr<TissueComm> easyml::rt::makeMpiTissueComm(MPI_Comm comm) {
  return std::make_unique<MpiTissueComm>(comm);
}

MpiTissueRanks easyml::rt::makeMpiTissueRanks(MPI_Comm comm) {
  MpiTissueRanks out;
  out.comm = makeMpiTissueComm(comm);
  out.ranks.comm = out.comm.get();
  out.ranks.simulation = [comm](const ModelHandle &model, int64_t cells,
                                const SimulationOptions &options) {
    DistributedOptions d;
    // A tissue's blocks stay put: halos follow fixed neighbours.
    d.balance.fixed = true;
    return std::unique_ptr<SimulationInterface>(
        new DistributedSimulation(comm, model, cells, options, d));
  };
  return out;
}
