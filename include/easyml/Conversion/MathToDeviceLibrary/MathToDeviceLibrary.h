//===- MathToDeviceLibrary.h - math the GPU lowerings miss -----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The patterns of easyml-convert-math-to-device-lib: f64 math that the
// upstream NVVM and ROCDL lowerings leave alone, to calls of the vendor's
// device library (libdevice `__nv_<fn>`, ROCm `__ocml_<fn>_f64`).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_CONVERSION_MATHTODEVICELIBRARY_MATHTODEVICELIBRARY_H
#define EASYML_CONVERSION_MATHTODEVICELIBRARY_MATHTODEVICELIBRARY_H

#include "easyml/ABI/Backend.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace easyml {

/// Makes f64 acos, asin, acosh, asinh, atanh, cosh and sinh illegal in
/// `target`: the operations the patterns below convert.
void configureMathToDeviceLibraryTarget(mlir::ConversionTarget &target);

/// Adds the patterns converting those operations into calls of `target`'s
/// device library (a GPU backend), declared in the enclosing gpu.module
/// where missing.
void populateMathToDeviceLibraryPatterns(mlir::RewritePatternSet &patterns,
                                         Backend target);

/// Declares, at the start of `module`, the device functions the patterns
/// call for the math in it, in the order of the operations (post order),
/// so that the declarations do not depend on the order in which a
/// conversion visits the operations.
void declareDeviceLibraryFunctions(mlir::gpu::GPUModuleOp module,
                                   Backend target);

} // namespace easyml

#endif // EASYML_CONVERSION_MATHTODEVICELIBRARY_MATHTODEVICELIBRARY_H
