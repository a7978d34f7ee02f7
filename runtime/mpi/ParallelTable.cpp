//===- ParallelTable.cpp - a table whose rows are spread over ranks -------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "MpiSupport.h"

#include "easyml/Runtime/MPI/ParallelIO.h"
#include "easyml/Runtime/Core/Population.h"

#include <algorithm>
#include <cstring>
#include <map>

using namespace easyml::rt;
using namespace easyml::rt::mpi;

//===----------------------------------------------------------------------===//
// Tables spread over the ranks
//===----------------------------------------------------------------------===//

bool easyml::rt::writeTableParallel(MPI_Comm comm, const std::string &path,
                                    const std::vector<std::string> &names,
                                    const std::vector<double> &rows,
                                    const std::vector<int64_t> &keys,
                                    std::string &error) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  size_t k = names.size();
  size_t n = k ? rows.size() / k : 0;
  bool npy = endsWith(path, ".npy");
  // This rank's rows in groups of one key, and each group's bytes.
  std::vector<long long> groupKey, groupBytes;
  std::vector<std::string> text;
  std::vector<size_t> groupFirst;
  for (size_t r = 0; r < n;) {
    size_t e = r;
    while (e < n && keys[e] == keys[r])
      ++e;
    groupKey.push_back(keys[r]);
    groupFirst.push_back(r);
    if (npy) {
      groupBytes.push_back(static_cast<long long>((e - r) * k * 8));
    } else {
      text.push_back(csvRows(rows.data() + r * k, e - r, k));
      groupBytes.push_back(static_cast<long long>(text.back().size()));
    }
    r = e;
  }
  // Every rank's (key, bytes) pairs, and its row count.
  int ng = static_cast<int>(groupKey.size());
  std::vector<int> counts(size), displs(size);
  MPI_Allgather(&ng, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<long long> allKeys(total), allBytes(total);
  MPI_Allgatherv(groupKey.data(), ng, MPI_LONG_LONG, allKeys.data(),
                 counts.data(), displs.data(), MPI_LONG_LONG, comm);
  MPI_Allgatherv(groupBytes.data(), ng, MPI_LONG_LONG, allBytes.data(),
                 counts.data(), displs.data(), MPI_LONG_LONG, comm);
  long long myRows = static_cast<long long>(n), allRows = 0;
  MPI_Allreduce(&myRows, &allRows, 1, MPI_LONG_LONG, MPI_SUM, comm);
  std::string header = npy ? tableNpyHeader(names, allRows) : csvHeader(names);
  // A group's offset: the header, every group of a smaller key, then the
  // groups of the same key on lower ranks.
  auto offsetOf = [&](int r, int g) {
    long long key = allKeys[displs[r] + g], off = 0;
    for (int q = 0; q < size; ++q)
      for (int j = 0; j < counts[q]; ++j) {
        long long kq = allKeys[displs[q] + j];
        if (kq < key || (kq == key && q < r))
          off += allBytes[displs[q] + j];
      }
    return static_cast<MPI_Offset>(header.size()) + off;
  };
  std::string part = path + ".tmp";
  MPI_File fh;
  if (!openPartFile(comm, part, path, fh, error))
    return false;
  std::string mine;
  bool ok = true;
  if (rank == 0)
    ok =
        MPI_File_write_at(fh, 0, header.data(), static_cast<int>(header.size()),
                          MPI_CHAR, MPI_STATUS_IGNORE) == MPI_SUCCESS;
  for (int g = 0; g < ng && ok; ++g) {
    MPI_Offset off = offsetOf(rank, g);
    const char *data =
        npy ? reinterpret_cast<const char *>(rows.data() + groupFirst[g] * k)
            : text[g].data();
    long long left = groupBytes[g];
    // In pieces that fit an int count.
    while (left > 0 && ok) {
      int piece = static_cast<int>(std::min<long long>(left, 1 << 30));
      ok = MPI_File_write_at(fh, off, data, piece, MPI_CHAR,
                             MPI_STATUS_IGNORE) == MPI_SUCCESS;
      off += piece;
      data += piece;
      left -= piece;
    }
  }
  if (!ok)
    mine = "cannot write '" + path + "'";
  MPI_File_close(&fh);
  return commitFile(comm, ok, part, path, mine, error);
}
