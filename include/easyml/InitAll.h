//===- InitAll.h - register what EasyML tools use -------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The one place that lists the dialects and passes EasyML tools register, so
// easyml-opt and easyml-compile agree and each links only what it needs.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_INITALL_H
#define EASYML_INITALL_H

#include "easyml/Conversion/Passes.h"
#include "easyml/Dialect/EasyML/IR/EasyMLDialect.h"
#include "easyml/Dialect/EasyML/Interfaces/DifferentiableOpInterface.h"
#include "easyml/Dialect/EasyML/Transforms/Passes.h"
#include "easyml/Pipelines/Pipelines.h"
#include "easyml/Target/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

namespace easyml {

/// Registers the easyml dialect and the upstream dialects its IR uses, with
/// the derivative rules of the arith and math operations, and what GPU code
/// generation needs: the NVVM and ROCDL targets (serialising
/// gpu.modules) and the translations of their dialects to LLVM IR.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<EasyMLDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect, mlir::func::FuncDialect,
                  mlir::cf::ControlFlowDialect, mlir::LLVM::LLVMDialect,
                  mlir::vector::VectorDialect, mlir::gpu::GPUDialect,
                  mlir::NVVM::NVVMDialect, mlir::ROCDL::ROCDLDialect>();
  registerDifferentiableOpInterfaceExternalModels(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  mlir::registerROCDLDialectTranslation(registry);
}

/// Registers the EasyML passes and the upstream passes the project uses.
inline void registerAllPasses() {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  mlir::registerInlinerPass();
  easyml::registerEasyMLPasses();
  easyml::registerEasyMLConversionPasses();
  easyml::registerEasyMLTargetPasses();
  easyml::registerPipelinePasses();
  easyml::registerPipelines();
}

} // namespace easyml

#endif // EASYML_INITALL_H
