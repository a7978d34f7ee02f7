//===- KernelArgs.h - the kernel argument struct as IR ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Every entry point takes the runtime's easyml_kernel_args
// (abi/include/easyml/ABI/ABI.h): CPU functions a pointer to it,
// GPU kernels the struct itself by value. These are its fields as the
// kernel lowering numbers them, their LLVM types, and the access to one
// field either way. KernelArgs.cpp checks the numbering against the ABI
// header when the compiler is built.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_LIB_CONVERSION_EASYMLTOKERNEL_KERNELARGS_H
#define EASYML_LIB_CONVERSION_EASYMLTOKERNEL_KERNELARGS_H

#include "mlir/IR/Builders.h"

namespace easyml::kernel {

/// Field numbers of easyml_kernel_args (abi/include/easyml/ABI/ABI.h).
enum ArgField {
  kBegin = 0,
  kEnd,
  kNSteps,
  kStep0,
  kDt,
  kStim,
  kIntegrateVm,
  kStride,
  kSv,
  kExt,
  kParams,
  kTables,
  kCounters,
  kOut,
  kParamRows,
  kRec,
  kRecSlot,
  kRecNum,
  kRecBegin,
  kRecEnd,
  kRecStride,
  kRecFirst,
  kRecEvery,
  kRecSamples,
  kRecTraces,
  kBio,
  kBioCa,
  kOneInterval,
  kVmBefore,
  kNumArgFields
};

/// The LLVM type of field `f` of easyml_kernel_args.
mlir::Type argFieldType(mlir::MLIRContext *ctx, int f);

/// easyml_kernel_args as an LLVM struct: what GPU kernels take by value.
mlir::Type argsStructType(mlir::MLIRContext *ctx);

/// Field `f` of an argument struct whose fields are all 8 bytes wide
/// (easyml_kernel_args, easyml_diffusion_args), of type `t`: a load through
/// the pointer CPU entry points take, or a member of the struct GPU kernels
/// take by value (a constant-bank operand, no register held for it).
mlir::Value structField(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value args, int f, mlir::Type t);

/// Field `f` of the kernel arguments `args`, of type `t` (structField).
inline mlir::Value argField(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value args, ArgField f, mlir::Type t) {
  return structField(b, loc, args, f, t);
}

} // namespace easyml::kernel

#endif // EASYML_LIB_CONVERSION_EASYMLTOKERNEL_KERNELARGS_H
