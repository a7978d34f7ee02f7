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

namespace easyml {

#define GEN_PASS_DECL
#include "easyml/Dialect/EasyML/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "easyml/Dialect/EasyML/Transforms/Passes.h.inc"

} // namespace easyml

#endif // EASYML_DIALECT_EASYML_TRANSFORMS_PASSES_H
