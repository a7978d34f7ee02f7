//===- HostCpus.h - which CPUs two host pools compute on ----------*- C++ -*-//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Two CPU pools sharing waves each run on a thread of their own. Left to
// the operating system, the two threads at times share a core while
// another stays idle (or runs whatever else woke up), and one pool then
// computes up to a third slower inside the hybrid than alone. Where the
// process may use enough CPUs for both pools' threads, and nobody has
// bound threads already (OpenMP's OMP_PROC_BIND, OMP_PLACES,
// GOMP_CPU_AFFINITY, KMP_AFFINITY), each pool gets its own CPUs: its
// thread, and the OpenMP threads it starts, run on those only.
// EASYML_BIND_POOLS=0 turns this off.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_HOSTCPUS_H
#define EASYML_RUNTIME_HOSTCPUS_H

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace easyml::rt {

using CpuList = std::vector<int>;

/// Splits `allowed` (CPU numbers, in order) between two pools of
/// `threadsA` and `threadsB` threads, in proportion to their threads and
/// at least one CPU per thread: A the first CPUs, B the next. None when
/// there are fewer CPUs than threads (both pools then share all of them).
std::optional<std::pair<CpuList, CpuList>>
splitCpus(const CpuList &allowed, int threadsA, int threadsB);

/// The CPUs this thread may run on (empty where that cannot be read).
CpuList allowedCpus();

/// Whether the runtime may bind pools' threads to CPUs: false when
/// EASYML_BIND_POOLS is 0, or when the environment binds OpenMP threads
/// itself (`why` then names the variable).
bool mayBindPools(std::string *why = nullptr);

/// Binds the calling thread to `cpus`; false where the system refuses.
bool bindThisThread(const CpuList &cpus);

/// "0-3,8" for {0,1,2,3,8}.
std::string formatCpus(const CpuList &cpus);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_HOSTCPUS_H
