//===- MLIRGen.h - EasyML model to easyml dialect -------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_MLIRGEN_MLIRGEN_H
#define EASYML_MLIRGEN_MLIRGEN_H

#include "easyml/Frontend/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace easyml {

/// The MLIR location of `loc` in `sourceMgr` (file:line:col), or unknown.
mlir::Location toLocation(mlir::MLIRContext &context,
                          llvm::SourceMgr &sourceMgr, llvm::SMLoc loc);

/// Builds a module holding one `easyml.model` for `model`. Operations carry
/// `file:line:col` locations from `sourceMgr`, named after the variable they
/// define. Returns null (after emitting an MLIR diagnostic) if the result
/// does not verify.
mlir::OwningOpRef<mlir::ModuleOp> mlirGen(mlir::MLIRContext &context,
                                          const Model &model,
                                          llvm::SourceMgr &sourceMgr);

} // namespace easyml

#endif // EASYML_MLIRGEN_MLIRGEN_H
