//===- Parser.h - EasyML parser -------------------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_FRONTEND_PARSER_H
#define EASYML_FRONTEND_PARSER_H

#include "easyml/Frontend/AST.h"
#include "easyml/Frontend/Diagnostics.h"
#include "easyml/Frontend/Lexer.h"

namespace easyml {

/// Parses `tokens` (which end with Eof) into an AST. Syntax errors are
/// reported to `diags`; the parser resynchronises at the next `;` or `}` and
/// goes on, so one run reports every error in the file.
ModelAST parse(llvm::ArrayRef<Token> tokens, llvm::StringRef modelName,
               DiagnosticEngine &diags);

/// The markups the front end understands.
bool isKnownMarkup(llvm::StringRef name);

} // namespace easyml

#endif // EASYML_FRONTEND_PARSER_H
