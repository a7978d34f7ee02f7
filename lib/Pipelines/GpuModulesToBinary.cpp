//===- GpuModulesToBinary.cpp - the GPU stage, chips side by side ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// easyml-gpu-modules-to-binary: every GPU variant's gpu.module taken out of
// the module, lowered once per backend, then serialised once per chip on
// threads of its own (the device back ends and ptxas are the slow part of
// a GPU build, and each chip's is independent), the code objects put back
// as gpu.binary ops where the modules were.
//
//===----------------------------------------------------------------------===//

#include "easyml/Pipelines/Pipelines.h"

#include "easyml/Target/Toolkit.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Threading.h"

#include <atomic>
#include <set>
#include <thread>

namespace easyml {
#define GEN_PASS_DEF_GPUMODULESTOBINARY
#include "easyml/Pipelines/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {
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
    problems.push_back(unknownGpuFormat("format", *bad));
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
