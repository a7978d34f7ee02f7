//===- Passes.h - passes serialising GPU code objects ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// easyml-serialize-gpu-modules (gpu-module-to-binary with the device back
// ends set up for easyml's kernels) and easyml-assemble-ptx (ptxas and
// fatbinary with shared-memory spilling and register caps).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TARGET_PASSES_H
#define EASYML_TARGET_PASSES_H

#include "easyml/Target/GpuCompileOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace easyml {

#define GEN_PASS_DECL
#include "easyml/Target/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "easyml/Target/Passes.h.inc"

} // namespace easyml

#endif // EASYML_TARGET_PASSES_H
