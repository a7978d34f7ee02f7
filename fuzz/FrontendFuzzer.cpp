//===- FrontendFuzzer.cpp - libFuzzer entry for the front end -------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Runs every front-end stage on arbitrary bytes. Any crash, sanitizer report
// or assertion is a bug: bad input must only ever produce diagnostics.
//
//===----------------------------------------------------------------------===//

#include "easyml/Frontend/Lexer.h"
#include "easyml/Frontend/Parser.h"
#include "easyml/Frontend/Sema.h"
#include "easyml/Frontend/Summary.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.model"),
      llvm::SMLoc());
  llvm::StringRef text = sm.getMemoryBuffer(1)->getBuffer();
  easyml::DiagnosticEngine diags(sm);
  std::vector<easyml::Token> tokens = easyml::lex(text, diags);
  easyml::ModelAST ast = easyml::parse(tokens, "fuzz", diags);
  std::string sink;
  llvm::raw_string_ostream os(sink);
  if (!diags.hasErrors())
    if (std::optional<easyml::Model> model = easyml::analyze(ast, diags)) {
      easyml::printSummary(os, *model);
      os << easyml::summaryToJSON(*model);
    }
  diags.print(os);
  return 0;
}
