//===- TissueMPI.cpp - a tissue's ranks over MPI --------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Slabs are contiguous in point order, so a halo is a run of whole or
// partial planes: one contiguous message per pair of ranks and side,
// posted non-blocking in both directions at once. A block smaller than the
// halo is fine: the points come from every rank that owns some. Boxes
// exchange faces with the ranks of their neighbouring boxes: one message
// per face and direction, described by a subarray datatype of the box's
// buffer (strided where the face is across x), built once per layout.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Tissue/TissueMPI.h"
#include "easyml/Runtime/MPI/Distributed.h"

#include <algorithm>
#include <array>

using namespace easyml::rt;

namespace {

/// The shortest window of work over which the ranks judge a tissue's
/// split (seconds of the slowest rank).
constexpr double kTissueWindowSeconds = 0.2;

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

  bool exchangeFaces(const ProcessGrid &pg, const BoxLayout &layout,
                     double *vm, std::string &error) override {
    if (!facesReady_ || layout.ext != faceExt_ || layout.box.lo != faceLo_)
      buildFaces(pg, layout);
    std::vector<MPI_Request> requests(2 * faces_.size());
    for (size_t f = 0; f < faces_.size(); ++f) {
      const Face &face = faces_[f];
      MPI_Irecv(vm, 1, face.recv, face.peer, face.recvTag, comm_,
                &requests[2 * f]);
      MPI_Isend(vm, 1, face.send, face.peer, face.sendTag, comm_,
                &requests[2 * f + 1]);
    }
    int rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                         MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
      return error = "exchanging the faces of Vm between ranks failed", false;
    return true;
  }

  ~MpiTissueComm() override { freeFaces(); }

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

  bool redistribute(const std::vector<CellRange> &from,
                    const std::vector<CellRange> &to,
                    std::vector<double> &values, std::string &error) override {
    CellRange old = from[rank_], nw = to[rank_];
    // Every rank takes part in the exchange, or none does.
    int fits = static_cast<int64_t>(values.size()) == old.size() &&
               std::max(old.size(), nw.size()) <= INT32_MAX;
    int all = 0;
    MPI_Allreduce(&fits, &all, 1, MPI_INT, MPI_MIN, comm_);
    if (!all)
      return error = "cannot move per-cell values between ranks", false;
    std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
    for (int r = 0; r < size_; ++r) {
      CellRange out = old.intersect(to[r]), in = from[r].intersect(nw);
      sc[r] = static_cast<int>(std::max<int64_t>(0, out.size()));
      sd[r] = sc[r] ? static_cast<int>(out.begin - old.begin) : 0;
      rc[r] = static_cast<int>(std::max<int64_t>(0, in.size()));
      rd[r] = rc[r] ? static_cast<int>(in.begin - nw.begin) : 0;
    }
    std::vector<double> mine(nw.size());
    MPI_Alltoallv(values.data(), sc.data(), sd.data(), MPI_DOUBLE, mine.data(),
                  rc.data(), rd.data(), MPI_DOUBLE, comm_);
    values.swap(mine);
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

  /// One face of this rank's box shared with `peer`: what it sends and
  /// where it receives (one point of halo), with their tags (2 * axis +
  /// direction of travel, 1 upwards).
  struct Face {
    int peer = -1, sendTag = 0, recvTag = 0;
    MPI_Datatype send = MPI_DATATYPE_NULL, recv = MPI_DATATYPE_NULL;
  };

  /// The face of `layout`'s box along `axis` at `at` (a buffer index
  /// along it), spanning the box along the other axes.
  static MPI_Datatype faceType(const BoxLayout &layout, int axis,
                               int64_t at) {
    int sizes[3], sub[3], starts[3];
    for (int a = 0; a < 3; ++a) {
      // MPI_ORDER_C: the slowest axis (z) first.
      int c = 2 - a;
      sizes[c] = static_cast<int>(layout.ext[a]);
      sub[c] = a == axis ? 1
                         : static_cast<int>(layout.box.hi[a] - layout.box.lo[a]);
      starts[c] = static_cast<int>(a == axis ? at : layout.off[a]);
    }
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE,
                             &t);
    MPI_Type_commit(&t);
    return t;
  }

  void buildFaces(const ProcessGrid &pg, const BoxLayout &layout) {
    freeFaces();
    std::array<int, 3> me = boxCoord(pg, rank_);
    for (int a = 0; a < 3; ++a)
      for (int dir : {-1, 1}) {
        std::array<int, 3> c = me;
        c[a] += dir;
        int peer = rankAt(pg, c);
        if (peer < 0)
          continue;
        int64_t size = layout.box.hi[a] - layout.box.lo[a];
        int64_t own = dir < 0 ? layout.off[a] : layout.off[a] + size - 1;
        int64_t halo = dir < 0 ? layout.off[a] - 1 : layout.off[a] + size;
        Face f;
        f.peer = peer;
        f.sendTag = 2 * a + (dir > 0);
        f.recvTag = 2 * a + (dir < 0);
        f.send = faceType(layout, a, own);
        f.recv = faceType(layout, a, halo);
        faces_.push_back(f);
      }
    faceExt_ = layout.ext;
    faceLo_ = layout.box.lo;
    facesReady_ = true;
  }

  void freeFaces() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    for (Face &f : faces_) {
      if (finalized)
        break;
      MPI_Type_free(&f.send);
      MPI_Type_free(&f.recv);
    }
    faces_.clear();
    facesReady_ = false;
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::vector<Face> faces_;
  std::array<int64_t, 3> faceExt_{}, faceLo_{};
  bool facesReady_ = false;
};

} // namespace

std::unique_ptr<TissueComm> easyml::rt::makeMpiTissueComm(MPI_Comm comm) {
  return std::make_unique<MpiTissueComm>(comm);
}

MpiTissueRanks easyml::rt::makeMpiTissueRanks(MPI_Comm comm,
                                              const DistributedOptions &base) {
  MpiTissueRanks out;
  out.comm = makeMpiTissueComm(comm);
  out.ranks.comm = out.comm.get();
  out.ranks.simulation = [comm, base](const ModelHandle &model, int64_t cells,
                                      const SimulationOptions &options,
                                      const std::vector<int64_t> &counts,
                                      bool balance) {
    DistributedOptions d = base;
    d.counts = counts;
    // Slabs follow the balancer's moves (Tissue::followRanks), every rank
    // keeping a point; boxes stay put.
    d.balance.fixed = !balance;
    d.keepEveryRank = true;
    // A tissue's step is short and its ranks wait for each other every
    // step: judge a split over a fifth of a second of the slowest rank's
    // work, so that a machine's noise does not move slabs back and forth.
    d.balance.minWindowSeconds =
        std::max(d.balance.minWindowSeconds, kTissueWindowSeconds);
    return std::unique_ptr<SimulationInterface>(
        new DistributedSimulation(comm, model, cells, options, d));
  };
  return out;
}
