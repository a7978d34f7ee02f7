//===- Pipelines.cpp - the compilation pipelines --------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Pipelines/Pipelines.h"

#include "easyml/Conversion/Passes.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"
#include "easyml/Dialect/EasyML/Transforms/Passes.h"
#include "easyml/Target/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace easyml;

void easyml::buildPreparePipeline(OpPassManager &pm,
                                  const PipelineOptions &options) {
  OpPassManager &model = pm.nest<ModelOp>();
  if (options.wholeCell)
    model.addPass(createWholeCell());
  model.addPass(createResolveGates());
  model.addPass(createExpandPowers());
  ExpandIntegratorsOptions expand;
  expand.cvodeRelTol = options.cvodeRelTol;
  expand.cvodeAbsTol = options.cvodeAbsTol;
  expand.cvodeMaxSubsteps = options.cvodeMaxSubsteps;
  expand.cvodePivoting = options.cvodePivoting;
  expand.cvodeJacobianAge = options.cvodeJacobianAge;
  expand.cvodeMethod = options.cvodeMethod;
  model.addPass(createExpandIntegrators(expand));
  // After the integrators: their divisions by dt and by parameters too.
  if (!options.exactDivision)
    model.addPass(createReciprocalDivisors());
  model.addPass(createCanonicalizerPass());
  model.addPass(createCSEPass());
  if (options.tables)
    model.addPass(createExtractTables());
}

void easyml::buildCompileStage(OpPassManager &pm, CompileStage stage,
                               const PipelineOptions &options,
                               TimingScope *gpuTiming) {
  std::vector<std::string> variants(options.variants.begin(),
                                    options.variants.end());
  switch (stage) {
  case CompileStage::Prepare:
    buildPreparePipeline(pm, options);
    return;
  case CompileStage::Kernels: {
    LowerToKernelsOptions lower;
    lower.variants = variants; // copied by createLowerToKernels
    lower.vectorWidth = options.vectorWidth;
    std::vector<std::string> perCell(options.perCellParams.begin(),
                                     options.perCellParams.end());
    lower.perCellParams = perCell; // copied by createLowerToKernels
    pm.addPass(createLowerToKernels(lower));
    pm.addPass(createLowerRecording());
    pm.addPass(createLowerBiomarkers());
    pm.addPass(createVectorizeCells());
    if (options.emulateGpuKernels)
      pm.addPass(createCopyGpuKernelsToHost());
    return;
  }
  case CompileStage::Gpu: {
    if (llvm::none_of(variants, [](StringRef v) {
          std::optional<VariantKind> kind = symbolizeVariantKind(v);
          return kind && isGpuVariant(*kind);
        }))
      return;
    pm.addPass(
        createGpuModulesToBinary(options.getGpuCompileOptions(), gpuTiming));
    return;
  }
  case CompileStage::Lower:
    buildKernelsToLLVMPipeline(pm, options);
    return;
  }
}

void easyml::buildLowerToLLVMPipeline(OpPassManager &pm,
                                      const PipelineOptions &options) {
  for (CompileStage stage :
       {CompileStage::Kernels, CompileStage::Gpu, CompileStage::Lower})
    buildCompileStage(pm, stage, options);
}

void easyml::buildKernelsToLLVMPipeline(OpPassManager &pm,
                                        const PipelineOptions &options) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  ConvertMathToVectorLibraryOptions vecMath;
  vecMath.library = options.vectorMath;
  vecMath.isa = options.vectorIsa;
  pm.addPass(createConvertMathToVectorLibrary(vecMath));
  pm.addPass(createLowerOpaque()); // in host copies of GPU kernels
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCheckLLVMOnly());
}

GpuCompileOptions PipelineOptions::getGpuCompileOptions() const {
  GpuCompileOptions gpu;
  gpu.cuda.chips.assign(cudaChips.begin(), cudaChips.end());
  gpu.cuda.toolkit = cudaPath;
  gpu.rocm.chips.assign(rocmChips.begin(), rocmChips.end());
  gpu.rocm.toolkit = rocmPath;
  gpu.format = gpuFormat;
  gpu.smemSpilling = cudaSmemSpilling;
  gpu.registerCaps = cudaRegisterCaps;
  gpu.machineSink = cudaMachineSink;
  return gpu;
}

