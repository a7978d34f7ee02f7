//===- Passes.h - conversions out of the easyml dialect -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_CONVERSION_PASSES_H
#define EASYML_CONVERSION_PASSES_H

#include "easyml/Conversion/MathToVectorLibrary/VectorMath.h"
#include "easyml/Support/EnumOption.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace easyml {

/// Marks the `scf.parallel` over a kernel's cells (easyml-lower-to-kernels);
/// easyml-map-cells-to-gpu-threads maps it in GPU kernels.
constexpr llvm::StringLiteral kCellLoopAttr = "easyml.cells";

/// Marks an `llvm.load` in a cell loop that only the cells being computed
/// may do (the diffusion entry's reads, which may be at the edge of the
/// caller's memory): easyml-vectorize-cells makes it a masked load of the
/// active lanes rather than a load of every lane.
constexpr llvm::StringLiteral kMaskedLoadAttr = "easyml.masked_load";

#define GEN_PASS_DECL
#include "easyml/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "easyml/Conversion/Passes.h.inc"

/// For passes whose options need checks beyond parsing: parses `options`,
/// then reports `pass.checkOptions()` (the problem, or "") through the
/// pipeline parser's error handler, so a bad option is one line when the
/// pipeline is parsed rather than a failure with an IR dump when it runs.
template <typename PassT>
mlir::LogicalResult initializeCheckedOptions(
    PassT &pass, llvm::StringRef options,
    llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
  if (mlir::failed(pass.mlir::Pass::initializeOptions(options, errorHandler)))
    return mlir::failure();
  std::string problem = pass.checkOptions();
  return problem.empty() ? mlir::success() : errorHandler(problem);
}

} // namespace easyml

#endif // EASYML_CONVERSION_PASSES_H
