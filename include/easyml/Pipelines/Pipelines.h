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

#include "easyml/Conversion/MathToVectorLibrary/VectorMath.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"
#include "easyml/Target/GpuCompileOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/Timing.h"

namespace easyml {

#define GEN_PASS_DECL
#include "easyml/Pipelines/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "easyml/Pipelines/Passes.h.inc"

/// easyml-gpu-modules-to-binary compiling as `gpu` says, with the
/// serialisation of each chip timed under `timing` (scopes
/// "gpu-<variant>-<chip>"), as easyml-compile reports it; `timing` must
/// outlive the pass.
std::unique_ptr<mlir::Pass>
createGpuModulesToBinary(const GpuCompileOptions &gpu,
                         mlir::TimingScope *timing);

struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  ListOption<std::string> variants{
      *this, "variants",
      llvm::cl::desc("variants to generate: baseline, cpu-simd, cuda, rocm "
                     "(default: baseline)")};
  Option<int64_t> vectorWidth{*this, "vector-width",
                              llvm::cl::desc("cells per vector of cpu-simd"),
                              llvm::cl::init(8)};
  Option<VectorIsa> vectorIsa{
      *this, "vector-isa",
      llvm::cl::desc("libmvec flavour: avx512, avx2, sse2 or none"),
      llvm::cl::init(VectorIsa::Avx512), vectorIsaValues()};
  Option<VectorMath> vectorMath{
      *this, "vector-math",
      llvm::cl::desc("vector math: libmvec or scalar (per-lane libm)"),
      llvm::cl::init(VectorMath::Libmvec), vectorMathValues()};
  Option<bool> tables{*this, "tables",
                      llvm::cl::desc("tabulate .lookup() expressions "
                                     "(false: evaluate them directly)"),
                      llvm::cl::init(true)};
  Option<bool> exactDivision{
      *this, "exact-division",
      llvm::cl::desc("keep divisions by cell-independent values (false: "
                     "products with their reciprocals, "
                     "easyml-reciprocal-divisors)"),
      llvm::cl::init(false)};
  Option<bool> wholeCell{
      *this, "whole-cell",
      llvm::cl::desc("integrate each cell, Vm included, as one adaptive "
                     "system (easyml-whole-cell)"),
      llvm::cl::init(false)};
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
  Option<bool> emulateGpuKernels{
      *this, "emulate-gpu-kernels",
      llvm::cl::desc("also compile every GPU kernel for the host as "
                     "<kernel>_host (easyml-copy-gpu-kernels-to-host), for "
                     "the test suite's emulated drivers"),
      llvm::cl::init(false)};
  ListOption<std::string> perCellParams{
      *this, "per-cell-params",
      llvm::cl::desc("parameters the GPU variants read per cell, or 'all'")};
  Option<bool> cvodePivoting{
      *this, "cvode-pivoting",
      llvm::cl::desc("partial pivoting in cvode iteration matrices"),
      llvm::cl::init(false)};
  Option<std::string> cvodeMethod{
      *this, "cvode-method",
      llvm::cl::desc("adaptive integrator of cvode groups: ros2 or rodas3"),
      llvm::cl::init("ros2")};
  Option<int64_t> cvodeJacobianAge{
      *this, "cvode-jacobian-age",
      llvm::cl::desc("time steps a cvode group's factorised iteration "
                     "matrix may be reused for (0: a new one every "
                     "sub-step)"),
      llvm::cl::init(0)};
  ListOption<std::string> cudaChips{
      *this, "cuda-chips",
      llvm::cl::desc("NVIDIA chips of the cuda variant (default: "
                     "sm_80,sm_90)")};
  ListOption<std::string> rocmChips{
      *this, "rocm-chips",
      llvm::cl::desc("AMD chips of the rocm variant (default: "
                     "gfx90a,gfx942)")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit (default: $CUDA_PATH, $CUDA_HOME, "
                     "/usr/local/cuda)")};
  Option<std::string> rocmPath{
      *this, "rocm-path",
      llvm::cl::desc("ROCm root (default: $ROCM_PATH, /opt/rocm, else "
                     "Debian's rocm-device-libs)")};
  Option<GpuFormat> gpuFormat{
      *this, "gpu-format",
      llvm::cl::desc("GPU code objects: fatbin, bin, isa or llvm (default: "
                     "fatbin for cuda, bin for rocm)"),
      llvm::cl::init(GpuFormat::Default), gpuFormatValues()};
  Option<bool> cudaSmemSpilling{
      *this, "cuda-smem-spilling",
      llvm::cl::desc("let ptxas spill registers to shared memory rather "
                     "than local memory (CUDA 12.8 and later)"),
      llvm::cl::init(true)};
  Option<bool> cudaRegisterCaps{
      *this, "cuda-register-caps",
      llvm::cl::desc("cap the registers of cuda kernels that spill nothing "
                     "where that raises their occupancy without spilling"),
      llvm::cl::init(true)};
  Option<bool> cudaMachineSink{
      *this, "cuda-machine-sink",
      llvm::cl::desc("keep LLVM's MachineSink on in the NVPTX back end "
                     "(easyml-serialize-gpu-modules)"),
      llvm::cl::init(false)};