void PipelineOptions::setGpuCompileOptions(const GpuCompileOptions &gpu) {
  cudaChips = gpu.cuda.chips;
  cudaPath = gpu.cuda.toolkit;
  rocmChips = gpu.rocm.chips;
  rocmPath = gpu.rocm.toolkit;
  gpuFormat = gpu.format;
  cudaSmemSpilling = gpu.smemSpilling;
  cudaRegisterCaps = gpu.registerCaps;
  cudaMachineSink = gpu.machineSink;
}

GpuCompileOptions GpuPipelineOptions::getGpuCompileOptions() const {
  GpuCompileOptions gpu;
  GpuCompileOptions::BackendOptions &own = gpu.of(target);
  own.chips.assign(chips.begin(), chips.end());
  own.toolkit = toolkit;
  gpu.format = format;
  gpu.optLevel = optLevel;
  gpu.smemSpilling = smemSpilling;
  gpu.registerCaps = registerCaps;
  gpu.machineSink = machineSink;
  return gpu;
}

void easyml::buildGpuLoweringPipeline(OpPassManager &pm, Backend backend,
                                      const GpuCompileOptions &options) {
  bool rocm = backend == Backend::Rocm;
  std::vector<std::string> chips = options.chipsFor(backend);
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // One thread per cell first: scf-to-cf would run the cell loop in order.
  kernels.addPass(createMapCellsToGpuThreads());
  LowerOpaqueOptions opaque;
  opaque.target = backend;
  kernels.addPass(createLowerOpaque(opaque));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createConvertSCFToCFPass());
  kernels.addPass(createKeepInvariantsInLoops());
  ConvertMathToDeviceLibraryOptions deviceMath;
  deviceMath.target = backend;
  kernels.addPass(createConvertMathToDeviceLibrary(deviceMath));
  if (rocm) {
    kernels.addPass(createLowerGpuOpsToROCDLOpsPass(
        chips.front(), kDeriveIndexBitwidthFromDataLayout,
        /*useBarePtrCallConv=*/false, gpu::amd::Runtime::HIP));
  } else {
    kernels.addPass(createConvertGpuOpsToNVVMOps());
  }
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

void easyml::buildGpuSerializePipeline(OpPassManager &pm, Backend backend,
                                       ArrayRef<std::string> chips,
                                       const GpuCompileOptions &options) {
  bool rocm = backend == Backend::Rocm;
  for (const std::string &chip : chips) {
    if (rocm) {
      GpuROCDLAttachTargetOptions attach;
      attach.chip = chip;
      attach.optLevel = options.optLevel;
      pm.addPass(createGpuROCDLAttachTarget(attach));
    } else {
      GpuNVVMAttachTargetOptions attach;
      attach.chip = chip;
      attach.optLevel = options.optLevel;
      pm.addPass(createGpuNVVMAttachTarget(attach));
    }
  }
  SerializeGpuModulesOptions binary;
  binary.toolkit = options.of(backend).toolkit;
  binary.machineSink = options.machineSink;
  GpuFormat format = options.formatFor(backend);
  // CUDA: PTX from LLVM, assembled by our own step (which can ask ptxas
  // for what LLVM 19 cannot write in PTX).
  bool ownAssembler = !rocm && format != GpuFormat::Llvm;
  binary.format = ownAssembler ? GpuFormat::Isa : format;
  pm.addPass(createSerializeGpuModules(binary));
  if (ownAssembler) {
    AssemblePtxOptions assemble;
    assemble.cudaPath = options.of(backend).toolkit;
    assemble.format = format;
    assemble.optLevel = options.optLevel;
    assemble.smemSpilling = options.smemSpilling;
    assemble.registerCaps = options.registerCaps;
    pm.addPass(createAssemblePtx(assemble));
  }
}

void easyml::buildGpuToBinaryPipeline(OpPassManager &pm,
                                      const GpuPipelineOptions &options) {
  GpuCompileOptions gpu = options.getGpuCompileOptions();
  buildGpuLoweringPipeline(pm, options.target, gpu);
  buildGpuSerializePipeline(pm, options.target, gpu.chipsFor(options.target),
                            gpu);
}

