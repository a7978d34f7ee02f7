//===- LowerOpaque.h - easyml.opaque to inline assembly --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The pattern of easyml-lower-opaque, for other conversions to reuse.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_CONVERSION_EASYMLTOKERNEL_LOWEROPAQUE_H
#define EASYML_CONVERSION_EASYMLTOKERNEL_LOWEROPAQUE_H

#include "easyml/ABI/Backend.h"

#include "mlir/Transforms/DialectConversion.h"

namespace easyml {

/// Adds the pattern converting easyml.opaque into an empty inline-assembly
/// statement whose result is tied to its operand in a register of
/// `target`.
void populateLowerOpaquePatterns(mlir::RewritePatternSet &patterns,
                                 Backend target);

} // namespace easyml

#endif // EASYML_CONVERSION_EASYMLTOKERNEL_LOWEROPAQUE_H
