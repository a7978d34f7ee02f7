//===- ModelCompiler.h - a model file to what --emit asks -----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What easyml-compile does, as a library: the options resolved once (the
// variants, the target machine, the GPU toolkits), then per model the front
// end, MLIR generation, the stages of easyml-compile-pipeline, the GPU code
// objects taken out of the module for the descriptor, and the back end
// (translation, optimisation, code generation, linking). The tool declares
// its flags and fills ModelCompilerOptions from them.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DRIVER_MODELCOMPILER_H
#define EASYML_DRIVER_MODELCOMPILER_H

#include "easyml/Conversion/MathToVectorLibrary/VectorMath.h"
#include "easyml/Target/GpuCompileOptions.h"
#include "easyml/Target/ModelObject.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/LogicalResult.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace easyml {

struct Model;
struct ModelAST;
class ArtifactKey;
class DiagnosticEngine;
struct PipelineOptions;

/// What a compilation produces, in the order of the stages that make it:
/// each needs those before it.
enum class EmitKind {
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

/// The spellings of --emit.
llvm::cl::ValuesClass emitKindValues();

/// Everything a compilation is asked for (easyml-compile's flags).
struct ModelCompilerOptions {
  EmitKind emit = EmitKind::Summary;
  /// Variant names as given; empty: baseline and cpu-simd.
  std::vector<std::string> variants;
  /// Cells per vector of cpu-simd; 0: the target CPU's.
  unsigned vectorWidth = 0;
  VectorMath vectorMath = VectorMath::Libmvec;
  /// What --vector-math was given that is none of its values.
  std::optional<std::string> unknownVectorMath;
  /// The GPU variants' chips, toolkits given and back-end settings (the
  /// format is the emit kind's).
  GpuCompileOptions gpu;
  /// Tabulate .lookup() expressions.
  bool tables = true;
  /// Integrate each cell, Vm included, as one adaptive system.
  bool wholeCell = false;
  /// Keep divisions by cell-independent values (PipelineOptions).
  bool exactDivision = false;
  double cvodeRelTol = 1e-6, cvodeAbsTol = 1e-9;
  int64_t cvodeMaxSubsteps = 5000;
  bool cvodePivoting = false;
  int64_t cvodeJacobianAge = 0;
  /// The adaptive integrator: "ros2" or "rodas3".
  std::string cvodeMethod = "ros2";
  /// Parameters and flags the GPU variants read per cell ("all").
  std::vector<std::string> perCellParams;
  /// EasyML statements parsed after the model's own (--add-statements),
  /// each a source buffer of its own for diagnostics.
  std::vector<std::string> addedStatements;
  /// Also compile every GPU kernel for the host (the emulated drivers).
  bool emulateGpuKernels = false;
  /// LLVM optimisation level of the host code.
  unsigned optLevel = 2;
  /// Target CPU; empty: the host's.
  std::string cpu;
  /// Check diagnostics against the input's expected-* annotations.
  bool verifyDiagnostics = false;
  bool noWarnings = false;
  /// Print MLIR without source locations.
  bool noLocations = false;
  /// The compiler's identity, recorded in descriptors and headers.
  std::string compilerId;
};

/// Compiles models as ModelCompilerOptions say, in an MLIR context of its
/// own holding what easyml-compile registers. Problems with the options are
/// reported on stderr as "easyml-compile: error: ..."; diagnostics about a
/// model point into it (MLIR's source manager handlers).
class ModelCompiler {
public:
  explicit ModelCompiler(ModelCompilerOptions options);
  ModelCompiler(const ModelCompiler &) = delete;
  ModelCompiler &operator=(const ModelCompiler &) = delete;
  ~ModelCompiler();

  /// Resolves the variants, the target machine and the GPU toolkits the
  /// emit kind needs, reporting every problem with the options; false if
  /// there is one. With `checkOnly` (--check-variants), whether the
  /// variants asked for can be built on this machine.
  bool configure(bool checkOnly = false);

  /// Compiles the model in `file`, called `name` (with `splitInput`, each
  /// chunk between "// -----" lines as a model of its own), writing what
  /// the emit kind asks for to `os`. Fails after reporting the model's
  /// errors; with verifyDiagnostics, succeeds when the diagnostics match
  /// the input's expected-* annotations.
  mlir::LogicalResult compile(std::unique_ptr<llvm::MemoryBuffer> file,
                              llvm::StringRef name, bool splitInput,
                              mlir::TimingScope &timing, llvm::raw_ostream &os);

  /// The diagnostics printed so far, as printed: what a build served from
  /// the artifact cache shows again.
  llvm::StringRef getDiagnostics() const { return diagnosticsText; }

  /// Adds to `key` what the output depends on besides the command line and
  /// the model: the emit kind, the target machine, the vector width and
  /// the GPU toolkits found.
  void addToCacheKey(ArtifactKey &key) const;

  const ModelCompilerOptions &getOptions() const { return options; }

private:
  bool checkOptions();
  bool configureTarget();
  bool findToolkits();
  mlir::LogicalResult compileBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                    llvm::StringRef name,
                                    mlir::TimingScope &timing,
                                    llvm::raw_ostream &os);
  void forward(const DiagnosticEngine &diags, llvm::SourceMgr &sm);
  /// Parses the added statements, each a buffer of `sm` of its own, after
  /// `ast`'s.
  void appendStatements(ModelAST &ast, llvm::SourceMgr &sm,
                        DiagnosticEngine &diags);
  bool checkPerCellParams(const Model &model);
  void fillPipelineOptions(PipelineOptions &pipeline) const;
  bool generate(const Model &model, llvm::SourceMgr &sm,
                mlir::TimingScope &timing, llvm::raw_ostream &os);
  bool takeGpuImages(mlir::ModuleOp module, const ModelLayout &layout,
                     llvm::raw_ostream &os);
  bool emitNative(mlir::ModuleOp module, const ModelLayout &layout,
                  mlir::TimingScope &timing, llvm::raw_ostream &os);

  ModelCompilerOptions options;
  std::unique_ptr<mlir::MLIRContext> context;
  /// What the options resolve to, shared by every model of the input.
  ObjectOptions object;
  VectorUnit vectorUnit;
  std::unique_ptr<llvm::TargetMachine> target;
  /// Where the GPU toolkits the variants need were found.
  std::map<Backend, std::string> toolkits;
  /// Diagnostics printed while compiling, and how much of them is on
  /// stderr already.
  std::string diagnosticsText;
  llvm::raw_string_ostream diagnosticsOs{diagnosticsText};
  size_t diagnosticsPrinted = 0;
};

} // namespace easyml

#endif // EASYML_DRIVER_MODELCOMPILER_H