  /// The GPU options, as the GPU stage takes them.
  GpuCompileOptions getGpuCompileOptions() const;
  /// Sets every GPU option from `gpu` (its optLevel aside: the pipeline
  /// compiles device code at 3).
  void setGpuCompileOptions(const GpuCompileOptions &gpu);
};

/// The stages of easyml-compile-pipeline, in order. easyml-compile runs
/// them one pass manager each (its --emit stops after one, and
/// --mlir-timing reports each); easyml-opt runs them as one pipeline.
enum class CompileStage {
  /// buildPreparePipeline.
  Prepare,
  /// easyml-lower-to-kernels: the kernels of every variant.
  Kernels,
  /// easyml-gpu-modules-to-binary, when a GPU variant is asked for.
  Gpu,
  /// buildKernelsToLLVMPipeline: host kernels to the LLVM dialect.
  Lower,
};

/// Adds `stage` of easyml-compile-pipeline to `pm`. `gpuTiming`, when
/// given, times each chip's serialisation (see createGpuModulesToBinary).
void buildCompileStage(mlir::OpPassManager &pm, CompileStage stage,
                       const PipelineOptions &options,
                       mlir::TimingScope *gpuTiming = nullptr);

/// GPU code objects from the `gpu.module`s of one vendor's kernels.
struct GpuPipelineOptions
    : public mlir::PassPipelineOptions<GpuPipelineOptions> {
  Option<Backend> target{*this, "target",
                         llvm::cl::desc("cuda (NVVM, PTX, cubin) or rocm "
                                        "(ROCDL, hsaco)"),
                         llvm::cl::init(Backend::Cuda), gpuBackendValues()};
  ListOption<std::string> chips{
      *this, "chips",
      llvm::cl::desc("chips to build for (default: sm_80,sm_90 for cuda; "
                     "gfx90a,gfx942 for rocm)")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit (ptxas, fatbinary, libdevice) or ROCm "
                     "root (amdgcn/bitcode, llvm/bin/ld.lld)")};
  Option<GpuFormat> format{
      *this, "format",
      llvm::cl::desc("code object format: fatbin (cuda: cubin + PTX), bin "
                     "(cuda: cubin; rocm: hsaco), isa (PTX / GCN assembly) "
                     "or llvm (default: fatbin for cuda, bin for rocm)"),
      llvm::cl::init(GpuFormat::Default), gpuFormatValues()};
  Option<unsigned> optLevel{*this, "O",
                            llvm::cl::desc("device code optimisation level"),
                            llvm::cl::init(3)};
  Option<bool> smemSpilling{
      *this, "smem-spilling",
      llvm::cl::desc("cuda: let ptxas spill registers to shared memory "
                     "(easyml-assemble-ptx; CUDA 12.8 and later)"),
      llvm::cl::init(true)};
  Option<bool> registerCaps{
      *this, "register-caps",
      llvm::cl::desc("cuda: cap the registers of kernels that spill nothing "
                     "for occupancy (easyml-assemble-ptx)"),
      llvm::cl::init(true)};
  Option<bool> machineSink{
      *this, "machine-sink",
      llvm::cl::desc("cuda: keep LLVM's MachineSink on in the NVPTX back "
                     "end (easyml-serialize-gpu-modules)"),
      llvm::cl::init(false)};

  /// How `target` is compiled: the chips and toolkit given are its own.
  GpuCompileOptions getGpuCompileOptions() const;
};

