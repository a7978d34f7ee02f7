//===- HostCpus.h - which CPUs two host pools compute on ----------*- C++ -*-//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Two CPU pools sharing waves each run on a thread of their own. Left to
// the operating system, the two threads may share a core while another
// stays idle (or runs whatever else woke up). Where the process may use
// enough CPUs for both pools' threads, and nobody has bound threads
// already (OpenMP's OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY,
// KMP_AFFINITY), each pool gets its own CPUs: its thread, and the OpenMP
// threads it starts, run on those only.
// EASYML_BIND_POOLS=0 turns this off.
//
// SMT siblings count as one core: the pools are given whole cores where
// the cores allow it, so that they never share one.
//
// LLVM's OpenMP runtime gives a thread, at its first parallel region, the
// CPUs of the thread whose region started OpenMP, and starts a region's
// new threads there too. So a pool's thread starts OpenMP before it is
// bound (becomePoolThread), and every thread of every parallel region of
// the runtime holds the binding of the region's starter (PoolBinding): a
// thread that served one pool and now serves another, or an unbound
// region, follows.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_HOSTCPUS_H
#define EASYML_RUNTIME_HOSTCPUS_H

#include <cstdint>
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

/// The CPUs of `allowed` grouped by physical core (SMT siblings together),
/// the cores in the order of their first CPU, as `sysfs` (the system's
/// /sys/devices/system/cpu) describes them. A CPU whose topology cannot be
/// read is a core of its own.
std::vector<CpuList>
coresOf(const CpuList &allowed,
        const std::string &sysfs = "/sys/devices/system/cpu");

/// Splits `cores` between two pools like splitCpus, but whole cores each
/// where that gives each pool at least one CPU per thread (the split
/// closest to the pools' threads' proportion), else CPU by CPU. Each
/// side's CPUs are sorted.
std::optional<std::pair<CpuList, CpuList>>
splitCores(const std::vector<CpuList> &cores, int threadsA, int threadsB);

/// The CPUs this thread may run on (empty where that cannot be read).
CpuList allowedCpus();

/// Whether the runtime may bind pools' threads to CPUs: false when
/// EASYML_BIND_POOLS is 0, or when the environment binds OpenMP threads
/// itself (`why` then names the variable).
bool mayBindPools(std::string *why = nullptr);

/// Binds the calling thread to `cpus`; false where the system refuses.
bool bindThisThread(const CpuList &cpus);

/// Makes the calling thread the thread of a pool bound to `cpus`: starts
/// OpenMP on it (while its CPUs are still the process's), then binds it.
/// False where the system refuses; the thread is then left unbound.
bool becomePoolThread(const CpuList &cpus);

/// Whether a thread of a region could not take its binding (the system
/// refused it): the pools then no longer run on the CPUs reported.
bool poolBindingLost();

/// The CPUs a parallel region's threads must run on: those of the pool
/// whose thread starts the region (or whose region it serves), or the
/// process's (unbound).
class PoolBinding {
public:
  /// The binding of the calling thread (none unless becomePoolThread, or
  /// a thread of a pool's region).
  static PoolBinding current();
  /// Called first by each thread of a parallel region: binds it to the
  /// pool's CPUs (or back to the process's) when it last held another.
  void hold() const;

private:
  uint64_t id_ = 0;
  const CpuList *cpus_ = nullptr;
};

/// "0-3,8" for {0,1,2,3,8}.
std::string formatCpus(const CpuList &cpus);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_HOSTCPUS_H
