//===- Pipelines.cpp - the compilation pipelines --------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Pipelines/Pipelines.h"

#include "easyml/Conversion/Passes.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"
#include "easyml/Dialect/EasyML/Transforms/Passes.h"
#include "easyml/Target/ModelObject.h"
#include "easyml/Target/Toolkit.h"

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
#include "llvm/Support/Threading.h"

#include <atomic>
#include <set>
#include <thread>

using namespace mlir;
using namespace easyml;

namespace easyml {
#define GEN_PASS_DEF_CHECKLLVMONLY
#define GEN_PASS_DEF_GPUMODULESTOBINARY
#include "easyml/Pipelines/Passes.h.inc"
} // namespace easyml

namespace {
struct CheckLLVMOnlyPass
    : public easyml::impl::CheckLLVMOnlyBase<CheckLLVMOnlyPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (isa<ModuleOp>(op) || isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      // GPU code objects: embedded by the back end, not translated.
      if (isa<gpu::BinaryOp>(op))
        return WalkResult::skip();
      op->emitError("operation '")
          << op->getName() << "' was not lowered to the LLVM dialect";
      signalPassFailure();
      return WalkResult::interrupt();
    });
  }
};

struct GpuModulesToBinaryPass
    : public easyml::impl::GpuModulesToBinaryBase<GpuModulesToBinaryPass> {
  using Base::Base;
  TimingScope *timing = nullptr;
  /// The pass's options, as the GPU pipelines take them.
  GpuCompileOptions getGpuCompileOptions() const;
  std::vector<std::string> optionProblems() const;
  /// Bad chips or a bad format are reported when the pipeline is parsed.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Pass::initializeOptions(options, errorHandler)))
      return failure();
    std::vector<std::string> problems = optionProblems();
    if (problems.empty())
      return success();
    return errorHandler("bad options of easyml-gpu-modules-to-binary:\n  " +
                        llvm::join(problems, "\n  "));
  }
  void runOnOperation() override;
};
} // namespace

/// The problem with a format option given `value`, none of the formats.
static std::string unknownFormat(StringRef option, StringRef value) {
  return option.str() + ": unknown code object format '" + value.str() +
         "' (fatbin, bin, isa or llvm)";
}

GpuCompileOptions GpuModulesToBinaryPass::getGpuCompileOptions() const {
  GpuCompileOptions gpu;
  gpu.cuda.chips.assign(cudaChips.begin(), cudaChips.end());
  gpu.cuda.toolkit = cudaPath;
  gpu.rocm.chips.assign(rocmChips.begin(), rocmChips.end());
  gpu.rocm.toolkit = rocmPath;
  gpu.format = format;
  gpu.optLevel = optLevel;
  gpu.smemSpilling = cudaSmemSpilling;
  gpu.registerCaps = cudaRegisterCaps;
  gpu.machineSink = cudaMachineSink;
  return gpu;
}

std::vector<std::string> GpuModulesToBinaryPass::optionProblems() const {
  GpuCompileOptions gpu = getGpuCompileOptions();
  std::vector<std::string> problems;
  checkGpuChips(gpu, Backend::Cuda, "cuda-chips", problems);
  if (const std::optional<std::string> &bad = unknownValue(format))
    problems.push_back(unknownFormat("format", *bad));
  checkGpuChips(gpu, Backend::Rocm, "rocm-chips", problems);
  return problems;
}

void GpuModulesToBinaryPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  if (gpuModules.empty())
    return;
  // Every module's variant and toolkit first: all problems reported before
  // anything is compiled.
  GpuCompileOptions gpu = getGpuCompileOptions();
  std::set<Backend> found;
  bool ok = true;
  for (gpu::GPUModuleOp gm : gpuModules) {
    auto variant = gm->getAttrOfType<VariantAttr>(VariantAttr::getAttrName());
    if (!variant || !variant.isGpu()) {
      gm.emitError("gpu.module '")
          << gm.getName()
          << "' has no GPU variant (easyml.variant = #easyml.variant<cuda, "
             "...> or <rocm, ...>)";
      ok = false;
      continue;
    }
    Backend backend = variant.getBackend();
    if (!found.insert(backend).second)
      continue;
    std::string &toolkit = gpu.of(backend).toolkit;
    llvm::Expected<std::string> path = findGpuToolkit(backend, toolkit);
    if (!path) {
      gm.emitError() << llvm::toString(path.takeError());
      ok = false;
      continue;
    }
    toolkit = *path;
  }
  if (!ok)
    return signalPassFailure();
  // Where each binary goes: where its module was.
  DenseMap<Operation *, Operation *> nextOf;
  for (gpu::GPUModuleOp gm : gpuModules) {
    Operation *next = gm->getNextNode();
    while (next && isa<gpu::GPUModuleOp>(next))
      next = next->getNextNode();
    nextOf[gm] = next;
  }
  SmallVector<Operation *> nexts;
  for (gpu::GPUModuleOp gm : gpuModules)
    nexts.push_back(nextOf[gm]);
  auto split = splitGpuModules(module);
  std::vector<std::string> timingNames;
  timingNames.reserve(split.size());
  std::vector<GpuCompileJob> jobs;
  for (auto &[variant, own] : split) {
    timingNames.push_back("gpu-" + variant.getName().str());
    jobs.push_back({*own, variant.getBackend(), &gpu, timingNames.back()});
  }
  TimingScope none;
  if (failed(compileGpuModules(jobs, timing ? *timing : none)))
    return signalPassFailure();
  Block *body = module.getBody();
  for (auto [index, entry] : llvm::enumerate(split)) {
    auto &[variant, own] = entry;
    for (gpu::BinaryOp binary :
         llvm::make_early_inc_range(own->getOps<gpu::BinaryOp>())) {
      binary->setAttr(VariantAttr::getAttrName(), variant);
      if (Operation *next = nexts[index])
        binary->moveBefore(next);
      else
        binary->moveBefore(body, body->end());
    }
  }
}

std::unique_ptr<Pass>
easyml::createGpuModulesToBinary(const GpuCompileOptions &gpu,
                                 TimingScope *timing) {
  GpuModulesToBinaryOptions options;
  options.cudaChips = gpu.cuda.chips;
  options.cudaPath = gpu.cuda.toolkit;
  options.rocmChips = gpu.rocm.chips;
  options.rocmPath = gpu.rocm.toolkit;
  options.format = gpu.format;
  options.optLevel = gpu.optLevel;
  options.cudaSmemSpilling = gpu.smemSpilling;
  options.cudaRegisterCaps = gpu.registerCaps;
  options.cudaMachineSink = gpu.machineSink;
  auto pass = std::make_unique<GpuModulesToBinaryPass>(options);
  pass->timing = timing;
  return pass;
}

