//===- DistributedCheckpoint.cpp - a run across ranks saved and continued -===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A checkpoint of a run across ranks is the one-process file
// (Checkpoint.h): rank 0 gathers every rank's packed cells in cell order
// and the closed beats' rows, and writes it. Any rank count continues it:
// every rank reads the file and takes its own block of cells and rows.
//
//===----------------------------------------------------------------------===//

#include "MpiSupport.h"

#include "easyml/Runtime/Distributed.h"
#include "easyml/Runtime/OutputFile.h"

#include <climits>

using namespace easyml::rt;

bool DistributedSimulation::saveCheckpoint(const std::string &path,
                                           RunPosition position,
                                           std::string &error) {
  drainBiomarkers();
  PopulationState st;
  std::string mine;
  bool ok = failure_.empty() && (!local_ || local_->checkpointState(st, mine));
  if (!failure_.empty())
    mine = failure_;
  if (!rt::agree(comm_, ok, mine))
    return error = mine, false;
  // Every rank's cells, in cell order, to rank 0.
  int64_t width = static_cast<int64_t>(st.width());
  long long counts[2] = {static_cast<long long>(st.values.size()), width};
  std::vector<long long> all(2 * size_);
  MPI_Gather(counts, 2, MPI_LONG_LONG, all.data(), 2, MPI_LONG_LONG, 0, comm_);
  std::vector<int> sizes(size_), displs(size_);
  if (rank_ == 0) {
    long long total = 0;
    for (int r = 0; r < size_; ++r) {
      sizes[r] = static_cast<int>(all[2 * r]);
      displs[r] = static_cast<int>(total);
      total += all[2 * r];
      ok = ok && total <= INT_MAX &&
           (all[2 * r] == 0 || all[2 * r + 1] == width);
    }
    if (!ok)
      mine = "'" + path + "': a checkpoint of " + std::to_string(total) +
             " values gathered on one rank is too large";
  }
  if (!rt::agree(comm_, ok, mine))
    return error = mine, false;
  std::vector<double> cells(rank_ == 0 ? displs.back() + sizes.back() : 0);
  MPI_Gatherv(st.values.data(), static_cast<int>(st.values.size()), MPI_DOUBLE,
              cells.data(), sizes.data(), displs.data(), MPI_DOUBLE, 0, comm_);
  BiomarkerTable rows = allBiomarkers();
  position.counters = counters();
  if (rank_ == 0) {
    st.cells = cells_;
    st.values = std::move(cells);
    st.rows = std::move(rows.values);
    st.run = position.json();
    st.extra = std::move(position.data);
    ok = writeWholeFile(path, serializeState(st), mine, /*sync=*/true);
  }
  if (!rt::agree(comm_, ok, mine))
    return error = mine, false;
  return true;
}

bool DistributedSimulation::loadCheckpoint(const std::string &path,
                                           RunPosition &position,
                                           std::string &error) {
  PopulationState st;
  std::string mine;
  bool ok = readCheckpoint(path, st, position, mine);
  if (ok && local_ && !local_->restoreState(st, owned().begin, cells_, mine)) {
    mine = path + ": " + mine;
    ok = false;
  }
  if (!rt::agree(comm_, ok, mine))
    return error = mine, false;
  step_ = st.step;
  clock_ = Simulation::Clock{st.step, st.beat, st.beatStart};
  // This rank's rows of the closed beats, and the counters once (rank 0).
  bio_.values.clear();
  for (size_t r = 0; r + kBioNumColumns <= st.rows.size(); r += kBioNumColumns)
    if (owned().contains(static_cast<int64_t>(st.rows[r + kBioCell])))
      bio_.values.insert(bio_.values.end(), st.rows.begin() + r,
                         st.rows.begin() + r + kBioNumColumns);
  if (rank_ == 0 && position.counters.size() == counters_.size())
    counters_ = position.counters;
  return true;
}
