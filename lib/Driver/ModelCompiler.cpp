//===- ModelCompiler.cpp - a model file to what --emit asks ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Driver/ModelCompiler.h"

#include "easyml/Dialect/EasyML/Transforms/Passes.h"
#include "easyml/Frontend/Lexer.h"
#include "easyml/Frontend/Parser.h"
#include "easyml/Frontend/Sema.h"
#include "easyml/Frontend/Summary.h"
#include "easyml/InitAll.h"
#include "easyml/MLIRGen/MLIRGen.h"
#include "easyml/Pipelines/Pipelines.h"
#include "easyml/Target/ArtifactCache.h"
#include "easyml/Target/GpuResources.h"
#include "easyml/Target/Toolkit.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"

using namespace easyml;

llvm::cl::ValuesClass easyml::emitKindValues() {
  return llvm::cl::values(
      clEnumValN(EmitKind::Tokens, "tokens", "the token stream"),
      clEnumValN(EmitKind::AST, "ast", "the syntax tree"),
      clEnumValN(EmitKind::Summary, "summary",
                 "what the front end understood (default)"),
      clEnumValN(EmitKind::SummaryJSON, "summary-json", "the summary as JSON"),
      clEnumValN(EmitKind::MLIR, "mlir",
                 "the easyml dialect, with source locations"),
      clEnumValN(EmitKind::Prepared, "prepared",
                 "easyml IR with integrators expanded and tables extracted"),
      clEnumValN(EmitKind::LLVMDialect, "llvm-dialect",
                 "the kernels in the LLVM dialect"),
      clEnumValN(EmitKind::LLVMIR, "llvm", "LLVM IR with the model descriptor"),
      clEnumValN(EmitKind::Asm, "asm", "native assembly"),
      clEnumValN(EmitKind::Obj, "obj", "a native object file"),
      clEnumValN(EmitKind::Shared, "shared",
                 "a shared library loadable at run time"),
      clEnumValN(EmitKind::Header, "header",
                 "the C header declaring the descriptor"),
      clEnumValN(EmitKind::GpuAsm, "gpu-asm",
                 "the GPU variants' kernels as PTX / AMDGPU assembly, per "
                 "chip"));
}

/// Reports a problem with the options or the build.
static void reportError(const llvm::Twine &message) {
  llvm::errs() << "easyml-compile: error: " << message << "\n";
}

ModelCompiler::ModelCompiler(ModelCompilerOptions options)
    : options(std::move(options)) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  context = std::make_unique<mlir::MLIRContext>(registry);
  // Diagnostics point into the model; the IR they were found in is shown
  // only when asked for (--mlir-print-op-on-diagnostic, as in easyml-opt).
  auto &registered = llvm::cl::getRegisteredOptions();
  auto printOp = registered.find("mlir-print-op-on-diagnostic");
  if (printOp == registered.end() || !printOp->second->getNumOccurrences())
    context->printOpOnDiagnostic(false);
}

ModelCompiler::~ModelCompiler() = default;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

bool ModelCompiler::configure(bool checkOnly) {
  if (!checkOptions())
    return false;
  object.perCellParams = options.perCellParams;
  object.exportGenericSymbol = options.emit == EmitKind::Shared;
  object.cpu = options.cpu;
  object.optLevel = options.optLevel;
  object.compilerId = options.compilerId;
  if (checkOnly && !findToolkits())
    return false;
  if (options.emit < EmitKind::Prepared && !checkOnly)
    return true;
  if (!configureTarget())
    return false;
  // The prepared IR and the header need no GPU toolkit.
  if (options.emit != EmitKind::Header && options.emit != EmitKind::Prepared &&
      !findToolkits())
    return false;
  bool simd = llvm::is_contained(object.variants, VariantKind::cpu_simd);
  if (simd && options.vectorMath == VectorMath::Libmvec &&
      vectorUnit.isa != VectorIsa::None)
    object.libraries.push_back("mvec");
  return true;
}

