//===- TestUtil.h - helpers for front-end unit tests ----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_UNITTESTS_FRONTEND_TESTUTIL_H
#define EASYML_UNITTESTS_FRONTEND_TESTUTIL_H

#include "easyml/Frontend/Lexer.h"
#include "easyml/Frontend/Parser.h"
#include "easyml/Frontend/Sema.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>

namespace easyml::test {

/// Owns a source buffer and runs front-end stages on it.
struct Harness {
  llvm::SourceMgr sm;
  DiagnosticEngine diags{sm};
  llvm::StringRef text;

  explicit Harness(llvm::StringRef source) {
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(source, "t"),
                          llvm::SMLoc());
    text = sm.getMemoryBuffer(1)->getBuffer();
  }
  std::vector<Token> tokens() { return lex(text, diags); }
  ModelAST ast() {
    std::vector<Token> toks = tokens();
    return parse(toks, "t", diags);
  }
  std::optional<Model> model() {
    ModelAST a = ast();
    if (diags.hasErrors())
      return std::nullopt;
    return analyze(a, diags);
  }
  /// The first error message, or "".
  std::string firstError() const {
    for (const Diagnostic &d : diags.getDiagnostics())
      if (d.severity == Severity::Error)
        return d.message;
    return "";
  }
};

} // namespace easyml::test

#endif // EASYML_UNITTESTS_FRONTEND_TESTUTIL_H
