//===- DistributedCheckpoint.cpp - a run across ranks saved and continued -===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A checkpoint of a run across ranks is the one-process file
// (Checkpoint.h), written with MPI-IO: every rank writes its packed cells
// where they go in cell order, rank 0 the header and the closed beats'
// rows, and rank 0 then reads the file back in order for its checksum
// (FNV-1a, a sequential hash) before moving it into place. No rank holds
// more than its own cells. Any rank count continues it: every rank reads
// the file and takes its own block of cells and rows.
//
//===----------------------------------------------------------------------===//

#include "MpiSupport.h"

#include "easyml/Runtime/MPI/Distributed.h"
#include "easyml/Runtime/IO/OutputFile.h"

#include <algorithm>
#include <climits>
#include <cstdio>

using namespace easyml::rt;

namespace {

/// Writes `bytes` at `at` of `fh` (independent I/O, in pieces MPI counts
/// can hold); false on an error.
bool writeAt(MPI_File fh, MPI_Offset at, const void *data, size_t bytes) {
  const char *p = static_cast<const char *>(data);
  const size_t piece = size_t(1) << 30;
  while (bytes > 0) {
    size_t n = std::min(bytes, piece);
    if (MPI_File_write_at(fh, at, p, static_cast<int>(n), MPI_BYTE,
                          MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return false;
    at += static_cast<MPI_Offset>(n);
    p += n;
    bytes -= n;
  }
  return true;
}

} // namespace

bool DistributedSimulation::saveCheckpoint(const std::string &path,
                                           RunPosition position,
                                           std::string &error) {
  drainBiomarkers();
  PopulationState st;
  Status taken = failure_.empty() && local_
                     ? local_->transfer().checkpointState(st)
                     : Status();
  bool ok = failure_.empty() && taken.ok();
  std::string mine = failure_.empty() ? taken.message() : failure_;
  if (!rt::agree(comm_, ok, mine))
    return error = mine, false;
  BiomarkerTable rows = allBiomarkers();
  position.counters = counters();
  // Rank 0's header (every cell, the closed beats' rows, the run), then
  // every rank writes its own cells where they go in cell order.
  std::vector<double> values = std::move(st.values);
  std::string header;
  if (rank_ == 0) {
    st.cells = cells_;
    st.rows = std::move(rows.values);
    st.run = position.json();
    st.extra = std::move(position.data);
    header = stateHeader(st);
  }
  long long sizes[2] = {static_cast<long long>(header.size()),
                        static_cast<long long>(st.width())};
  MPI_Bcast(sizes, 2, MPI_LONG_LONG, 0, comm_);
  const MPI_Offset cellBytes = sizes[1] * static_cast<MPI_Offset>(sizeof(double));
  std::string tmp = path + ".tmp";
  MPI_File fh;
  ok = MPI_File_open(comm_, tmp.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                     MPI_INFO_NULL, &fh) == MPI_SUCCESS;
  if (!rt::agree(comm_, ok, mine = ok ? "" : "cannot write '" + path + "'"))
    return error = mine, false;
  ok = MPI_File_set_size(fh, 0) == MPI_SUCCESS;
  if (ok && local_ && !values.empty())
    ok = writeAt(fh, sizes[0] + owned().begin * cellBytes, values.data(),
                 values.size() * sizeof(double));
  if (ok && rank_ == 0) {
    MPI_Offset tail = sizes[0] + cells_ * cellBytes;
    ok = writeAt(fh, 0, header.data(), header.size()) &&
         writeAt(fh, tail, st.rows.data(), st.rows.size() * sizeof(double)) &&
         writeAt(fh,
                 tail + static_cast<MPI_Offset>(st.rows.size() * sizeof(double)),
                 st.extra.data(), st.extra.size() * sizeof(double));
  }
  ok = MPI_File_sync(fh) == MPI_SUCCESS && ok;
  ok = MPI_File_close(&fh) == MPI_SUCCESS && ok;
  mine = ok ? "" : "cannot write '" + path + "': a rank's write failed";
  if (!rt::agree(comm_, ok, mine)) {
    if (rank_ == 0)
      std::remove(tmp.c_str());
    return error = mine, false;
  }
  // The checksum, read back in order on rank 0; the file into place.
  Status sealed = rank_ == 0 ? sealStateFile(tmp, path) : Status();
  ok = sealed.ok();
  mine = sealed.message();
  if (!rt::agree(comm_, ok, mine))
    return error = mine, false;
  return true;
}

bool DistributedSimulation::loadCheckpoint(const std::string &path,
                                           RunPosition &position,
                                           std::string &error) {
  PopulationState st;
  std::string mine;
  Status read = readCheckpoint(path, st, position);
  bool ok = read.ok();
  mine = read.message();
  if (ok && local_)
    if (Status restored =
            local_->transfer().restoreState(st, owned().begin, cells_);
        !restored.ok()) {
      mine = path + ": " + restored.message();
      ok = false;
    }
  if (!rt::agree(comm_, ok, mine))
    return error = mine, false;
  step_ = st.step;
  clock_ = RunClock{st.step, st.beat, st.beatStart};
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
