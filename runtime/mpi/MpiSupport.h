//===- MpiSupport.h - what the MPI runtime files share ----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_LIB_MPISUPPORT_H
#define EASYML_RUNTIME_LIB_MPISUPPORT_H

#include <mpi.h>

#include <string>
#include <vector>

namespace easyml::rt::mpi {

/// Seconds on a monotonic clock.
double now();
/// The text of an MPI error code.
std::string mpiError(int code);
bool endsWith(const std::string &s, const std::string &suffix);
std::string jsonEscape(const std::string &s);
/// `root`'s string, on every rank of `comm`.
std::string broadcast(MPI_Comm comm, int root, const std::string &s);
/// Every rank's string, on rank 0 (empty elsewhere).
std::vector<std::string> gatherStrings(MPI_Comm comm, const std::string &s);
/// Collective: opens `part` (a fresh file: a stale one of the same name
/// would keep its old length) for writing by every rank of `comm`; false
/// with `error` on every rank when one could not.
bool openPartFile(MPI_Comm comm, const std::string &part,
                  const std::string &path, MPI_File &fh, std::string &error,
                  bool keep = false);
/// Collective: rank 0 renames `part` to `path` when every rank's part went
/// well (`ok`), else removes it. True when the file is in place; false
/// with `error` (`mine` or the rename's failure) on every rank.
bool commitFile(MPI_Comm comm, bool ok, const std::string &part,
                const std::string &path, std::string mine,
                std::string &error);

// Tags of the writer protocol (MPI_COMM_WORLD-like communicator).
enum : int {
  kTagStart = 7301,   // rank 0 -> writer: rows, cols (rows < 0: none),
                      // rows to keep (a restart), path
  kTagData = 7302,    // rank -> writer: row0, rows, cell begin, cell end
  kTagPayload = 7303, // rank -> writer: the rows' values
  kTagClose = 7304,   // rank -> writer: 1 (ok) or 0
  kTagStatus = 7305,  // writer -> rank 0: ok, bytes, seconds; message
  kTagSync = 7306,    // rank -> writer: rows sent so far (a checkpoint)
  kTagSynced = 7307,  // writer -> rank: 1 once the group's rows are
                      // written (0: a write failed); message
};

} // namespace easyml::rt::mpi

#endif // EASYML_RUNTIME_LIB_MPISUPPORT_H
