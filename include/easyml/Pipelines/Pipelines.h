//===- Pipelines.h - the compilation pipelines ----------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// One builder function per stage and target, shared by easyml-opt (which
// registers them as named pipelines) and easyml-compile.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_PIPELINES_PIPELINES_H
#define EASYML_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace easyml {

struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  ListOption<std::string> variants{
      *this, "variants",
      llvm::cl::desc("variants to generate: baseline, cpu-simd (default: "
                     "baseline)")};
  Option<int64_t> vectorWidth{*this, "vector-width",
                              llvm::cl::desc("cells per vector of cpu-simd"),
                              llvm::cl::init(8)};
  Option<std::string> vectorIsa{
      *this, "vector-isa",
      llvm::cl::desc("libmvec flavour: avx512, avx2, sse2 or none"),
      llvm::cl::init("avx512")};
  Option<std::string> vectorMath{
      *this, "vector-math",
      llvm::cl::desc("vector math: libmvec or scalar (per-lane libm)"),
      llvm::cl::init("libmvec")};
  Option<bool> tables{*this, "tables",
                      llvm::cl::desc("tabulate .lookup() expressions "
                                     "(false: evaluate them directly)"),
                      llvm::cl::init(true)};
  Option<double> cvodeRelTol{*this, "cvode-rtol",
                             llvm::cl::desc("relative tolerance of cvode "
                                            "groups"),
                             llvm::cl::init(1e-6)};
  Option<double> cvodeAbsTol{*this, "cvode-atol",
                             llvm::cl::desc("absolute tolerance of cvode "
                                            "groups"),
                             llvm::cl::init(1e-9)};
  Option<int64_t> cvodeMaxSubsteps{
      *this, "cvode-max-substeps",
      llvm::cl::desc("most sub-steps of a cvode group per time step"),
      llvm::cl::init(5000)};
};

/// easyml dialect to easyml dialect: gates resolved, integrators expanded,
/// tables extracted, simplified.
void buildPreparePipeline(mlir::OpPassManager &pm,
                          const PipelineOptions &options);

/// Prepared easyml IR to the LLVM dialect: kernels for `options.variant`,
/// then upstream conversions.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const PipelineOptions &options);

/// Both of the above.
void buildCompilePipeline(mlir::OpPassManager &pm,
                          const PipelineOptions &options);

/// Registers `easyml-prepare`, `easyml-lower-to-llvm` and
/// `easyml-baseline-pipeline` for easyml-opt.
void registerPipelines();

/// Registers the EasyML check pass used at the end of the pipelines.
void registerCheckPasses();

} // namespace easyml

#endif // EASYML_PIPELINES_PIPELINES_H
