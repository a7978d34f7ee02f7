//===- DiffusionArgs.h - the diffusion argument struct as IR ---*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The diffusion entry (ABI 6) takes the runtime's easyml_diffusion_args
// (abi/include/easyml/ABI/ABI.h): CPU functions a pointer to it,
// GPU kernels the struct itself by value. These are its fields as the
// kernel lowering numbers them and their LLVM types; DiffusionArgs.cpp
// checks the numbering against the ABI header when the compiler is built.
// A field is read with structField (KernelArgs.h).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_LIB_CONVERSION_EASYMLTOKERNEL_DIFFUSIONARGS_H
#define EASYML_LIB_CONVERSION_EASYMLTOKERNEL_DIFFUSIONARGS_H

#include "mlir/IR/Builders.h"

namespace easyml::kernel {

/// Field numbers of easyml_diffusion_args.
enum DiffusionField {
  kDiffBegin = 0,
  kDiffEnd,
  kDiffSx,
  kDiffSy,
  kDiffSz,
  kDiffCx,
  kDiffCy,
  kDiffCz,
  kDiffV,
  kDiffOut,
  kDiffFlags,
  kDiffSrc,
  kDiffPrev,
  kDiffLat,
  kDiffCounts,
  kDiffThreshold,
  kDiffT1,
  kDiffDt,
  kNumDiffusionFields
};

/// The LLVM type of field `f` of easyml_diffusion_args.
mlir::Type diffusionFieldType(mlir::MLIRContext *ctx, int f);

/// easyml_diffusion_args as an LLVM struct: what GPU kernels take by value.
mlir::Type diffusionArgsStructType(mlir::MLIRContext *ctx);

} // namespace easyml::kernel

#endif // EASYML_LIB_CONVERSION_EASYMLTOKERNEL_DIFFUSIONARGS_H