/// The variants, the vector math, the integrator's options and the GPU
/// chips; every bad integrator option and chip is reported.
bool ModelCompiler::checkOptions() {
  std::vector<std::string> names = options.variants;
  if (names.empty())
    names = {"baseline", "cpu-simd"};
  object.variants.clear();
  for (const std::string &name : names) {
    std::optional<VariantKind> kind = symbolizeVariantKind(name);
    if (!kind) {
      reportError("unknown variant '" + name +
                  "' (available: baseline, cpu-simd, cuda, rocm)");
      return false;
    }
    object.variants.push_back(*kind);
  }
  if (options.unknownVectorMath) {
    reportError("unknown --vector-math '" + *options.unknownVectorMath +
                "' (available: libmvec, scalar)");
    return false;
  }
  // The integrator's options by the pass's own check, named here by their
  // flags. Chips LLVM does not know would be compiled for a generic
  // processor and fail late, in ptxas or the linker.
  std::vector<std::string> problems;
  for (const std::string &problem : checkIntegratorOptions(
           options.cvodeRelTol, options.cvodeAbsTol, options.cvodeMaxSubsteps,
           options.cvodeJacobianAge, options.cvodeMethod))
    problems.push_back("--" + problem);
  checkGpuChips(options.gpu, Backend::Cuda, "--cuda-chips", problems);
  checkGpuChips(options.gpu, Backend::Rocm, "--rocm-chips", problems);
  for (const std::string &problem : problems)
    reportError(problem);
  return problems.empty();
}

/// The target machine and what its vector unit gives cpu-simd.
bool ModelCompiler::configureTarget() {
  std::string error;
  target = createTargetMachine(object, error);
  if (!target) {
    reportError(error);
    return false;
  }
  vectorUnit = describeVectorUnit(*target);
  if (options.vectorWidth > 64) {
    reportError("--vector-width must be between 1 and 64, got " +
                llvm::Twine(options.vectorWidth));
    return false;
  }
  if (options.vectorWidth)
    vectorUnit.width = options.vectorWidth;
  object.vectorWidth = vectorUnit.width;
  return true;
}

/// The toolkit of every GPU variant's backend, or what is missing and how
/// to point at it.
bool ModelCompiler::findToolkits() {
  for (VariantKind variant : object.variants) {
    if (!isGpuVariant(variant))
      continue;
    Backend backend = backendOf(variant);
    llvm::Expected<std::string> found =
        findGpuToolkit(backend, options.gpu.of(backend).toolkit);
    if (!found) {
      reportError(llvm::toString(found.takeError()));
      return false;
    }
    toolkits[backend] = *found;
  }
  return true;
}

void ModelCompiler::addToCacheKey(ArtifactKey &key) const {
  if (target) {
    key.add(target->getTargetTriple().str());
    key.add(target->getTargetCPU());
    key.add(target->getTargetFeatureString());
  }
  key.add(std::to_string(static_cast<int>(options.emit)));
  key.add(std::to_string(vectorUnit.width));
  for (auto &[backend, path] : toolkits)
    key.add(std::string(backendName(backend)) + "=" + path);
}

//===----------------------------------------------------------------------===//
// Front end
//===----------------------------------------------------------------------===//

mlir::LogicalResult
ModelCompiler::compile(std::unique_ptr<llvm::MemoryBuffer> file,
                       llvm::StringRef name, bool splitInput,
                       mlir::TimingScope &timing, llvm::raw_ostream &os) {
  auto handler = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     llvm::raw_ostream &chunkOs) {
    return compileBuffer(std::move(chunk), name, timing, chunkOs);
  };
  if (splitInput)
    return mlir::splitAndProcessBuffer(std::move(file), handler, os, "// -----",
                                       "// -----");
  return handler(std::move(file), os);
}

/// Forwards the front end's diagnostics to MLIR's diagnostic engine, where
/// they are printed with a caret or checked by the verifier.
void ModelCompiler::forward(const DiagnosticEngine &diags,
                            llvm::SourceMgr &sm) {
  for (const Diagnostic &d : diags.getDiagnostics()) {
    if (d.severity == Severity::Warning && options.noWarnings)
      continue;
    mlir::Location loc = toLocation(*context, sm, d.loc);
    mlir::InFlightDiagnostic diag = d.severity == Severity::Error
                                        ? mlir::emitError(loc)
                                        : mlir::emitWarning(loc);
    diag << d.message;
    for (const DiagNote &n : d.notes)
      diag.attachNote(toLocation(*context, sm, n.loc)) << n.message;
  }
}

