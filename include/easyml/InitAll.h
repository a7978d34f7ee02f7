//===- InitAll.h - register what EasyML tools use -------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The one place that lists the dialects and passes EasyML tools register, so
// easyml-opt and easyml-compile agree and each links only what it needs.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_INITALL_H
#define EASYML_INITALL_H

#include "easyml/Dialect/EasyML/IR/EasyMLDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace easyml {

/// Registers the easyml dialect and the upstream dialects its IR uses.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<EasyMLDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect>();
}

/// Registers the EasyML passes and the upstream passes the project uses.
inline void registerAllPasses() {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  mlir::registerInlinerPass();
}

} // namespace easyml

#endif // EASYML_INITALL_H
