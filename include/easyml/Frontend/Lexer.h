//===- Lexer.h - EasyML tokens and lexer ----------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_FRONTEND_LEXER_H
#define EASYML_FRONTEND_LEXER_H

#include "easyml/Frontend/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <vector>

namespace easyml {

enum class TokenKind {
  Eof,
  Identifier,
  Number,
  Semi,        // ;
  Comma,       // ,
  LParen,      // (
  RParen,      // )
  LBrace,      // {
  RBrace,      // }
  Dot,         // .  (markup introducer)
  Assign,      // =
  PlusAssign,  // +=
  MinusAssign, // -=
  StarAssign,  // *=
  SlashAssign, // /=
  Plus,        // +
  Minus,       // -
  Star,        // *
  Slash,       // /
  Less,        // <
  LessEqual,   // <=
  Greater,     // >
  GreaterEqual,// >=
  EqualEqual,  // ==
  NotEqual,    // !=
  AmpAmp,      // &&
  PipePipe,    // ||
  Bang,        // !
  Question,    // ?
  Colon,       // :
  Caret,       // ^  (units only)
  Arrow,       // -> (tolerated `sv->X` struct access)
};

/// The spelling of a token kind, for diagnostics and `--emit=tokens`.
llvm::StringRef tokenKindName(TokenKind kind);

struct Token {
  TokenKind kind;
  llvm::StringRef text;
  llvm::SMLoc loc;
  double number = 0; // value of a Number token

  bool is(TokenKind k) const { return kind == k; }
  bool isIdentifier(llvm::StringRef name) const {
    return kind == TokenKind::Identifier && text == name;
  }
};

/// Splits one EasyML buffer into tokens. Comments (`//`, `/* */`, `#`) and
/// whitespace are skipped; malformed input is reported to `diags` and
/// skipped, so the token stream is always usable and ends with Eof.
std::vector<Token> lex(llvm::StringRef buffer, DiagnosticEngine &diags);

} // namespace easyml

#endif // EASYML_FRONTEND_LEXER_H
