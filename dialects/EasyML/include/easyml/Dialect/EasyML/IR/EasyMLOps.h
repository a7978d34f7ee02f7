//===- EasyMLOps.h - easyml dialect operations ----------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DIALECT_EASYML_IR_EASYMLOPS_H
#define EASYML_DIALECT_EASYML_IR_EASYMLOPS_H

#include "easyml/Dialect/EasyML/IR/EasyMLDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "easyml/Dialect/EasyML/IR/EasyMLEnums.h.inc"

namespace easyml {
/// Whether kernels of `kind` run on a GPU (cuda, rocm).
inline bool isGpuVariant(VariantKind kind) {
  return kind == VariantKind::cuda || kind == VariantKind::rocm;
}
} // namespace easyml

#define GET_ATTRDEF_CLASSES
#include "easyml/Dialect/EasyML/IR/EasyMLAttrs.h.inc"

namespace easyml {
class InitOp;
class ComputeOp;
class TableOp;
} // namespace easyml

#define GET_OP_CLASSES
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h.inc"

#endif // EASYML_DIALECT_EASYML_IR_EASYMLOPS_H
