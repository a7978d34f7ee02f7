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
// The tool declares its flags; the compilation is easyml::ModelCompiler's
// (lib/Driver), the artifact cache CompileCacheEntry's.
//
//===----------------------------------------------------------------------===//

#include "easyml/Driver/CompileCache.h"
#include "easyml/Driver/ModelCompiler.h"
#include "easyml/Support/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace easyml;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("easyml-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model file>"),
                               cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file (default: stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<EmitKind> emit("emit", cl::desc("What to produce"),
                       cl::init(EmitKind::Summary), emitKindValues(),
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
cl::opt<bool> exactDivision(
    "exact-division",
    cl::desc("Divide by parameters and constants as written, instead of "
             "multiplying by their reciprocal (one rounding more, a tenth "
             "of the cost)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> adaptive(
    "adaptive",
    cl::desc("Integrate each cell, Vm included, with its own error-"
             "controlled step: every state and Vm form one cvode group "
             "(--cvode-rtol/--cvode-atol/--cvode-method, default 1e-4, 1e-7 "
             "and rodas3 with --adaptive), and dt becomes the grid of "
             "stimuli, samples and events"),
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
cl::opt<std::string> cvodeMethod(
    "cvode-method",
    cl::desc("Adaptive integrator of cvode groups: ros2 (order 2, "
             "first-order error estimate; the default) or rodas3 (order 3, "
             "L-stable, second-order estimate: longer sub-steps at the same "
             "tolerance; the default with --adaptive)"),
    cl::init("ros2"), cl::cat(category));
cl::opt<int64_t> cvodeJacobianAge(
    "cvode-jacobian-age",
    cl::desc("Time steps a cell may reuse the factorised iteration matrix "
             "of a cvode group for, while its sub-steps pass the error test "
             "and gamma*h stays within 30% (0: a new Jacobian every "
             "sub-step; ignored with --cvode-pivoting and with "
             "--cvode-method=rodas3, the default with --adaptive)"),
    cl::init(0), cl::cat(category));
cl::list<std::string> perCellParams(
    "per-cell-params",
    cl::desc("Parameters and flags the GPU variants read per cell, "
             "comma-separated, or 'all' (a population varies them; the "
             "others are shared and passed in the launch's constant bank, "
             "which keeps them out of registers). CPU variants read any "
             "parameter per cell"),
    cl::CommaSeparated, cl::cat(category));
cl::list<std::string> addStatements(
    "add-statements",
    cl::desc("EasyML statements compiled after the model's own, as if the "
             "model ended with them (repeatable): a state and its equation, "
             "or `X += term` on one of the model's equations. Checked like "
             "the model; errors point into the option. Drug studies add "
             "their qNet state this way"),
    cl::value_desc("statements"), cl::cat(category));
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

/// What the flags ask for.
static ModelCompilerOptions optionsFromFlags() {
  ModelCompilerOptions options;
  options.emit = emit;
  options.variants.assign(variantList.begin(), variantList.end());
  options.vectorWidth = vectorWidth;
  options.vectorMath = vectorMath;
  options.unknownVectorMath = unknownValue(vectorMath);
  options.gpu.cuda = {{cudaChips.begin(), cudaChips.end()}, cudaPath};
  options.gpu.rocm = {{rocmChips.begin(), rocmChips.end()}, rocmPath};
  options.gpu.smemSpilling = cudaSmemSpilling;
  options.gpu.registerCaps = cudaRegisterCaps;
  options.gpu.machineSink = cudaMachineSink;
  options.tables = !noTables;
  options.wholeCell = adaptive;
  options.exactDivision = exactDivision;
  options.cvodeRelTol = cvodeRtol;
  options.cvodeAbsTol = cvodeAtol;
  // The whole cell's tolerances: Vm and the concentrations to about 0.01%
  // (the 1e-6 of cvode groups costs ten times the sub-steps and moves no
  // biomarker: docs/integrators.md).
  if (adaptive && !cvodeRtol.getNumOccurrences())
    options.cvodeRelTol = 1e-4;
  if (adaptive && !cvodeAtol.getNumOccurrences())
    options.cvodeAbsTol = 1e-7;
  options.cvodeMaxSubsteps = cvodeMaxSubsteps;
  options.cvodePivoting = cvodePivoting;
  options.cvodeJacobianAge = cvodeJacobianAge;
  options.cvodeMethod = adaptive && !cvodeMethod.getNumOccurrences()
                            ? std::string("rodas3")
                            : cvodeMethod.getValue();
  options.perCellParams.assign(perCellParams.begin(), perCellParams.end());
  options.addedStatements.assign(addStatements.begin(), addStatements.end());
  options.emulateGpuKernels = emulateGpuKernels;
  options.optLevel = optLevel;
  options.cpu = cpu;
  options.verifyDiagnostics = verifyDiagnostics;
  options.noWarnings = noWarnings;
  options.noLocations = noLocations;
  options.compilerId =
      "easyml-compile " EASYML_VERSION " (git " EASYML_GIT_HASH ")";
  return options;
}

static int fail(llvm::StringRef message) {
  llvm::errs() << "easyml-compile: error: " << message << "\n";
  return 1;
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
  // Response files (@FILE) expanded once, so that the artifact cache keys
  // on the options they hold, not on their names.
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  llvm::SmallVector<const char *, 32> args(argv, argv + argc);
  if (!cl::ExpandResponseFiles(saver, cl::TokenizeGNUCommandLine, args))
    return fail("cannot read a response file of the command line");
  cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(),
                              "EasyML compiler: cardiac ionic models "
                              "(.model) to MLIR and native code\n");

  mlir::DefaultTimingManager tm;
  mlir::applyDefaultTimingManagerCLOptions(tm);
  mlir::TimingScope timing = tm.getRootScope();

  ModelCompiler compiler(optionsFromFlags());
  if (!compiler.configure(checkVariants))
    return 1;
  if (checkVariants)
    return 0;
  std::string errorMessage;
  auto file = mlir::openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  std::string name = modelName;
  if (name.empty())
    name = inputFile == "-" ? "model" : llvm::sys::path::stem(inputFile).str();

  // The artifact cache: repeated builds of an unchanged model are a copy.
  std::optional<CompileCacheEntry> cache;
  {
    auto cacheTimer = timing.nest("cache");
    if (!noCache && !splitInputFile)
      cache =
          CompileCacheEntry::get(compiler, llvm::ArrayRef(args), outputFile,
                                 name, file->getBuffer(), cacheDir);
    if (auto hit = cache ? cache->read() : nullptr) {
      auto output = mlir::openOutputFile(outputFile, &errorMessage);
      if (!output)
        return fail(errorMessage);
      cache->replayDiagnostics(noWarnings);
      output->os() << hit->getBuffer();
      output->keep();
      if (cacheStatus)
        llvm::outs() << "cached\n";
      return 0;
    }
  }

  std::string out;
  llvm::raw_string_ostream os(out);
  if (mlir::failed(
          compiler.compile(std::move(file), name, splitInputFile, timing, os)))
    return 1;
  auto output = mlir::openOutputFile(outputFile, &errorMessage);
  if (!output)
    return fail(errorMessage);
  output->os() << out;
  output->keep();
  if (cache)
    cache->store(out, compiler.getDiagnostics());
  if (cacheStatus)
    llvm::outs() << "compiled\n";
  return 0;
}
