//===- HostCpus.cpp - which CPUs two host pools compute on ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/HostCpus.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

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
