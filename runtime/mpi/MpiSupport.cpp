//===- MpiSupport.cpp - what the MPI runtime files share ------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "MpiSupport.h"

#include "easyml/Runtime/MPI/ParallelIO.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace easyml::rt::mpi {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, len);
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

std::string broadcast(MPI_Comm comm, int root, const std::string &s) {
  long long n = static_cast<long long>(s.size());
  MPI_Bcast(&n, 1, MPI_LONG_LONG, root, comm);
  std::string out(static_cast<size_t>(n), '\0');
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == root)
    out = s;
  if (n)
    MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, root, comm);
  return out;
}

std::vector<std::string> gatherStrings(MPI_Comm comm, const std::string &s) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int n = static_cast<int>(s.size());
  std::vector<int> counts(size), displs(size);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::string all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += counts[r];
    }
    all.resize(total);
  }
  MPI_Gatherv(s.data(), n, MPI_CHAR, all.data(), counts.data(), displs.data(),
              MPI_CHAR, 0, comm);
  std::vector<std::string> out;
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      out.push_back(all.substr(displs[r], counts[r]));
  return out;
}

bool openPartFile(MPI_Comm comm, const std::string &part,
                  const std::string &path, MPI_File &fh, std::string &error,
                  bool keep) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0 && !keep)
    std::remove(part.c_str());
  MPI_Barrier(comm);
  int rc = MPI_File_open(comm, part.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                         MPI_INFO_NULL, &fh);
  std::string mine;
  if (rc != MPI_SUCCESS)
    mine = "cannot write '" + path + "': " + mpiError(rc);
  if (!agree(comm, rc == MPI_SUCCESS, mine)) {
    error = mine;
    if (rc == MPI_SUCCESS)
      MPI_File_close(&fh);
    return false;
  }
  return true;
}

bool commitFile(MPI_Comm comm, bool ok, const std::string &part,
                const std::string &path, std::string mine, std::string &error) {
  ok = agree(comm, ok, mine);
  int rank;
  MPI_Comm_rank(comm, &rank);
  bool renamed = true;
  if (rank == 0) {
    if (ok) {
      renamed = std::rename(part.c_str(), path.c_str()) == 0;
      if (!renamed)
        mine = "cannot write '" + path + "': " + std::strerror(errno);
    }
    if (!ok || !renamed)
      std::remove(part.c_str());
  }
  if (!agree(comm, renamed, mine) || !ok) {
    if (!mine.empty())
      error = mine;
    return false;
  }
  return true;
}

} // namespace easyml::rt::mpi