std::vector<std::string>
easyml::checkPipelineOptions(const PipelineOptions &options) {
  std::vector<std::string> problems;
  for (const std::string &v : options.variants)
    if (!symbolizeVariantKind(v))
      problems.push_back("variants: unknown variant '" + v +
                         "' (baseline, cpu-simd, cuda, rocm)");
  if (options.vectorWidth < 1 || options.vectorWidth > 64)
    problems.push_back("vector-width must be between 1 and 64, got " +
                       std::to_string(options.vectorWidth));
  if (const std::optional<std::string> &isa = unknownValue(options.vectorIsa))
    problems.push_back("vector-isa: unknown '" + *isa +
                       "' (avx512, avx2, sse2 or none)");
  if (const std::optional<std::string> &math = unknownValue(options.vectorMath))
    problems.push_back("vector-math: unknown '" + *math +
                       "' (libmvec or scalar)");
  llvm::append_range(problems, checkIntegratorOptions(options.cvodeRelTol,
                                                      options.cvodeAbsTol,
                                                      options.cvodeMaxSubsteps,
                                                      options.cvodeJacobianAge,
                                                      options.cvodeMethod));
  GpuCompileOptions gpu = options.getGpuCompileOptions();
  checkGpuChips(gpu, Backend::Cuda, "cuda-chips", problems);
  if (const std::optional<std::string> &bad = unknownValue(options.gpuFormat))
    problems.push_back(unknownGpuFormat("gpu-format", *bad));
  checkGpuChips(gpu, Backend::Rocm, "rocm-chips", problems);
  return problems;
}

std::vector<std::string>
easyml::checkPipelineOptions(const GpuPipelineOptions &options) {
  std::vector<std::string> problems;
  // The chips of an unknown target are not checked.
  if (const std::optional<std::string> &bad = unknownValue(options.target))
    problems.push_back("target: unknown '" + *bad + "' (cuda or rocm)");
  else
    checkGpuChips(options.getGpuCompileOptions(), options.target, "chips",
                  problems);
  if (const std::optional<std::string> &bad = unknownValue(options.format))
    problems.push_back(unknownGpuFormat("format", *bad));
  if (options.optLevel > 3)
    problems.push_back("O must be 0 to 3, got " +
                       std::to_string(options.optLevel));
  return problems;
}

/// Registers a pipeline whose options are checked when it is parsed: every
/// problem is reported at once, rather than a pass failing on the IR.
template <typename Options>
static void registerCheckedPipeline(
    StringRef arg, StringRef description,
    std::function<void(OpPassManager &, const Options &)> builder) {
  registerPassPipeline(
      arg, description,
      [arg = arg.str(),
       builder](OpPassManager &pm, StringRef text,
                function_ref<LogicalResult(const Twine &)> errorHandler) {
        Options options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::vector<std::string> problems = checkPipelineOptions(options);
        if (!problems.empty())
          return errorHandler("bad options of " + arg + ":\n  " +
                              llvm::join(problems, "\n  "));
        builder(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}

void easyml::buildCompilePipeline(OpPassManager &pm,
                                  const PipelineOptions &options) {
  for (CompileStage stage : {CompileStage::Prepare, CompileStage::Kernels,
                             CompileStage::Gpu, CompileStage::Lower})
    buildCompileStage(pm, stage, options);
}

void easyml::registerPipelinePasses() { registerEasyMLPipelinesPasses(); }

void easyml::registerPipelines() {
  registerCheckedPipeline<PipelineOptions>(
      "easyml-prepare",
      "resolve gates, expand integrators and extract lookup tables",
      buildPreparePipeline);
  registerCheckedPipeline<PipelineOptions>(
      "easyml-lower-to-llvm",
      "lower prepared easyml IR to kernels in the LLVM dialect",
      buildLowerToLLVMPipeline);
  registerCheckedPipeline<PipelineOptions>(
      "easyml-kernels-to-llvm",
      "the Lower stage: host kernels (easyml-lower-to-kernels) to the LLVM "
      "dialect, vector math to libmvec or libm, gpu.binary kept",
      buildKernelsToLLVMPipeline);
  registerCheckedPipeline<PipelineOptions>(
      "easyml-compile-pipeline",
      "easyml IR to the kernels of the requested variants: the LLVM "
      "dialect, and a gpu.binary per GPU variant (what easyml-compile runs)",
      buildCompilePipeline);
  registerCheckedPipeline<GpuPipelineOptions>(
      "easyml-gpu-to-binary",
      "GPU kernels (easyml-lower-to-kernels variants=cuda or rocm) to code "
      "objects for the given chips",
      buildGpuToBinaryPipeline);
  registerCheckedPipeline<PipelineOptions>(
      "easyml-baseline-pipeline",
      "easyml IR to the baseline variant's kernels in the LLVM dialect",
      buildCompilePipeline);
}
