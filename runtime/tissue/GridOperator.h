//===- GridOperator.h - a tissue's operator on the host ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The diffusion operator of a structured grid on the host's threads, in
// one process: the model's CPU diffusion entry over chunks of points, and
// dot products whose chunks' partial sums are added in chunk order, so
// results do not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_TISSUE_GRIDOPERATOR_H
#define EASYML_RUNTIME_TISSUE_GRIDOPERATOR_H

#include "easyml/Runtime/Tissue/Tissue.h"

#include <cstdint>
#include <vector>

namespace easyml::rt {

class GridOperator {
public:
  /// Points per parallel chunk.
  static constexpr int64_t kChunk = 8192;

  GridOperator(const TissueGrid &grid, const std::vector<uint8_t> &flags,
               const TissueOptions &options, const Tissue::DiffuseFn &diffuse)
      : grid_(grid), flags_(flags), options_(options), diffuse_(diffuse) {}

  /// out = v + c . L v (+ src) at every grid point.
  void apply(const double *v, double *out, const double c[3],
             const double *src) const;
  /// The dot product of two vectors of every grid point.
  double dot(const double *a, const double *b) const;

private:
  const TissueGrid &grid_;
  const std::vector<uint8_t> &flags_;
  const TissueOptions &options_;
  const Tissue::DiffuseFn &diffuse_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_TISSUE_GRIDOPERATOR_H