static std::string locString(llvm::SourceMgr &sm, llvm::SMLoc loc) {
  auto [line, col] = sm.getLineAndColumn(loc);
  return std::to_string(line) + ":" + std::to_string(col);
}

void ModelCompiler::appendStatements(ModelAST &ast, llvm::SourceMgr &sm,
                                     DiagnosticEngine &diags) {
  for (const std::string &text : options.addedStatements) {
    unsigned id = sm.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "<--add-statements>"),
        llvm::SMLoc());
    std::vector<Token> tokens =
        lex(sm.getMemoryBuffer(id)->getBuffer(), diags);
    if (diags.hasErrors())
      return;
    ModelAST added = parse(tokens, ast.name, diags);
    for (StmtPtr &s : added.stmts)
      ast.stmts.push_back(std::move(s));
  }
}

/// The front end (and from --emit=mlir on, generate) on one buffer.
mlir::LogicalResult
ModelCompiler::compileBuffer(std::unique_ptr<llvm::MemoryBuffer> file,
                             llvm::StringRef name, mlir::TimingScope &timing,
                             llvm::raw_ostream &os) {
  llvm::SourceMgr sm;
  unsigned bufferId = sm.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  llvm::StringRef buffer = sm.getMemoryBuffer(bufferId)->getBuffer();
  std::optional<mlir::SourceMgrDiagnosticVerifierHandler> verifier;
  std::optional<mlir::SourceMgrDiagnosticHandler> printer;
  if (options.verifyDiagnostics)
    verifier.emplace(sm, context.get());
  else
    printer.emplace(sm, context.get(), diagnosticsOs);

  EmitKind emit = options.emit;
  DiagnosticEngine diags(sm);
  auto lexTimer = timing.nest("lex");
  std::vector<Token> tokens = lex(buffer, diags);
  lexTimer.stop();
  if (emit == EmitKind::Tokens)
    for (const Token &t : tokens)
      os << locString(sm, t.loc) << " " << tokenKindName(t.kind) << " '"
         << t.text << "'\n";
  std::optional<Model> model;
  // Malformed tokens make the parser's view of the file unreliable: report
  // the lexical errors alone rather than a cascade of follow-on errors.
  if (emit != EmitKind::Tokens && !diags.hasErrors()) {
    auto parseTimer = timing.nest("parse");
    ModelAST ast = parse(tokens, name, diags);
    appendStatements(ast, sm, diags);
    parseTimer.stop();
    if (emit == EmitKind::AST)
      printAST(os, ast, [&](llvm::SMLoc l) { return locString(sm, l); });
    else if (!diags.hasErrors()) {
      auto semaTimer = timing.nest("sema");
      model = analyze(ast, diags);
    }
  }
  forward(diags, sm);
  bool ok = !diags.hasErrors();
  if (ok && model) {
    if (emit == EmitKind::Summary)
      printSummary(os, *model);
    else if (emit == EmitKind::SummaryJSON)
      os << llvm::formatv("{0:2}", summaryToJSON(*model)) << "\n";
    else if (emit >= EmitKind::MLIR)
      ok = generate(*model, sm, timing, os);
  }

  llvm::errs()
      << llvm::StringRef(diagnosticsText).drop_front(diagnosticsPrinted);
  diagnosticsPrinted = diagnosticsText.size();
  if (options.verifyDiagnostics)
    return verifier->verify();
  return mlir::success(ok);
}

//===----------------------------------------------------------------------===//
// MLIR, the pipelines and the back end
//===----------------------------------------------------------------------===//

/// --per-cell-params names parameters or flags of this model (the lowering
/// checks it too, with what only it knows: the tables' inputs).
bool ModelCompiler::checkPerCellParams(const Model &model) {
  bool namesOk = true;
  for (const std::string &name : object.perCellParams) {
    auto named = [&](const auto &v) { return v.name == name; };
    if (name == "all" || llvm::any_of(model.params, named) ||
        llvm::any_of(model.flags, named))
      continue;
    reportError("--per-cell-params: model '" + model.name +
                "' has no parameter or flag '" + name + "'");
    namesOk = false;
  }
  return namesOk;
}

