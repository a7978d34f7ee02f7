//===- Lexer.cpp - EasyML lexer -------------------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Frontend/Lexer.h"

#include "llvm/ADT/StringExtras.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

using namespace easyml;
using llvm::SMLoc;
using llvm::StringRef;

StringRef easyml::tokenKindName(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof: return "end of file";
  case TokenKind::Identifier: return "identifier";
  case TokenKind::Number: return "number";
  case TokenKind::Semi: return "';'";
  case TokenKind::Comma: return "','";
  case TokenKind::LParen: return "'('";
  case TokenKind::RParen: return "')'";
  case TokenKind::LBrace: return "'{'";
  case TokenKind::RBrace: return "'}'";
  case TokenKind::Dot: return "'.'";
  case TokenKind::Assign: return "'='";
  case TokenKind::PlusAssign: return "'+='";
  case TokenKind::MinusAssign: return "'-='";
  case TokenKind::StarAssign: return "'*='";
  case TokenKind::SlashAssign: return "'/='";
  case TokenKind::Plus: return "'+'";
  case TokenKind::Minus: return "'-'";
  case TokenKind::Star: return "'*'";
  case TokenKind::Slash: return "'/'";
  case TokenKind::Less: return "'<'";
  case TokenKind::LessEqual: return "'<='";
  case TokenKind::Greater: return "'>'";
  case TokenKind::GreaterEqual: return "'>='";
  case TokenKind::EqualEqual: return "'=='";
  case TokenKind::NotEqual: return "'!='";
  case TokenKind::AmpAmp: return "'&&'";
  case TokenKind::PipePipe: return "'||'";
  case TokenKind::Bang: return "'!'";
  case TokenKind::Question: return "'?'";
  case TokenKind::Colon: return "':'";
  case TokenKind::Caret: return "'^'";
  case TokenKind::Arrow: return "'->'";
  }
  return "token";
}

namespace {
/// A hand-written lexer over one buffer.
class Lexer {
public:
  Lexer(StringRef buffer, DiagnosticEngine &diags)
      : buf(buffer), cur(buffer.begin()), end(buffer.end()), diags(diags) {}

  std::vector<Token> run() {
    std::vector<Token> toks;
    while (true) {
      skipTrivia();
      if (cur >= end) {
        toks.push_back({TokenKind::Eof, StringRef(end, 0), loc(end)});
        return toks;
      }
      if (diags.tooManyErrors()) {
        toks.push_back({TokenKind::Eof, StringRef(end, 0), loc(end)});
        return toks;
      }
      lexOne(toks);
    }
  }

private:
  static SMLoc loc(const char *p) { return SMLoc::getFromPointer(p); }
  static bool isIdentStart(char c) { return llvm::isAlpha(c) || c == '_'; }
  static bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

  void skipTrivia() {
    while (cur < end) {
      char c = *cur;
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
          c == '\v') {
        ++cur;
      } else if (c == '#' || (c == '/' && cur + 1 < end && cur[1] == '/')) {
        while (cur < end && *cur != '\n')
          ++cur;
      } else if (c == '/' && cur + 1 < end && cur[1] == '*') {
        const char *start = cur;
        cur += 2;
        while (cur + 1 < end && !(cur[0] == '*' && cur[1] == '/'))
          ++cur;
        if (cur + 1 >= end) {
          diags.error(loc(start), "unterminated '/*' comment");
          cur = end;
        } else {
          cur += 2;
        }
      } else {
        return;
      }
    }
  }

  void push(std::vector<Token> &toks, TokenKind kind, const char *start) {
    toks.push_back({kind, StringRef(start, cur - start), loc(start)});
  }

