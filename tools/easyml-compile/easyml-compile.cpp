//===- easyml-compile.cpp - EasyML compiler driver ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// easyml-compile model.model --emit=<stage> [-o out]
//
// Stages: tokens, ast, summary, summary-json, mlir (the easyml dialect as
// generated), prepared (integrators expanded, tables extracted), llvm-dialect
// (kernels in the LLVM dialect), llvm (LLVM IR with the descriptor), asm,
// obj, shared (a loadable .so) and header (its C header). Diagnostics are
// printed as file:line:col with the source line and a caret; every error in the
// file is reported and the exit status is non-zero when any was. Output
// files are written only on success.
//
//===----------------------------------------------------------------------===//

#include "easyml/Frontend/Lexer.h"
#include "easyml/Frontend/Parser.h"
#include "easyml/Frontend/Sema.h"
#include "easyml/Frontend/Summary.h"
#include "easyml/InitAll.h"
#include "easyml/MLIRGen/MLIRGen.h"
#include "easyml/Pipelines/Pipelines.h"
#include "easyml/Support/Version.h"
#include "easyml/Target/ArtifactCache.h"
#include "easyml/Target/GpuResources.h"
#include "easyml/Target/ModelObject.h"
#include "easyml/Target/Toolkit.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include <tuple>

using namespace easyml;
namespace cl = llvm::cl;

