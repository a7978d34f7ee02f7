//===- MpiOptions.cpp - the MPI options the tools share -------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Apps/MpiOptions.h"

#include <cstdlib>

using namespace easyml::rt;

Status easyml::rt::parseSlowRank(const std::string &value, SlowRank &out) {
  size_t colon = value.find(':');
  char *end1 = nullptr, *end2 = nullptr;
  long r = colon == std::string::npos || colon == 0
               ? -1
               : std::strtol(value.substr(0, colon).c_str(), &end1, 10);
  double f = colon == std::string::npos
                 ? 0
                 : std::strtod(value.c_str() + colon + 1, &end2);
  if (r < 0 || *end1 || *end2 || r > (1 << 20) || !(f >= 1) || f > 1e6)
    return Status::invalid(
        "--mpi-slow: expected RANK:FACTOR with FACTOR >= 1, got '" + value +
        "'");
  out.rank = static_cast<int>(r);
  out.factor = f;
  return Status::success();
}

Status easyml::rt::checkSlowRank(const SlowRank &slow, int ranks) {
  if (slow.rank < ranks)
    return Status::success();
  return Status::invalid("--mpi-slow: rank " + std::to_string(slow.rank) +
                         " of " + std::to_string(ranks) + " rank(s)");
}
