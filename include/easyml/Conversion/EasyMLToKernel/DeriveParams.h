//===- DeriveParams.h - host code for derived parameters --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A parameter whose default is an expression of other parameters and flags
// (easyml.param with a `derived` region) follows them at run time. The
// runtime calls one host function per model whenever parameters change:
//
//   void easyml_<model>_derive_params(double *params, const int64_t *keep);
//
// It recomputes, in dependency order and in place, every derived parameter
// whose keep[index] is 0 from the current values in params (parameters then
// flags, descriptor order); a kept one (set by the user) keeps its value and
// its own dependents follow it.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_CONVERSION_EASYMLTOKERNEL_DERIVEPARAMS_H
#define EASYML_CONVERSION_EASYMLTOKERNEL_DERIVEPARAMS_H

#include "easyml/Conversion/EasyMLToKernel/ModelLayout.h"

#include "mlir/IR/BuiltinOps.h"

namespace easyml {

/// Adds `layout.deriveParamsSymbol()` to `module` when `model` has derived
/// parameters (layout.derivedParams, same model).
void buildDeriveParams(ModelOp model, mlir::ModuleOp module,
                       const ModelLayout &layout);

} // namespace easyml

#endif // EASYML_CONVERSION_EASYMLTOKERNEL_DERIVEPARAMS_H
