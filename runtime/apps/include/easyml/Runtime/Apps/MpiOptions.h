//===- MpiOptions.h - the MPI options the tools share ----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Options every runtime tool takes under mpirun, with one parser and one
// wording of their errors.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_APPS_MPIOPTIONS_H
#define EASYML_RUNTIME_APPS_MPIOPTIONS_H

#include "easyml/Runtime/Support/Status.h"

#include <string>

namespace easyml::rt {

/// --mpi-slow RANK:FACTOR, for testing the balance across ranks: that rank
/// takes FACTOR times as long. Rank -1: no rank slowed.
struct SlowRank {
  int rank = -1;
  double factor = 1;
};

/// `value` ("RANK:FACTOR", FACTOR >= 1) into `out`; an Invalid error
/// quoting it otherwise.
Status parseSlowRank(const std::string &value, SlowRank &out);

/// An Invalid error when `slow` names no rank of `ranks`.
Status checkSlowRank(const SlowRank &slow, int ranks);

} // namespace easyml::rt

#endif // EASYML_RUNTIME_APPS_MPIOPTIONS_H
