//===- MathToVectorLibrary.h - vector math to libmvec calls ----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The patterns of easyml-convert-math-to-veclib, for other conversions to
// reuse: math on 1-D vectors of f64 to LLVM intrinsics, glibc's vector
// functions (libmvec) or the scalar operation per lane.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_CONVERSION_MATHTOVECTORLIBRARY_MATHTOVECTORLIBRARY_H
#define EASYML_CONVERSION_MATHTOVECTORLIBRARY_MATHTOVECTORLIBRARY_H

#include "easyml/Conversion/MathToVectorLibrary/VectorMath.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace easyml {

/// Whether `op` is math on a 1-D vector of f64: what the patterns below
/// convert (illegal in the conversion's target).
bool isVectorF64Math(mlir::Operation *op);

/// Adds the patterns converting math on 1-D vectors of f64 (the others
/// fail to match): the LLVM intrinsic where there is one; a transcendental
/// function a call of `_ZGV<isa>N<width><v...>_<fn>` per part of the
/// vector when `library` and `isa` have a variant whose width divides its
/// length (declared in the enclosing module where missing); else the scalar
/// operation on each lane.
void populateMathToVectorLibraryPatterns(mlir::RewritePatternSet &patterns,
                                         VectorMath library, VectorIsa isa);

/// Declares, at the start of `module`, the libmvec functions the patterns
/// call for the math in `module`, in the order of the operations (post
/// order), so that the declarations do not depend on the order in which a
/// conversion visits the operations.
void declareVectorLibraryFunctions(mlir::ModuleOp module, VectorMath library,
                                   VectorIsa isa);

} // namespace easyml

#endif // EASYML_CONVERSION_MATHTOVECTORLIBRARY_MATHTOVECTORLIBRARY_H