/// Every problem with a pipeline's options, one message each naming the
/// option (empty when they are fine). The registered pipelines report them
/// when they are parsed; tools that fill the options from their own flags
/// check those flags themselves.
std::vector<std::string> checkPipelineOptions(const PipelineOptions &options);
std::vector<std::string>
checkPipelineOptions(const GpuPipelineOptions &options);

/// Kernels in `gpu.module`s (easyml-lower-to-kernels with a GPU variant) to
/// `gpu.binary` ops holding one code object per chip: scf to cf, gpu/arith/
/// math to NVVM (libdevice) or ROCDL (ROCm device libraries), target
/// attributes, serialisation. Every gpu.module of the input is lowered for
/// `options.target`.
void buildGpuToBinaryPipeline(mlir::OpPassManager &pm,
                              const GpuPipelineOptions &options);

/// The first half of buildGpuToBinaryPipeline: kernels lowered to NVVM or
/// ROCDL for `backend`, no target attached yet.
void buildGpuLoweringPipeline(mlir::OpPassManager &pm, Backend backend,
                              const GpuCompileOptions &options);

/// The second half: a target per chip of `chips` attached, code objects
/// serialised.
void buildGpuSerializePipeline(mlir::OpPassManager &pm, Backend backend,
                               llvm::ArrayRef<std::string> chips,
                               const GpuCompileOptions &options);

/// A module of gpu.modules of one backend and how to compile it.
struct GpuCompileJob {
  mlir::ModuleOp module;
  Backend backend;
  const GpuCompileOptions *options;
  llvm::StringRef timingName; // "gpu-cuda": scopes "gpu-cuda-<chip>"
};

/// Runs buildGpuToBinaryPipeline on each module, with one serialisation
/// per (module, chip) on the context's threads: the device back ends and
/// ptxas are the slow part of a GPU build, and each chip's is independent.
/// Each module ends as if the pipeline had run on it (one gpu.binary per
/// gpu.module, an object per chip in its options' order).
mlir::LogicalResult compileGpuModules(llvm::ArrayRef<GpuCompileJob> modules,
                                      mlir::TimingScope &timing);

/// easyml dialect to easyml dialect: gates resolved, integrators expanded,
/// tables extracted, simplified.
void buildPreparePipeline(mlir::OpPassManager &pm,
                          const PipelineOptions &options);

/// Prepared easyml IR to the LLVM dialect: the Kernels, Gpu and Lower
/// stages.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm,
                              const PipelineOptions &options);

/// The Lower stage, after easyml-lower-to-kernels (and, with GPU variants,
/// easyml-gpu-modules-to-binary): host kernels to the LLVM dialect;
/// gpu.binary ops are kept.
void buildKernelsToLLVMPipeline(mlir::OpPassManager &pm,
                                const PipelineOptions &options);

/// Every stage: easyml IR to the LLVM dialect and, for GPU variants,
/// gpu.binary code objects. Exactly what easyml-compile runs.
void buildCompilePipeline(mlir::OpPassManager &pm,
                          const PipelineOptions &options);

/// Moves every `gpu.module` of `module` (tagged `easyml.variant` by
/// easyml-lower-to-kernels) into a module of its own, so the CPU and each
/// GPU vendor's pipelines can run separately. Returns (variant, module)
/// pairs in order.
std::vector<std::pair<VariantAttr, mlir::OwningOpRef<mlir::ModuleOp>>>
splitGpuModules(mlir::ModuleOp module);

/// Registers `easyml-prepare`, `easyml-lower-to-llvm`,
/// `easyml-kernels-to-llvm`, `easyml-compile-pipeline`,
/// `easyml-baseline-pipeline` and `easyml-gpu-to-binary` for easyml-opt.
void registerPipelines();

/// Registers the passes of the pipelines (easyml-gpu-modules-to-binary,
/// easyml-check-llvm-only).
void registerPipelinePasses();

} // namespace easyml

#endif // EASYML_PIPELINES_PIPELINES_H
