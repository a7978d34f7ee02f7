//===- EasyMLOps.h - easyml dialect operations ----------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DIALECT_EASYML_IR_EASYMLOPS_H
#define EASYML_DIALECT_EASYML_IR_EASYMLOPS_H

#include "easyml/Dialect/EasyML/IR/EasyMLDialect.h"
#include "easyml/ABI/Backend.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/ErrorHandling.h"

#include "easyml/Dialect/EasyML/IR/EasyMLEnums.h.inc"

namespace easyml {
/// The backend kernels of `kind` run on. A variant is a shape of code
/// (baseline and cpu-simd differ in layout and width, not in where they
/// run); this is the one place that says where each runs.
inline Backend backendOf(VariantKind kind) {
  switch (kind) {
  case VariantKind::baseline:
  case VariantKind::cpu_simd:
    return Backend::Cpu;
  case VariantKind::cuda:
    return Backend::Cuda;
  case VariantKind::rocm:
    return Backend::Rocm;
  }
  llvm_unreachable("unknown variant kind");
}

/// Whether kernels of `kind` run on a GPU (cuda, rocm).
inline bool isGpuVariant(VariantKind kind) {
  return backendOf(kind) != Backend::Cpu;
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
