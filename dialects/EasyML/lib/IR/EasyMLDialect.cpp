//===- EasyMLDialect.cpp - easyml dialect ---------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/IR/EasyMLDialect.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace easyml;

#include "easyml/Dialect/EasyML/IR/EasyMLOpsDialect.cpp.inc"

#include "easyml/Dialect/EasyML/IR/EasyMLEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "easyml/Dialect/EasyML/IR/EasyMLAttrs.cpp.inc"

void EasyMLDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "easyml/Dialect/EasyML/IR/EasyMLAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "easyml/Dialect/EasyML/IR/EasyMLOps.cpp.inc"
      >();
}
