//===- HostCpus.cpp - which CPUs two host pools compute on ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/HostCpus.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
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

/// Reads a CPU list such as "0-3,8" (sysfs' format); false if malformed.
static bool readCpuList(const std::string &path, CpuList &cpus) {
  std::ifstream in(path);
  std::string text;
  if (!std::getline(in, text) || text.empty())
    return false;
  cpus.clear();
  const char *p = text.c_str();
  while (*p) {
    char *end;
    long first = std::strtol(p, &end, 10), last = first;
    if (end == p)
      return false;
    if (*end == '-') {
      p = end + 1;
      last = std::strtol(p, &end, 10);
      if (end == p || last < first)
        return false;
    }
    for (long c = first; c <= last; ++c)
      cpus.push_back(static_cast<int>(c));
    p = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0')
      return false;
  }
  return !cpus.empty();
}

std::vector<CpuList> easyml::rt::coresOf(const CpuList &allowed,
                                         const std::string &sysfs) {
  // A core is the CPUs that list each other as the core's siblings
  // (core_cpus_list, thread_siblings_list on older kernels); a CPU whose
  // list cannot be read is a core of its own.
  std::map<CpuList, size_t> index;
  std::vector<CpuList> cores;
  for (int c : allowed) {
    std::string topo = sysfs + "/cpu" + std::to_string(c) + "/topology/";
    CpuList siblings;
    if (!readCpuList(topo + "core_cpus_list", siblings) &&
        !readCpuList(topo + "thread_siblings_list", siblings)) {
      cores.push_back({c});
      continue;
    }
    auto [it, fresh] = index.try_emplace(siblings, cores.size());
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
  const int64_t n = static_cast<int64_t>(all.size());
  if (threadsA < 1 || threadsB < 1 || threadsA + threadsB > n)
    return std::nullopt;
  // The first k cores for A: the k whose CPUs are closest to the threads'
  // proportion (in integers: |cpusA (tA + tB) - tA n|; the fewer cores
  // for A on a tie) that leaves each pool a CPU per thread.
  size_t best = 0;
  int64_t cpusA = 0, bestCpus = 0, bestMiss = INT64_MAX;
  for (size_t k = 1; k < cores.size(); ++k) {
    cpusA += static_cast<int64_t>(cores[k - 1].size());
    int64_t miss = std::abs(cpusA * (threadsA + threadsB) - threadsA * n);
    if (cpusA >= threadsA && n - cpusA >= threadsB && miss < bestMiss) {
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
/// The CPUs LLVM's OpenMP gives a thread that starts a region: those of
/// the thread that started OpenMP, the first pool thread before it bound
/// itself (an unbound region's threads go back to them).
std::mutex processMutex;
CpuList processCpus;
std::atomic<uint64_t> nextPool{1};
/// A thread refused a binding (the system's CPUs changed under us).
std::atomic<bool> lost{false};
/// The pool the calling thread is (0: none) and its CPUs.
thread_local uint64_t myPool = 0;
thread_local CpuList myCpus;
/// The binding the calling thread last took (a pool thread: its own; an
/// OpenMP thread: that of the region it serves) and its CPUs.
thread_local uint64_t heldPool = 0;
thread_local const CpuList *heldCpus = nullptr;
} // namespace

bool easyml::rt::becomePoolThread(const CpuList &cpus) {
  // LLVM's OpenMP resets a thread's CPUs at its first region (num_threads
  // (1) is enough; a region with if(0) is not), to those of the thread
  // whose region started OpenMP: both happen here, unbound, and the
  // binding then stays. The volatile store keeps the optimizer from
  // deleting the region. GNU's OpenMP needs none of this and is not hurt.
  volatile bool started = false;
#pragma omp parallel num_threads(1)
  started = true;
  {
    std::lock_guard<std::mutex> lock(processMutex);
    if (processCpus.empty())
      processCpus = allowedCpus();
  }
  if (!bindThisThread(cpus))
    return false;
  myCpus = cpus;
  myPool = heldPool = nextPool.fetch_add(1);
  heldCpus = &myCpus;
  return true;
}

bool easyml::rt::poolBindingLost() { return lost.load(); }

PoolBinding PoolBinding::current() {
  // A region nested in a pool's region keeps the pool's binding.
  PoolBinding b;
  b.id_ = heldPool;
  b.cpus_ = heldCpus;
  return b;
}

void PoolBinding::hold() const {
  if (heldPool == id_)
    return;
  bool bound;
  if (id_ != 0) {
    bound = bindThisThread(*cpus_);
  } else {
    std::lock_guard<std::mutex> lock(processMutex);
    bound = bindThisThread(processCpus);
  }
  if (!bound) {
    lost = true;
    return;
  }
  heldPool = id_;
  heldCpus = cpus_;
}
