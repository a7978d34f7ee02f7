//===- Passes.h - easyml dialect passes -----------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DIALECT_EASYML_TRANSFORMS_PASSES_H
#define EASYML_DIALECT_EASYML_TRANSFORMS_PASSES_H

#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

#include <string>
#include <vector>

namespace easyml {

#define GEN_PASS_DECL
#include "easyml/Dialect/EasyML/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "easyml/Dialect/EasyML/Transforms/Passes.h.inc"

/// Every problem with easyml-expand-integrators' options, one message each
/// naming the option and its value (empty when they are fine). Shared by
/// the pass and the pipelines that set them.
std::vector<std::string> checkIntegratorOptions(double cvodeRelTol,
                                                double cvodeAbsTol,
                                                int64_t cvodeMaxSubsteps,
                                                int64_t cvodeJacobianAge,
                                                const std::string &cvodeMethod);

} // namespace easyml

#endif // EASYML_DIALECT_EASYML_TRANSFORMS_PASSES_H
