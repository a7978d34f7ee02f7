//===- easyml-compile.cpp - EasyML compiler driver ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// easyml-compile model.model --emit=<stage> [-o out]
//
// Stages: tokens, ast, summary, summary-json, mlir. Diagnostics are printed
// as file:line:col with the source line and a caret; every error in the
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
#include "easyml/Support/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace easyml;
namespace cl = llvm::cl;

namespace {
enum class Emit { Tokens, AST, Summary, SummaryJSON, MLIR };

cl::OptionCategory category("easyml-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model file>"),
                               cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file (default: stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::opt<Emit> emit(
    "emit", cl::desc("What to produce"), cl::init(Emit::Summary),
    cl::values(clEnumValN(Emit::Tokens, "tokens", "the token stream"),
               clEnumValN(Emit::AST, "ast", "the syntax tree"),
               clEnumValN(Emit::Summary, "summary",
                          "what the front end understood (default)"),
               clEnumValN(Emit::SummaryJSON, "summary-json",
                          "the summary as JSON"),
               clEnumValN(Emit::MLIR, "mlir",
                          "the easyml dialect, with source locations")),
    cl::cat(category));
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

/// Runs the front end (and MLIR generation) on one buffer, writing the
/// requested stage to `os`. With --verify-diagnostics, succeeds when the
/// diagnostics match the buffer's expected-* annotations.
static mlir::LogicalResult processBuffer(
    std::unique_ptr<llvm::MemoryBuffer> file, llvm::StringRef name,
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
    printer.emplace(sm, &context);

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
        printAST(os, ast,
                 [&](llvm::SMLoc l) { return locString(sm, l); });
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
      else if (emit == Emit::MLIR) {
        auto genTimer = timing.nest("mlirgen");
        mlir::OwningOpRef<mlir::ModuleOp> module =
            mlirGen(context, *model, sm);
        genTimer.stop();
        if (!module) {
          ok = false;
        } else {
          mlir::PassManager pm(&context);
          pm.enableTiming(timing);
          if (mlir::failed(mlir::applyPassManagerCLOptions(pm)) ||
              mlir::failed(pm.run(*module)))
            ok = false;
          mlir::OpPrintingFlags flags;
          if (!noLocations)
            flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
          if (ok)
            module->print(os, flags);
        }
      }
    }
  }

  if (verifyDiagnostics)
    return verifier->verify();
  return mlir::success(ok);
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { printVersion(os, "easyml-compile"); });
  cl::ParseCommandLineOptions(argc, argv,
                              "EasyML compiler: cardiac ionic models "
                              "(.model) to MLIR and native code\n");

  mlir::DefaultTimingManager tm;
  mlir::applyDefaultTimingManagerCLOptions(tm);
  mlir::TimingScope timing = tm.getRootScope();

  std::string errorMessage;
  auto file = mlir::openInputFile(inputFile, &errorMessage);
  if (!file) {
    llvm::errs() << "easyml-compile: error: " << errorMessage << "\n";
    return 1;
  }
  std::string name = modelName;
  if (name.empty())
    name = inputFile == "-" ? "model"
                            : llvm::sys::path::stem(inputFile).str();

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);

  std::string out;
  llvm::raw_string_ostream os(out);
  auto handler = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     llvm::raw_ostream &chunkOs) {
    return processBuffer(std::move(chunk), name, context, timing, chunkOs);
  };
  mlir::LogicalResult result =
      splitInputFile ? mlir::splitAndProcessBuffer(std::move(file), handler,
                                                   os, "// -----", "// -----")
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
  return 0;
}