void ModelCompiler::fillPipelineOptions(PipelineOptions &pipeline) const {
  std::vector<std::string> variants;
  for (VariantKind variant : object.variants)
    variants.push_back(stringifyVariantKind(variant).str());
  pipeline.variants = variants;
  pipeline.vectorWidth = vectorUnit.width;
  pipeline.vectorIsa = vectorUnit.isa;
  pipeline.vectorMath = options.vectorMath;
  pipeline.tables = options.tables;
  pipeline.wholeCell = options.wholeCell;
  pipeline.exactDivision = options.exactDivision;
  pipeline.cvodeRelTol = options.cvodeRelTol;
  pipeline.cvodeAbsTol = options.cvodeAbsTol;
  pipeline.cvodeMaxSubsteps = options.cvodeMaxSubsteps;
  pipeline.cvodePivoting = options.cvodePivoting;
  pipeline.cvodeJacobianAge = options.cvodeJacobianAge;
  pipeline.cvodeMethod = options.cvodeMethod;
  pipeline.perCellParams = object.perCellParams;
  pipeline.emulateGpuKernels = options.emulateGpuKernels;
  // The toolkits found; --emit=gpu-asm stops at PTX and GCN assembly.
  GpuCompileOptions gpu = options.gpu;
  for (Backend backend : kGpuBackends) {
    auto found = toolkits.find(backend);
    gpu.of(backend).toolkit = found == toolkits.end() ? "" : found->second;
  }
  gpu.format =
      options.emit == EmitKind::GpuAsm ? GpuFormat::Isa : GpuFormat::Default;
  pipeline.setGpuCompileOptions(gpu);
}

/// MLIR generation, the stages of easyml-compile-pipeline (one pass
/// manager each: the emit kind stops after one and --mlir-timing reports
/// each) and the back end.
bool ModelCompiler::generate(const Model &model, llvm::SourceMgr &sm,
                             mlir::TimingScope &timing, llvm::raw_ostream &os) {
  if (!checkPerCellParams(model))
    return false;
  auto genTimer = timing.nest("mlirgen");
  mlir::OwningOpRef<mlir::ModuleOp> module = mlirGen(*context, model, sm);
  genTimer.stop();
  if (!module)
    return false;
  PipelineOptions pipeline;
  fillPipelineOptions(pipeline);
  auto runStage = [&](std::optional<CompileStage> stage, llvm::StringRef name) {
    mlir::PassManager pm(context.get());
    auto scope = timing.nest(name);
    pm.enableTiming(scope);
    if (stage)
      buildCompileStage(pm, *stage, pipeline, &timing);
    return mlir::succeeded(mlir::applyPassManagerCLOptions(pm)) &&
           mlir::succeeded(pm.run(*module));
  };
  auto print = [&] {
    mlir::OpPrintingFlags flags;
    if (!options.noLocations)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    module->print(os, flags);
    os << "\n";
    return true;
  };
  EmitKind emit = options.emit;
  if (emit == EmitKind::MLIR)
    return runStage(std::nullopt, "passes") && print();
  if (!runStage(CompileStage::Prepare, "prepare"))
    return false;
  ModelLayout layout = ModelLayout::get(*module->getOps<ModelOp>().begin());
  if (emit == EmitKind::Prepared)
    return print();
  if (emit == EmitKind::Header) {
    os << emitHeader(layout, object);
    return true;
  }
  if (!runStage(CompileStage::Kernels, "kernels") ||
      !runStage(CompileStage::Gpu, "gpu"))
    return false;
  if (emit != EmitKind::GpuAsm && !runStage(CompileStage::Lower, "lower"))
    return false;
  if (emit == EmitKind::LLVMDialect)
    return print();
  if (!takeGpuImages(*module, layout, os))
    return false;
  return emit == EmitKind::GpuAsm || emitNative(*module, layout, timing, os);
}

