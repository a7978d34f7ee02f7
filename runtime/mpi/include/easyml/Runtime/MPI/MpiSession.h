//===- MpiSession.h - MPI for a tool's process ------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What a tool started by mpirun (or srun) needs around its run: whether it
// was, MPI started once (funnelled threads) and finalised, agreement of
// every rank on a result, and an abort that stops every rank. In
// EasyMLRuntimeMPI; underLauncher() is all a tool built without MPI needs.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MPISESSION_H
#define EASYML_RUNTIME_MPISESSION_H

#include <string>

namespace easyml::rt::mpi {

/// Whether the process was started by an MPI launcher (its environment).
bool underLauncher();
/// MPI_Init_thread (MPI_THREAD_FUNNELED) the first time; this process's
/// rank of MPI_COMM_WORLD.
int start(int &argc, char **&argv);
/// This rank, or -1 before start().
int rank();
/// MPI_Finalize when started.
void stop();
/// Every rank stops with `code` (after stderr is flushed).
[[noreturn]] void abort(int code);
/// Collective over MPI_COMM_WORLD once started: false on every rank when
/// `ok` is false on one, with that rank's message ("rank N: ..."); `ok`
/// before start().
bool agree(bool ok, std::string &error);

} // namespace easyml::rt::mpi

#endif // EASYML_RUNTIME_MPISESSION_H
