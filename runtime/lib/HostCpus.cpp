//===- HostCpus.cpp - which CPUs two host pools compute on ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/HostCpus.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

#include <pthread.h>
#include <sched.h>
#include <strings.h>

using namespace easyml::rt;

std::optional<std::pair<CpuList, CpuList>>
easyml::rt::splitCpus(const CpuList &allowed, int threadsA, int threadsB) {
  int n = static_cast<int>(allowed.size());
  if (threadsA < 1 || threadsB < 1 || threadsA + threadsB > n)
    return std::nullopt;
  // In proportion to the threads, each pool at least one CPU per thread.
  int a = static_cast<int>(
      std::lround(static_cast<double>(n) * threadsA / (threadsA + threadsB)));
  a = std::clamp(a, threadsA, n - threadsB);
  return std::make_pair(CpuList(allowed.begin(), allowed.begin() + a),
                        CpuList(allowed.begin() + a, allowed.end()));
}

static bool readNumber(const std::string &path, long &value) {
  std::ifstream in(path);
  return static_cast<bool>(in >> value);
}

std::vector<CpuList> easyml::rt::coresOf(const CpuList &allowed,
                                         const std::string &sysfs) {
  // (package, core) of each CPU; a CPU without one is a core of its own.
  std::map<std::pair<long, long>, size_t> index;
  std::vector<CpuList> cores;
  for (int c : allowed) {
    std::string topo = sysfs + "/cpu" + std::to_string(c) + "/topology/";
    long package = 0, core = 0;
    if (!readNumber(topo + "physical_package_id", package) ||
        !readNumber(topo + "core_id", core)) {
      cores.push_back({c});
      continue;
    }
    auto [it, fresh] = index.try_emplace({package, core}, cores.size());
    if (fresh)
      cores.emplace_back();
    cores[it->second].push_back(c);
  }
  return cores;
}

std::optional<std::pair<CpuList, CpuList>>
easyml::rt::splitCores(const std::vector<CpuList> &cores, int threadsA,
                       int threadsB) {
  CpuList all;
  for (const CpuList &core : cores)
    all.insert(all.end(), core.begin(), core.end());
  if (threadsA < 1 || threadsB < 1 || threadsA + threadsB > (int)all.size())
    return std::nullopt;
  // The first k cores for A: the k closest to the threads' proportion
  // that leaves each pool a CPU per thread.
  const double want = static_cast<double>(threadsA) / (threadsA + threadsB);
  size_t best = 0, cpusA = 0, bestCpus = 0;
  double bestMiss = 2;
  for (size_t k = 1; k < cores.size(); ++k) {
    cpusA += cores[k - 1].size();
    double miss = std::abs(static_cast<double>(cpusA) / all.size() - want);
    if ((int)cpusA >= threadsA && (int)(all.size() - cpusA) >= threadsB &&
        miss < bestMiss) {
      best = k;
      bestCpus = cpusA;
      bestMiss = miss;
    }
  }
  std::optional<std::pair<CpuList, CpuList>> split;
  if (best > 0)
    split = std::make_pair(CpuList(all.begin(), all.begin() + bestCpus),
                           CpuList(all.begin() + bestCpus, all.end()));
  else
    split = splitCpus(all, threadsA, threadsB);
  std::sort(split->first.begin(), split->first.end());
  std::sort(split->second.begin(), split->second.end());
  return split;
}

CpuList easyml::rt::allowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  CpuList cpus;
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0)
    return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set))
      cpus.push_back(c);
  return cpus;
}

bool easyml::rt::mayBindPools(std::string *why) {
  auto given = [](const char *name) {
    const char *v = std::getenv(name);
    return v && *v;
  };
  if (const char *v = std::getenv("EASYML_BIND_POOLS");
      v && std::strcmp(v, "0") == 0) {
    if (why)
      *why = "EASYML_BIND_POOLS=0";
    return false;
  }
  // OMP_PROC_BIND=false asks for no binding: the runtime may bind.
  const char *bind = std::getenv("OMP_PROC_BIND");
  bool ompBinds = bind && *bind && strcasecmp(bind, "false") != 0;
  for (const char *name : {"OMP_PLACES", "GOMP_CPU_AFFINITY", "KMP_AFFINITY"})
    if (given(name)) {
      if (why)
        *why = name;
      return false;
    }
  if (ompBinds) {
    if (why)
      *why = "OMP_PROC_BIND";
    return false;
  }
  return true;
}

bool easyml::rt::bindThisThread(const CpuList &cpus) {
  if (cpus.empty())
    return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE)
      CPU_SET(c, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

std::string easyml::rt::formatCpus(const CpuList &cpus) {
  std::string s;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
      ++j;
    if (!s.empty())
      s += ',';
    s += std::to_string(cpus[i]);
    if (j > i)
      s += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return s;
}

namespace {
/// The process's CPUs: those of the first pool thread before it bound
/// itself (an unbound region's threads go back to them).
std::mutex processMutex;
CpuList processCpus;
std::atomic<uint64_t> nextPool{1};
/// The pool the calling thread is (0: none) and its CPUs.
thread_local uint64_t myPool = 0;
thread_local CpuList myCpus;
/// The binding the calling thread last took in a parallel region.
thread_local uint64_t heldPool = 0;
} // namespace

bool easyml::rt::becomePoolThread(const CpuList &cpus) {
  // The first region of a thread resets its CPUs (LLVM's OpenMP), and
  // the first region of the process takes the CPUs it runs on for the
  // process's: both happen here, unbound, and the binding stays. The
  // volatile store keeps the optimizer from deleting the region.
  volatile bool started = false;
#pragma omp parallel num_threads(1)
  started = true;
  (void)started;
  {
    std::lock_guard<std::mutex> lock(processMutex);
    if (processCpus.empty())
      processCpus = allowedCpus();
  }
  if (!bindThisThread(cpus))
    return false;
  myPool = heldPool = nextPool.fetch_add(1);
  myCpus = cpus;
  return true;
}

PoolBinding PoolBinding::current() {
  PoolBinding b;
  b.id_ = myPool;
  b.cpus_ = &myCpus;
  return b;
}

void PoolBinding::hold() const {
  if (heldPool == id_)
    return;
  if (id_ != 0) {
    bindThisThread(*cpus_);
  } else {
    std::lock_guard<std::mutex> lock(processMutex);
    bindThisThread(processCpus);
  }
  heldPool = id_;
}