/// The code object `object` of a `backend` variant. Assembly (`text`) comes
/// back NUL-terminated from the serialiser: a text file must not carry it
/// (ptxas rejects it).
static GpuImage codeObject(mlir::gpu::ObjectAttr object, Backend backend,
                           bool text) {
  std::string chip;
  if (auto nvvm =
          llvm::dyn_cast<mlir::NVVM::NVVMTargetAttr>(object.getTarget()))
    chip = nvvm.getChip().str();
  else if (auto rocdl =
               llvm::dyn_cast<mlir::ROCDL::ROCDLTargetAttr>(object.getTarget()))
    chip = rocdl.getChip().str();
  std::string data = object.getObject().getValue().str();
  if (text)
    while (!data.empty() && data.back() == '\0')
      data.pop_back();
  return GpuImage{chip, backend == Backend::Cuda ? "fatbin" : "hsaco",
                  std::move(data)};
}

/// The GPU variants' code objects leave the module for the descriptor, or
/// for `os` with --emit=gpu-asm.
bool ModelCompiler::takeGpuImages(mlir::ModuleOp module,
                                  const ModelLayout &layout,
                                  llvm::raw_ostream &os) {
  bool gpuAsm = options.emit == EmitKind::GpuAsm;
  bool anyGpu = false;
  for (VariantKind variant : object.variants)
    if (isGpuVariant(variant))
      object.gpuImages[variant].clear();
  for (mlir::gpu::BinaryOp binary :
       llvm::make_early_inc_range(module.getOps<mlir::gpu::BinaryOp>())) {
    anyGpu = true;
    auto variant =
        binary->getAttrOfType<VariantAttr>(VariantAttr::getAttrName());
    if (!variant) {
      binary.emitError("gpu.binary '")
          << binary.getName() << "' has no " << VariantAttr::getAttrName();
      return false;
    }
    llvm::StringRef name = variant.getName();
    std::vector<GpuImage> &images = object.gpuImages[variant.getKind()];
    for (mlir::Attribute a : binary.getObjects()) {
      GpuImage image = codeObject(llvm::cast<mlir::gpu::ObjectAttr>(a),
                                  variant.getBackend(), gpuAsm);
      // What the compute kernel uses decides its block size (not known
      // from assembly); a code object we cannot read still runs, at the
      // runtime's default.
      if (gpuAsm)
        os << "// " << layout.name << ": " << name << " kernels for "
           << image.chip << "\n"
           << image.data << "\n";
      else if (llvm::Error e =
                   recordKernelResources(image, layout.symbol(name, "compute")))
        llvm::errs() << "easyml-compile: warning: " << name << " " << image.chip
                     << " code object: " << llvm::toString(std::move(e))
                     << "; its kernels will run 128 threads per block\n";
      images.push_back(std::move(image));
    }
    binary->erase();
  }
  if (gpuAsm && !anyGpu) {
    reportError("--emit=gpu-asm needs a GPU variant (--variant=cuda or rocm)");
    return false;
  }
  return true;
}

/// LLVM IR with the descriptor, optimised, then native code and, for a
/// shared library, linked.
bool ModelCompiler::emitNative(mlir::ModuleOp module, const ModelLayout &layout,
                               mlir::TimingScope &timing,
                               llvm::raw_ostream &os) {
  std::string error;
  llvm::LLVMContext llvmContext;
  auto translateTimer = timing.nest("translate");
  auto llvmModule =
      translateModel(module, llvmContext, layout, object, *target, error);
  translateTimer.stop();
  if (!llvmModule) {
    reportError(error);
    return false;
  }
  {
    auto optTimer = timing.nest("llvm-opt");
    optimizeModule(*llvmModule, *target, options.optLevel);
  }
  EmitKind emit = options.emit;
  if (emit == EmitKind::LLVMIR) {
    llvmModule->print(os, nullptr);
    return true;
  }
  llvm::SmallVector<char, 0> code;
  llvm::raw_svector_ostream codeOs(code);
  {
    auto codegenTimer = timing.nest("codegen");
    if (!emitCode(*llvmModule, *target, codeOs, emit == EmitKind::Asm, error)) {
      reportError(error);
      return false;
    }
  }
  llvm::StringRef objectCode(code.data(), code.size());
  if (emit != EmitKind::Shared) {
    os << objectCode;
    return true;
  }
  auto linkTimer = timing.nest("link");
  std::string library;
  if (!linkSharedObject(objectCode, object.libraries, library, error)) {
    reportError(error);
    return false;
  }
  os << library;
  return true;
}