namespace {
enum class Emit {
  Tokens,
  AST,
  Summary,
  SummaryJSON,
  MLIR,
  Prepared,
  LLVMDialect,
  LLVMIR,
  Asm,
  Obj,
  Shared,
  Header,
  GpuAsm
};

cl::OptionCategory category("easyml-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model file>"),
                               cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file (default: stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<Emit>
    emit("emit", cl::desc("What to produce"), cl::init(Emit::Summary),
         cl::values(clEnumValN(Emit::Tokens, "tokens", "the token stream"),
                    clEnumValN(Emit::AST, "ast", "the syntax tree"),
                    clEnumValN(Emit::Summary, "summary",
                               "what the front end understood (default)"),
                    clEnumValN(Emit::SummaryJSON, "summary-json",
                               "the summary as JSON"),
                    clEnumValN(Emit::MLIR, "mlir",
                               "the easyml dialect, with source locations"),
                    clEnumValN(Emit::Prepared, "prepared",
                               "easyml IR with integrators expanded and tables "
                               "extracted"),
                    clEnumValN(Emit::LLVMDialect, "llvm-dialect",
                               "the kernels in the LLVM dialect"),
                    clEnumValN(Emit::LLVMIR, "llvm",
                               "LLVM IR with the model descriptor"),
                    clEnumValN(Emit::Asm, "asm", "native assembly"),
                    clEnumValN(Emit::Obj, "obj", "a native object file"),
                    clEnumValN(Emit::Shared, "shared",
                               "a shared library loadable at run time"),
                    clEnumValN(Emit::Header, "header",
                               "the C header declaring the descriptor"),
                    clEnumValN(Emit::GpuAsm, "gpu-asm",
                               "the GPU variants' kernels as PTX / AMDGPU "
                               "assembly, per chip")),
         cl::cat(category));
cl::list<std::string>
    variantList("variant",
                cl::desc("Variants to generate, comma-separated: baseline, "
                         "cpu-simd, cuda, rocm (default: baseline,cpu-simd; "
                         "the runtime's CPU device runs cpu-simd where it is "
                         "present)"),
                cl::CommaSeparated, cl::cat(category));
cl::opt<unsigned>
    vectorWidth("vector-width",
                cl::desc("Cells per vector in cpu-simd (default: from the "
                         "target CPU: 8 with AVX-512, 4 with AVX2, else 2)"),
                cl::init(0), cl::cat(category));
cl::opt<VectorMath>
    vectorMath("vector-math",
               cl::desc("Vector math in cpu-simd: libmvec (glibc's vector "
                        "functions, default where the target has them) or "
                        "scalar (libm per lane, bit-identical to baseline)"),
               cl::init(VectorMath::Libmvec), vectorMathValues(),
               cl::cat(category));
cl::list<std::string>
    cudaChips("cuda-chips",
              cl::desc("NVIDIA chips of the cuda variant, comma-separated "
                       "(default: sm_80,sm_90; each a fatbin with cubin and "
                       "PTX)"),
              cl::CommaSeparated, cl::cat(category));
cl::list<std::string>
    rocmChips("rocm-chips",
              cl::desc("AMD chips of the rocm variant, comma-separated "
                       "(default: gfx90a,gfx942)"),
              cl::CommaSeparated, cl::cat(category));
cl::opt<std::string>
    cudaPath("cuda-path",
             cl::desc("CUDA toolkit (default: $CUDA_PATH, $CUDA_HOME, "
                      "/usr/local/cuda)"),
             cl::cat(category));
cl::opt<std::string>
    rocmPath("rocm-path",
             cl::desc("ROCm root with amdgcn/bitcode (default: $ROCM_PATH, "
                      "/opt/rocm, else Debian's rocm-device-libs with "
                      "ld.lld-19)"),
             cl::cat(category));
cl::opt<bool> cudaSmemSpilling(
    "cuda-smem-spilling",
    cl::desc("Let ptxas spill the cuda kernels' registers to shared memory "
             "rather than local memory (CUDA 12.8 and later; default: on)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> cudaRegisterCaps(
    "cuda-register-caps",
    cl::desc("Cap the registers of cuda kernels that spill nothing where "
             "that raises their occupancy without spilling (default: on)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> cudaMachineSink(
    "cuda-machine-sink",
    cl::desc("Keep LLVM's MachineSink on in the cuda kernels' back end "
             "(default: off; on, stiff kernels spill more)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> noTables("no-tables",
                       cl::desc("Evaluate .lookup() expressions directly "
                                "instead of tabulating them"),
                       cl::init(false), cl::cat(category));
cl::opt<double> cvodeRtol("cvode-rtol",
                          cl::desc("Relative tolerance of cvode groups"),
                          cl::init(1e-6), cl::cat(category));
cl::opt<double> cvodeAtol("cvode-atol",
                          cl::desc("Absolute tolerance of cvode groups"),
                          cl::init(1e-9), cl::cat(category));
cl::opt<int64_t> cvodeMaxSubsteps(
    "cvode-max-substeps",
    cl::desc("Most sub-steps of a cvode group per time step (the last one "
             "covers what remains of the step)"),
    cl::init(5000), cl::cat(category));
cl::opt<bool> cvodePivoting(
    "cvode-pivoting",
    cl::desc("Factorise cvode iteration matrices with partial pivoting "
             "(default: without; a sub-step with a near-zero pivot is "
             "rejected and retried shorter)"),
    cl::init(false), cl::cat(category));
cl::opt<int64_t> cvodeJacobianAge(
    "cvode-jacobian-age",
    cl::desc("Time steps a cell may reuse the factorised iteration matrix "
             "of a cvode group for, while its sub-steps pass the error test "
             "and gamma*h stays within 30% (0: a new Jacobian every "
             "sub-step; ignored with --cvode-pivoting)"),
    cl::init(0), cl::cat(category));
cl::list<std::string> perCellParams(
    "per-cell-params",
    cl::desc("Parameters and flags the GPU variants read per cell, "
             "comma-separated, or 'all' (a population varies them; the "
             "others are shared and passed in the launch's constant bank, "
             "which keeps them out of registers). CPU variants read any "
             "parameter per cell"),
    cl::CommaSeparated, cl::cat(category));
cl::opt<bool> emulateGpuKernels(
    "emulate-gpu-kernels",
    cl::desc("Also compile every GPU kernel for the host, as <kernel>_host, "
             "which the test suite's emulated CUDA and HIP drivers run "
             "(EASYML_EMULATED_KERNELS=host) on machines without a GPU"),
    cl::init(false), cl::cat(category));
cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimisation level (0-3)"),
                           cl::init(2), cl::Prefix, cl::cat(category));
cl::opt<std::string> cpu("cpu", cl::desc("Target CPU (default: the host's)"),
                         cl::init(""), cl::cat(category));
cl::opt<std::string>
    modelName("model-name",
              cl::desc("Model name (default: the file name without .model)"),
              cl::cat(category));
cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check diagnostics against expected-* lines in the input"),
    cl::init(false), cl::cat(category));
cl::opt<bool> splitInputFile(
    "split-input-file",
    cl::desc("Process each '// -----' separated chunk as its own model"),
    cl::init(false), cl::cat(category));
cl::opt<bool> noWarnings("w", cl::desc("Suppress warnings"), cl::init(false),
                         cl::cat(category));
cl::opt<bool> checkVariants(
    "check-variants",
    cl::desc("Check that the variants asked for (--variant, toolkit paths) "
             "can be built on this machine, and exit (for build systems)"),
    cl::init(false), cl::cat(category));
cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("Where compiled artifacts are cached, keyed on the "
                      "model's path and content, the options, the target "
                      "and the tool's version (default: $EASYML_CACHE_DIR, "
                      "$XDG_CACHE_HOME/easyml, ~/.cache/easyml)"),
             cl::cat(category));
cl::opt<bool> noCache("no-cache",
                      cl::desc("Neither read nor write the artifact cache"),
                      cl::init(false), cl::cat(category));
cl::opt<bool> cacheStatus(
    "cache-status",
    cl::desc("Print 'cached' or 'compiled' on stdout once the output is "
             "written (for tools that build through the artifact cache)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> noLocations("no-locations",
                          cl::desc("Print MLIR without source locations"),
                          cl::init(false), cl::cat(category));
} // namespace

/// Forwards the front end's diagnostics to MLIR's diagnostic engine, where
/// they are printed with a caret or checked by the verifier.
static void forward(const DiagnosticEngine &diags, mlir::MLIRContext &ctx,
                    llvm::SourceMgr &sm) {
  for (const Diagnostic &d : diags.getDiagnostics()) {
    if (d.severity == Severity::Warning && noWarnings)
      continue;
    mlir::Location loc = toLocation(ctx, sm, d.loc);
    mlir::InFlightDiagnostic diag = d.severity == Severity::Error
                                        ? mlir::emitError(loc)
                                        : mlir::emitWarning(loc);
    diag << d.message;
    for (const DiagNote &n : d.notes)
      diag.attachNote(toLocation(ctx, sm, n.loc)) << n.message;
  }
}

static std::string locString(llvm::SourceMgr &sm, llvm::SMLoc loc) {
  auto [line, col] = sm.getLineAndColumn(loc);
  return std::to_string(line) + ":" + std::to_string(col);
}

namespace {
/// What --variant, --cpu and --vector-width resolve to, shared by every
/// model of the input.
std::vector<std::string> variants;
ObjectOptions objOptions;
VectorUnit vectorInfo;
std::unique_ptr<llvm::TargetMachine> target;
/// Where GPU toolkits were found, by backend.
std::map<Backend, std::string> toolkits;
} // namespace

/// The GPU flags, as the GPU stage takes them.
static GpuCompileOptions gpuFlags() {
  GpuCompileOptions gpu;
  gpu.cuda = {std::vector<std::string>(cudaChips.begin(), cudaChips.end()),
              cudaPath};
  gpu.rocm = {std::vector<std::string>(rocmChips.begin(), rocmChips.end()),
              rocmPath};
  gpu.format = emit == Emit::GpuAsm ? GpuFormat::Isa : GpuFormat::Default;
  gpu.smemSpilling = cudaSmemSpilling;
  gpu.registerCaps = cudaRegisterCaps;
  gpu.machineSink = cudaMachineSink;
  return gpu;
}

/// Finds the toolkit a GPU backend compiles with, or reports what is
/// missing and how to point at it.
static bool findToolkit(Backend backend, std::string &path) {
  llvm::Expected<std::string> found =
      findGpuToolkit(backend, backend == Backend::Cuda ? cudaPath : rocmPath);
  if (!found) {
    llvm::errs() << "easyml-compile: error: "
                 << llvm::toString(found.takeError()) << "\n";
    return false;
  }
  path = *found;
  return true;
}

/// Resolves the variant list and the target; false after reporting an error.
static bool configureTarget() {
  variants.assign(variantList.begin(), variantList.end());
  if (variants.empty())
    variants = {"baseline", "cpu-simd"};
  for (const std::string &v : variants)
    if (!symbolizeVariantKind(v)) {
      llvm::errs() << "easyml-compile: error: unknown variant '" << v
                   << "' (available: baseline, cpu-simd, cuda, rocm)\n";
      return false;
    }
  if (const std::optional<std::string> &bad = unknownValue(vectorMath)) {
    llvm::errs() << "easyml-compile: error: unknown --vector-math '" << *bad
                 << "' (available: libmvec, scalar)\n";
    return false;
  }
  // The integrator's options, every bad one reported, by the pass's own
  // check (named here by their flags).
  bool optionsOk = true;
  for (const std::string &problem : checkIntegratorOptions(
           cvodeRtol, cvodeAtol, cvodeMaxSubsteps, cvodeJacobianAge)) {
    llvm::errs() << "easyml-compile: error: --" << problem << "\n";
    optionsOk = false;
  }
  // Chips LLVM does not know would be compiled for a generic processor
  // and fail late, in ptxas or the linker.
  std::vector<std::string> chipProblems;
  GpuCompileOptions gpu = gpuFlags();
  checkGpuChips(gpu, Backend::Cuda, "--cuda-chips", chipProblems);
  checkGpuChips(gpu, Backend::Rocm, "--rocm-chips", chipProblems);
  for (const std::string &problem : chipProblems) {
    llvm::errs() << "easyml-compile: error: " << problem << "\n";
    optionsOk = false;
  }
  if (!optionsOk)
    return false;
  objOptions.variants.clear();
  for (const std::string &v : variants)
    objOptions.variants.push_back(*symbolizeVariantKind(v));
  objOptions.perCellParams.assign(perCellParams.begin(), perCellParams.end());
  objOptions.exportGenericSymbol = emit == Emit::Shared;
  objOptions.cpu = cpu;
  objOptions.optLevel = optLevel;
  objOptions.compilerId =
      "easyml-compile " EASYML_VERSION " (git " EASYML_GIT_HASH ")";
  if (checkVariants) {
    for (VariantKind v : objOptions.variants)
      if (isGpuVariant(v) && !findToolkit(backendOf(v), toolkits[backendOf(v)]))
        return false;
  }
  if (emit < Emit::Prepared && !checkVariants)
    return true;
  std::string error;
  target = createTargetMachine(objOptions, error);
  if (!target) {
    llvm::errs() << "easyml-compile: error: " << error << "\n";
    return false;
  }
  vectorInfo = describeVectorUnit(*target);
  if (vectorWidth > 64) {
    llvm::errs() << "easyml-compile: error: --vector-width must be between 1 "
                    "and 64, got "
                 << vectorWidth << "\n";
    return false;
  }
  if (vectorWidth)
    vectorInfo.width = vectorWidth;
  objOptions.vectorWidth = vectorInfo.width;
  for (VariantKind v : objOptions.variants)
    if (isGpuVariant(v) && emit != Emit::Header && emit != Emit::Prepared &&
        !findToolkit(backendOf(v), toolkits[backendOf(v)]))
      return false;
  bool simd = llvm::is_contained(variants, "cpu-simd");
  if (simd && vectorMath == VectorMath::Libmvec &&
      vectorInfo.isa != VectorIsa::None)
    objOptions.libraries.push_back("mvec");
  return true;
}

/// MLIR generation, the pipelines and the back end: writes the stage
/// requested by --emit to `os`.
static bool generate(mlir::MLIRContext &context, const Model &model,
                     llvm::SourceMgr &sm, mlir::TimingScope &timing,
                     llvm::raw_ostream &os) {
  // --per-cell-params names parameters or flags of this model (the lowering
  // checks it too, with what only it knows: the tables' inputs).
  bool namesOk = true;
  for (const std::string &name : objOptions.perCellParams) {
    auto named = [&](const auto &v) { return v.name == name; };
    if (name == "all" || llvm::any_of(model.params, named) ||
        llvm::any_of(model.flags, named))
      continue;
    llvm::errs() << "easyml-compile: error: --per-cell-params: model '"
                 << model.name << "' has no parameter or flag '" << name
                 << "'\n";
    namesOk = false;
  }
  if (!namesOk)
    return false;
  auto genTimer = timing.nest("mlirgen");
  mlir::OwningOpRef<mlir::ModuleOp> module = mlirGen(context, model, sm);
  genTimer.stop();
  if (!module)
    return false;
  mlir::OpPrintingFlags flags;
  if (!noLocations)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  // The stages of easyml-compile-pipeline (what easyml-opt runs), one pass
  // manager each: --emit stops after one and --mlir-timing reports each.
  PipelineOptions options;
  options.variants = variants;
  options.vectorWidth = vectorInfo.width;
  options.vectorIsa = vectorInfo.isa;
  options.vectorMath = vectorMath.getValue();
  options.tables = !noTables;
  options.cvodeRelTol = cvodeRtol.getValue();
  options.cvodeAbsTol = cvodeAtol.getValue();
  options.cvodeMaxSubsteps = cvodeMaxSubsteps.getValue();
  options.cvodePivoting = cvodePivoting.getValue();
  options.cvodeJacobianAge = cvodeJacobianAge.getValue();
  options.perCellParams = objOptions.perCellParams;
  options.emulateGpuKernels = emulateGpuKernels.getValue();
  GpuCompileOptions gpu = gpuFlags();
  gpu.cuda.toolkit = toolkits[Backend::Cuda];
  gpu.rocm.toolkit = toolkits[Backend::Rocm];
  options.setGpuCompileOptions(gpu);
  auto runStage = [&](std::optional<CompileStage> stage, llvm::StringRef name) {
    mlir::PassManager pm(&context);
    auto scope = timing.nest(name);
    pm.enableTiming(scope);
    if (stage)
      buildCompileStage(pm, *stage, options, &timing);
    return mlir::succeeded(mlir::applyPassManagerCLOptions(pm)) &&
           mlir::succeeded(pm.run(*module));
  };
  if (emit == Emit::MLIR) {
    if (!runStage(std::nullopt, "passes"))
      return false;
    module->print(os, flags);
    os << "\n";
    return true;
  }
  if (!runStage(CompileStage::Prepare, "prepare"))
    return false;
  ModelOp modelOp = *module->getOps<ModelOp>().begin();
  ModelLayout layout = ModelLayout::get(modelOp);
  if (emit == Emit::Prepared) {
    module->print(os, flags);
    os << "\n";
    return true;
  }
  if (emit == Emit::Header) {
    os << emitHeader(layout, objOptions);
    return true;
  }
  if (!runStage(CompileStage::Kernels, "kernels") ||
      !runStage(CompileStage::Gpu, "gpu"))
    return false;
  if (emit != Emit::GpuAsm && !runStage(CompileStage::Lower, "lower"))
    return false;
  if (emit == Emit::LLVMDialect) {
    module->print(os, flags);
    os << "\n";
    return true;
  }
  // The GPU variants' code objects leave the module for the descriptor.
  bool anyGpu = false;
  for (VariantKind variant : objOptions.variants)
    if (isGpuVariant(variant))
      objOptions.gpuImages[variant].clear();
  for (mlir::gpu::BinaryOp binary :
       llvm::make_early_inc_range(module->getOps<mlir::gpu::BinaryOp>())) {
    anyGpu = true;
    auto variantAttr =
        binary->getAttrOfType<VariantAttr>(VariantAttr::getAttrName());
    VariantKind kind = variantAttr.getKind();
    std::string variant = variantAttr.getName().str();
    std::vector<GpuImage> &images = objOptions.gpuImages[kind];
    for (mlir::Attribute a : binary.getObjects()) {
      auto object = llvm::cast<mlir::gpu::ObjectAttr>(a);
      std::string chip;
      if (auto nvvm =
              llvm::dyn_cast<mlir::NVVM::NVVMTargetAttr>(object.getTarget()))
        chip = nvvm.getChip().str();
      else if (auto rocdl = llvm::dyn_cast<mlir::ROCDL::ROCDLTargetAttr>(
                   object.getTarget()))
        chip = rocdl.getChip().str();
      std::string data = object.getObject().getValue().str();
      // Assembly comes back NUL-terminated from the serializer: a text
      // file must not carry it (ptxas rejects it).
      if (emit == Emit::GpuAsm)
        while (!data.empty() && data.back() == '\0')
          data.pop_back();
      GpuImage image{chip,
                     backendOf(kind) == Backend::Cuda ? "fatbin" : "hsaco",
                     std::move(data)};
      // What the compute kernel uses decides its block size; a code
      // object we cannot read still runs, at the runtime's default.
      if (emit != Emit::GpuAsm)
        if (llvm::Error e =
                recordKernelResources(image, layout.symbol(variant, "compute")))
          llvm::errs() << "easyml-compile: warning: " << variant << " " << chip
                       << " code object: " << llvm::toString(std::move(e))
                       << "; its kernels will run 128 threads per block\n";
      if (emit == Emit::GpuAsm)
        os << "// " << layout.name << ": " << variant << " kernels for "
           << image.chip << "\n"
           << image.data << "\n";
      images.push_back(std::move(image));
    }
    binary->erase();
  }
  if (emit == Emit::GpuAsm) {
    if (!anyGpu) {
      llvm::errs() << "easyml-compile: error: --emit=gpu-asm needs a GPU "
                      "variant (--variant=cuda or rocm)\n";
      return false;
    }
    return true;
  }
  std::string error;
  llvm::LLVMContext llvmContext;
  auto translateTimer = timing.nest("translate");
  auto llvmModule =
      translateModel(*module, llvmContext, layout, objOptions, *target, error);
  translateTimer.stop();
  if (!llvmModule) {
    llvm::errs() << "easyml-compile: error: " << error << "\n";
    return false;
  }
  {
    auto optTimer = timing.nest("llvm-opt");
    optimizeModule(*llvmModule, *target, optLevel);
  }
  if (emit == Emit::LLVMIR) {
    llvmModule->print(os, nullptr);
    return true;
  }
  llvm::SmallVector<char, 0> code;
  llvm::raw_svector_ostream codeOs(code);
  {
    auto codegenTimer = timing.nest("codegen");
    if (!emitCode(*llvmModule, *target, codeOs, emit == Emit::Asm, error)) {
      llvm::errs() << "easyml-compile: error: " << error << "\n";
      return false;
    }
  }
  if (emit != Emit::Shared) {
    os << llvm::StringRef(code.data(), code.size());
    return true;
  }
  auto linkTimer = timing.nest("link");
  std::string library;
  if (!linkSharedObject(llvm::StringRef(code.data(), code.size()),
                        objOptions.libraries, library, error)) {
    llvm::errs() << "easyml-compile: error: " << error << "\n";
    return false;
  }
  os << library;
  return true;
}

/// Diagnostics printed while compiling, kept so a cached build shows the
/// same warnings as the build that filled the cache.
static std::string diagnosticsText;
static llvm::raw_string_ostream diagnosticsOs(diagnosticsText);

/// Runs the front end (and MLIR generation) on one buffer, writing the
/// requested stage to `os`. With --verify-diagnostics, succeeds when the
/// diagnostics match the buffer's expected-* annotations.
static mlir::LogicalResult
processBuffer(std::unique_ptr<llvm::MemoryBuffer> file, llvm::StringRef name,
              mlir::MLIRContext &context, mlir::TimingScope &timing,
              llvm::raw_ostream &os) {
  llvm::SourceMgr sm;
  unsigned bufferId = sm.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  llvm::StringRef buffer = sm.getMemoryBuffer(bufferId)->getBuffer();
  std::optional<mlir::SourceMgrDiagnosticVerifierHandler> verifier;
  std::optional<mlir::SourceMgrDiagnosticHandler> printer;
  if (verifyDiagnostics)
    verifier.emplace(sm, &context);
  else
    printer.emplace(sm, &context, diagnosticsOs);

  DiagnosticEngine diags(sm);
  bool ok = true;
  {
    auto lexTimer = timing.nest("lex");
    std::vector<Token> tokens = lex(buffer, diags);
    lexTimer.stop();
    if (emit == Emit::Tokens) {
      for (const Token &t : tokens)
        os << locString(sm, t.loc) << " " << tokenKindName(t.kind) << " '"
           << t.text << "'\n";
    }
    std::optional<Model> model;
    // Malformed tokens make the parser's view of the file unreliable: report
    // the lexical errors alone rather than a cascade of follow-on errors.
    if (emit != Emit::Tokens && !diags.hasErrors()) {
      auto parseTimer = timing.nest("parse");
      ModelAST ast = parse(tokens, name, diags);
      parseTimer.stop();
      if (emit == Emit::AST)
        printAST(os, ast, [&](llvm::SMLoc l) { return locString(sm, l); });
      else if (!diags.hasErrors()) {
        auto semaTimer = timing.nest("sema");
        model = analyze(ast, diags);
        semaTimer.stop();
      }
    }
    forward(diags, context, sm);
    ok = !diags.hasErrors();
    if (ok && model) {
      if (emit == Emit::Summary)
        printSummary(os, *model);
      else if (emit == Emit::SummaryJSON)
        os << llvm::formatv("{0:2}", summaryToJSON(*model)) << "\n";
      else if (emit >= Emit::MLIR)
        ok = generate(context, *model, sm, timing, os);
    }
  }

  static size_t printed = 0;
  llvm::errs() << llvm::StringRef(diagnosticsText).drop_front(printed);
  printed = diagnosticsText.size();
  if (verifyDiagnostics)
    return verifier->verify();
  return mlir::success(ok);
}

/// The cache entry for this compilation, or "" when caching does not
/// apply (not a back-end artifact, --no-cache, diagnostics checking). The
/// key covers the tool's and LLVM's versions, the resolved target and
/// options, every command-line argument but the output path, the model's
/// name and its content. The input path is part of it: the descriptor
/// records it and the warnings replayed from the cache name it.
static std::string cachePath(int argc, char **argv, llvm::StringRef name,
                             llvm::StringRef content) {
  bool artifact = emit == Emit::Obj || emit == Emit::Shared ||
                  emit == Emit::Asm || emit == Emit::LLVMIR ||
                  emit == Emit::Header || emit == Emit::GpuAsm;
  if (!artifact || noCache || verifyDiagnostics || splitInputFile)
    return "";
  std::string dir = artifactCacheDirectory(cacheDir);
  if (dir.empty())
    return "";
  ArtifactKey key;
  auto add = [&](llvm::StringRef piece) { key.add(piece); };
  add("easyml-compile " EASYML_VERSION " " EASYML_GIT_HASH
      " llvm " LLVM_VERSION_STRING);
  key.addExecutable(argv[0], reinterpret_cast<void *>(&cachePath));
  if (target) {
    add(target->getTargetTriple().str());
    add(target->getTargetCPU());
    add(target->getTargetFeatureString());
  }
  add(std::to_string(static_cast<int>(emit.getValue())));
  add(std::to_string(vectorInfo.width));
  for (auto &[backend, path] : toolkits)
    add(std::string(backendName(backend)) + "=" + path);
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "-o" && i + 1 < argc) {
      ++i;
      continue;
    }
    if (arg.starts_with("-o") && arg.substr(2) == outputFile)
      continue;
    add(arg);
  }
  add(name);
  add(content);
  const char *ext = emit == Emit::Obj      ? ".o"
                    : emit == Emit::Shared ? ".so"
                    : emit == Emit::Header ? ".h"
                                           : ".txt";
  return key.path(dir, ext);
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { printVersion(os, "easyml-compile"); });
  // --help lists this tool's options; LLVM's and MLIR's own (timing, IR
  // printing, codegen flags) stay accepted and show under --help-hidden.
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "EasyML compiler: cardiac ionic models "
                              "(.model) to MLIR and native code\n");

  mlir::DefaultTimingManager tm;
  mlir::applyDefaultTimingManagerCLOptions(tm);
  mlir::TimingScope timing = tm.getRootScope();

  if (!configureTarget())
    return 1;
  if (checkVariants)
    return 0;
  std::string errorMessage;
  auto file = mlir::openInputFile(inputFile, &errorMessage);
  if (!file) {
    llvm::errs() << "easyml-compile: error: " << errorMessage << "\n";
    return 1;
  }
  std::string name = modelName;
  if (name.empty())
    name = inputFile == "-" ? "model" : llvm::sys::path::stem(inputFile).str();

  // The artifact cache: repeated builds of an unchanged model are a copy.
  std::string cached;
  {
    auto cacheTimer = timing.nest("cache");
    cached = cachePath(argc, argv, name, file->getBuffer());
    if (!cached.empty() && llvm::sys::fs::exists(cached)) {
      auto hit = llvm::MemoryBuffer::getFile(cached, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
      auto output =
          hit ? mlir::openOutputFile(outputFile, &errorMessage) : nullptr;
      if (output) {
        if (auto warnings = llvm::MemoryBuffer::getFile(cached + ".diag"))
          if (!noWarnings)
            llvm::errs() << (*warnings)->getBuffer();
        output->os() << (*hit)->getBuffer();
        output->keep();
        if (cacheStatus)
          llvm::outs() << "cached\n";
        return 0;
      }
      if (hit) {
        llvm::errs() << "easyml-compile: error: " << errorMessage << "\n";
        return 1;
      }
    }
  }

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  // Diagnostics point into the model; the IR they were found in is shown
  // only when asked for (--mlir-print-op-on-diagnostic, as in easyml-opt).
  auto &registered = llvm::cl::getRegisteredOptions();
  auto printOp = registered.find("mlir-print-op-on-diagnostic");
  if (printOp == registered.end() || !printOp->second->getNumOccurrences())
    context.printOpOnDiagnostic(false);

  std::string out;
  llvm::raw_string_ostream os(out);
  auto handler = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     llvm::raw_ostream &chunkOs) {
    return processBuffer(std::move(chunk), name, context, timing, chunkOs);
  };
  mlir::LogicalResult result =
      splitInputFile ? mlir::splitAndProcessBuffer(std::move(file), handler, os,
                                                   "// -----", "// -----")
                     : handler(std::move(file), os);
  if (mlir::failed(result))
    return 1;
  auto output = mlir::openOutputFile(outputFile, &errorMessage);
  if (!output) {
    llvm::errs() << "easyml-compile: error: " << errorMessage << "\n";
    return 1;
  }
  output->os() << out;
  output->keep();
  if (!cached.empty()) {
    // The warnings first: an entry is complete once its artifact exists.
    if (!diagnosticsText.empty())
      storeArtifact(cached + ".diag", diagnosticsText);
    storeArtifact(cached, out);
  }
  if (cacheStatus)
    llvm::outs() << "compiled\n";
  return 0;
}