void easyml::buildPreparePipeline(OpPassManager &pm,
                                  const PipelineOptions &options) {
  OpPassManager &model = pm.nest<ModelOp>();
  model.addPass(createResolveGates());
  model.addPass(createExpandPowers());
  ExpandIntegratorsOptions expand;
  expand.cvodeRelTol = options.cvodeRelTol;
  expand.cvodeAbsTol = options.cvodeAbsTol;
  expand.cvodeMaxSubsteps = options.cvodeMaxSubsteps;
  expand.cvodePivoting = options.cvodePivoting;
  expand.cvodeJacobianAge = options.cvodeJacobianAge;
  model.addPass(createExpandIntegrators(expand));
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

LogicalResult easyml::compileGpuModules(ArrayRef<GpuCompileJob> modules,
                                        TimingScope &timing) {
  if (modules.empty())
    return success();
  MLIRContext *context = GpuCompileJob(modules.front()).module.getContext();
  // One copy of the lowered kernels per chip, serialised side by side.
  struct Job {
    size_t module;
    std::string chip;
    OwningOpRef<ModuleOp> copy;
    std::string timingName;
  };
  std::vector<Job> jobs;
  for (auto [index, job] : llvm::enumerate(modules)) {
    GpuCompileJob m = job;
    PassManager pm(context);
    auto scope = timing.nest((m.timingName + "-lower").str());
    pm.enableTiming(scope);
    buildGpuLoweringPipeline(pm, m.backend, *m.options);
    if (failed(applyPassManagerCLOptions(pm)) || failed(pm.run(m.module)))
      return failure();
    for (const std::string &chip : m.options->chipsFor(m.backend))
      jobs.push_back(
          {index, chip, m.module.clone(), (m.timingName + "-" + chip).str()});
  }
  // One thread per job, at most the machine's cores at once. (Not the
  // context's thread pool: its tasks ran one after the other here.)
  ParallelDiagnosticHandler diagnostics(context);
  std::atomic<size_t> nextJob{0};
  std::atomic<bool> failedJob{false};
  auto work = [&] {
    for (size_t i; (i = nextJob++) < jobs.size() && !failedJob;) {
      diagnostics.setOrderIDForThread(i);
      const GpuCompileJob &module = modules[jobs[i].module];
      // Nested from this thread: the scope times the job, not its wait.
      TimingScope scope = timing.nest(jobs[i].timingName);
      PassManager pm(context);
      pm.enableTiming(scope);
      buildGpuSerializePipeline(pm, module.backend, {jobs[i].chip},
                                *module.options);
      if (failed(pm.run(*jobs[i].copy)))
        failedJob = true;
      scope.stop();
      diagnostics.eraseOrderIDForThread();
    }
  };
  unsigned threads =
      context->isMultithreadingEnabled()
          ? std::min<unsigned>(
                jobs.size(),
                std::max(1u,
                         llvm::hardware_concurrency().compute_thread_count()))
          : 1;
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread &t : pool)
    t.join();
  // A chip that failed has reported why; its module has no binaries.
  if (failedJob)
    return failure();
  // Per module, the first chip's binaries, holding every chip's object in
  // order, replace the gpu.modules.
  for (auto [index, job] : llvm::enumerate(modules)) {
    GpuCompileJob m = job;
    SmallVector<Job *> mine;
    for (Job &job : jobs)
      if (job.module == index)
        mine.push_back(&job);
    Block *body = m.module.getBody();
    for (Operation &op : llvm::make_early_inc_range(*body))
      op.erase();
    for (gpu::BinaryOp binary : llvm::make_early_inc_range(
             mine.front()->copy->getOps<gpu::BinaryOp>())) {
      SmallVector<Attribute> objects;
      for (Job *job : mine) {
        auto other = dyn_cast_or_null<gpu::BinaryOp>(
            SymbolTable::lookupSymbolIn(*job->copy, binary.getSymName()));
        if (!other)
          return binary.emitError("no code object for ") << job->chip;
        llvm::append_range(objects, other.getObjects());
      }
      binary.setObjectsAttr(ArrayAttr::get(context, objects));
      binary->moveBefore(body, body->end());
    }
  }
  return success();
}

std::vector<std::pair<VariantAttr, OwningOpRef<ModuleOp>>>
easyml::splitGpuModules(ModuleOp module) {
  std::vector<std::pair<VariantAttr, OwningOpRef<ModuleOp>>> result;
  for (gpu::GPUModuleOp gm :
       llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
    auto variant = gm->getAttrOfType<VariantAttr>(VariantAttr::getAttrName());
    OwningOpRef<ModuleOp> own = ModuleOp::create(gm.getLoc());
    (*own)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(module.getContext()));
    gm->remove();
    own->getBody()->push_back(gm);
    result.emplace_back(variant, std::move(own));
  }
  return result;
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
  llvm::append_range(
      problems, checkIntegratorOptions(options.cvodeRelTol, options.cvodeAbsTol,
                                       options.cvodeMaxSubsteps,
                                       options.cvodeJacobianAge));
  GpuCompileOptions gpu = options.getGpuCompileOptions();
  checkGpuChips(gpu, Backend::Cuda, "cuda-chips", problems);
  if (const std::optional<std::string> &bad = unknownValue(options.gpuFormat))
    problems.push_back(unknownFormat("gpu-format", *bad));
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
    problems.push_back(unknownFormat("format", *bad));
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