  void lexNumber(std::vector<Token> &toks) {
    const char *start = cur;
    while (cur < end && llvm::isDigit(*cur))
      ++cur;
    if (cur < end && *cur == '.') {
      ++cur;
      while (cur < end && llvm::isDigit(*cur))
        ++cur;
    }
    bool bad = false;
    if (cur < end && (*cur == 'e' || *cur == 'E')) {
      const char *expStart = cur;
      ++cur;
      if (cur < end && (*cur == '+' || *cur == '-'))
        ++cur;
      if (cur >= end || !llvm::isDigit(*cur)) {
        // Include any identifier tail in the reported spelling.
        while (cur < end && isIdentChar(*cur))
          ++cur;
        diags.error(loc(start), "malformed number '" +
                                    StringRef(start, cur - start) +
                                    "': exponent has no digits");
        bad = true;
        (void)expStart;
      } else {
        while (cur < end && llvm::isDigit(*cur))
          ++cur;
      }
    }
    if (!bad && cur < end && (isIdentChar(*cur) || *cur == '.')) {
      const char *suffix = cur;
      while (cur < end && (isIdentChar(*cur) || *cur == '.'))
        ++cur;
      diags.error(loc(start), "malformed number '" +
                                  StringRef(start, cur - start) +
                                  "': unexpected '" +
                                  StringRef(suffix, cur - suffix) +
                                  "' after the digits");
      bad = true;
    }
    Token tok{TokenKind::Number, StringRef(start, cur - start), loc(start)};
    if (!bad) {
      std::string text = tok.text.str();
      errno = 0;
      tok.number = std::strtod(text.c_str(), nullptr);
      if (std::isinf(tok.number)) {
        diags.error(loc(start), "number '" + tok.text +
                                    "' is too large for a double");
        tok.number = 0;
      }
    }
    toks.push_back(tok);
  }

  void lexOne(std::vector<Token> &toks) {
    const char *start = cur;
    char c = *cur;
    if (isIdentStart(c)) {
      while (cur < end && isIdentChar(*cur))
        ++cur;
      push(toks, TokenKind::Identifier, start);
      return;
    }
    if (llvm::isDigit(c) ||
        (c == '.' && cur + 1 < end && llvm::isDigit(cur[1]))) {
      lexNumber(toks);
      return;
    }
    auto next = [&](char n) { return cur + 1 < end && cur[1] == n; };
    auto two = [&](TokenKind k) {
      cur += 2;
      push(toks, k, start);
    };
    auto one = [&](TokenKind k) {
      cur += 1;
      push(toks, k, start);
    };
    switch (c) {
    case ';': return one(TokenKind::Semi);
    case ',': return one(TokenKind::Comma);
    case '(': return one(TokenKind::LParen);
    case ')': return one(TokenKind::RParen);
    case '{': return one(TokenKind::LBrace);
    case '}': return one(TokenKind::RBrace);
    case '.': return one(TokenKind::Dot);
    case '?': return one(TokenKind::Question);
    case ':': return one(TokenKind::Colon);
    case '^': return one(TokenKind::Caret);
    case '=': return next('=') ? two(TokenKind::EqualEqual)
                               : one(TokenKind::Assign);
    case '+': return next('=') ? two(TokenKind::PlusAssign)
                               : one(TokenKind::Plus);
    case '-':
      if (next('>'))
        return two(TokenKind::Arrow);
      return next('=') ? two(TokenKind::MinusAssign) : one(TokenKind::Minus);
    case '*': return next('=') ? two(TokenKind::StarAssign)
                               : one(TokenKind::Star);
    case '/': return next('=') ? two(TokenKind::SlashAssign)
                               : one(TokenKind::Slash);
    case '<': return next('=') ? two(TokenKind::LessEqual)
                               : one(TokenKind::Less);
    case '>': return next('=') ? two(TokenKind::GreaterEqual)
                               : one(TokenKind::Greater);
    case '!': return next('=') ? two(TokenKind::NotEqual)
                               : one(TokenKind::Bang);
    case '&':
      if (next('&'))
        return two(TokenKind::AmpAmp);
      ++cur;
      diags.error(loc(start), "unexpected character '&'; did you mean '&&'?");
      return;
    case '|':
      if (next('|'))
        return two(TokenKind::PipePipe);
      ++cur;
      diags.error(loc(start), "unexpected character '|'; did you mean '||'?");
      return;
    default:
      break;
    }
    // Anything else: report one error for a run of unknown bytes.
    ++cur;
    unsigned char uc = static_cast<unsigned char>(c);
    if (llvm::isPrint(c))
      diags.error(loc(start), "unexpected character '" + std::string(1, c) + "'");
    else
      diags.error(loc(start), "unexpected byte 0x" + llvm::utohexstr(uc));
    while (cur < end && !llvm::isPrint(*cur) && !llvm::isSpace(*cur))
      ++cur;
  }

  StringRef buf;
  const char *cur, *end;
  DiagnosticEngine &diags;
};
} // namespace

std::vector<Token> easyml::lex(StringRef buffer, DiagnosticEngine &diags) {
  return Lexer(buffer, diags).run();
}
