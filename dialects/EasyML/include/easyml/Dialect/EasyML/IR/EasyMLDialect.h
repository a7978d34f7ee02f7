//===- EasyMLDialect.h - easyml dialect -----------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DIALECT_EASYML_IR_EASYMLDIALECT_H
#define EASYML_DIALECT_EASYML_IR_EASYMLDIALECT_H

#include "mlir/IR/Dialect.h"

#include "easyml/Dialect/EasyML/IR/EasyMLOpsDialect.h.inc"

#endif // EASYML_DIALECT_EASYML_IR_EASYMLDIALECT_H
