//===- Parser.cpp - EasyML parser -----------------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A recursive-descent parser with C precedence for expressions. `if`,
// `elif`, `else` and `group` are keywords only where they start a construct
// (`if (`, `group {`), because real models use `if` as a variable name.
//
//===----------------------------------------------------------------------===//

#include "easyml/Frontend/Parser.h"

#include "llvm/ADT/StringSwitch.h"

using namespace easyml;
using llvm::SMLoc;
using llvm::StringRef;

namespace {

/// How a markup's arguments are parsed and how many it takes.
struct MarkupSpec {
  enum ArgKind { None, Names, Numbers, Units } args;
  unsigned minArgs, maxArgs;
  const char *usage;
};

std::optional<MarkupSpec> markupSpec(StringRef name) {
  using M = MarkupSpec;
  return llvm::StringSwitch<std::optional<MarkupSpec>>(name)
      .Case("external", M{M::Names, 0, 1, "'.external' or '.external(name)'"})
      .Case("nodal", M{M::None, 0, 0, "'.nodal()'"})
      .Case("param", M{M::None, 0, 0, "'.param()'"})
      .Case("lookup", M{M::Numbers, 3, 3, "'.lookup(lo, hi, step)'"})
      .Case("units", M{M::Units, 1, 1, "'.units(unit expression)'"})
      .Case("method", M{M::Names, 1, 1, "'.method(name)'"})
      .Case("trace", M{M::None, 0, 0, "'.trace()'"})
      .Case("store", M{M::None, 0, 0, "'.store()'"})
      .Case("flag", M{M::Names, 1, ~0u, "'.flag(NAME, ...)'"})
      .Case("lb", M{M::Numbers, 1, 1, "'.lb(value)'"})
      .Case("ub", M{M::Numbers, 1, 1, "'.ub(value)'"})
      .Case("regional", M{M::None, 0, 0, "'.regional()'"})
      .Case("reference", M{M::None, 0, 0, "'.reference()'"})
      .Default(std::nullopt);
}

/// Unit names `.units()` accepts, without SI prefix.
bool isBaseUnit(StringRef u) {
  return llvm::StringSwitch<bool>(u)
      .Cases("m", "g", "s", "mol", "M", "L", "l", "F", "V", true)
      .Cases("C", "A", "J", "N", "K", "S", "Hz", "Ohm", "W", true)
      .Cases("Pa", "unitless", "dimensionless", "percent", true)
      .Default(false);
}

bool isUnitName(StringRef u) {
  if (isBaseUnit(u))
    return true;
  static const char *prefixes[] = {"f", "p", "n", "u", "m", "c",
                                   "d", "k", "M", "G", "da"};
  for (const char *p : prefixes)
    if (u.starts_with(p) && isBaseUnit(u.drop_front(StringRef(p).size())) &&
        u.drop_front(StringRef(p).size()) != "unitless" &&
        u.drop_front(StringRef(p).size()) != "dimensionless" &&
        u.drop_front(StringRef(p).size()) != "percent")
      return true;
  return false;
}

class Parser {
public:
  Parser(llvm::ArrayRef<Token> toks, DiagnosticEngine &diags)
      : toks(toks), diags(diags) {}

  std::vector<StmtPtr> parseFile() {
    std::vector<StmtPtr> stmts;
    while (!cur().is(TokenKind::Eof) && !diags.tooManyErrors()) {
      if (cur().is(TokenKind::RBrace)) {
        diags.error(cur().loc, "unmatched '}'");
        advance();
        continue;
      }
      parseStatementInto(stmts);
    }
    return stmts;
  }

private:
  //===--------------------------------------------------------------------===//
  // Token helpers
  //===--------------------------------------------------------------------===//

  const Token &cur() const { return toks[pos]; }
  const Token &peek(unsigned n = 1) const {
    return toks[std::min<size_t>(pos + n, toks.size() - 1)];
  }
  void advance() {
    if (!cur().is(TokenKind::Eof))
      ++pos;
  }
  bool consumeIf(TokenKind k) {
    if (!cur().is(k))
      return false;
    advance();
    return true;
  }

  /// Describes the current token for "expected X, found Y" messages.
  std::string describeCur() const {
    if (cur().is(TokenKind::Eof))
      return "end of file";
    return "'" + cur().text.str() + "'";
  }

  bool expect(TokenKind k, const std::string &context) {
    if (consumeIf(k))
      return true;
    diags.error(cur().loc, "expected " + tokenKindName(k) + " " + context +
                               ", found " + describeCur());
    return false;
  }

  /// Skips to just after the next `;` (or to a `}`/end of file), keeping
  /// brace nesting, after a syntax error.
  void recover() {
    int depth = 0;
    while (!cur().is(TokenKind::Eof)) {
      if (cur().is(TokenKind::LBrace))
        ++depth;
      else if (cur().is(TokenKind::RBrace)) {
        if (depth == 0)
          return;
        --depth;
      } else if (cur().is(TokenKind::Semi) && depth == 0) {
        advance();
        return;
      }
      advance();
    }
  }

  //===--------------------------------------------------------------------===//
  // Statements
  //===--------------------------------------------------------------------===//

  bool atKeyword(StringRef kw, TokenKind follower) const {
    return cur().isIdentifier(kw) && peek().is(follower);
  }

  void parseStatementInto(std::vector<StmtPtr> &out) {
    if (diags.tooManyErrors()) {
      pos = toks.size() - 1;
      return;
    }
    // Empty statement.
    if (consumeIf(TokenKind::Semi))
      return;
    if (cur().is(TokenKind::Dot)) {
      SMLoc loc = cur().loc;
      if (out.empty()) {
        diags.error(loc, "markup does not follow a declaration, definition, "
                         "group or if statement");
        Markup ignored;
        parseMarkup(ignored);
        return;
      }
      out.back()->markups.emplace_back();
      if (!parseMarkup(out.back()->markups.back()))
        out.back()->markups.pop_back();
      return;
    }
    StmtPtr s;
    if (atKeyword("group", TokenKind::LBrace))
      s = parseGroup();
    else if (atKeyword("if", TokenKind::LParen))
      s = parseIf();
    else if (atKeyword("elif", TokenKind::LParen)) {
      diags.error(cur().loc, "'elif' without a preceding 'if'");
      skipStrayBranch();
      return;
    } else if (atKeyword("else", TokenKind::LBrace) ||
               (cur().isIdentifier("else") && peek().isIdentifier("if"))) {
      diags.error(cur().loc, "'else' without a preceding 'if'");
      skipStrayBranch();
      return;
    } else if (cur().is(TokenKind::Identifier))
      s = parseAssignOrDecl();
    else {
      diags.error(cur().loc, "expected a statement, found " + describeCur());
      advance();
      recover();
      return;
    }
    if (s)
      out.push_back(std::move(s));
  }

  /// After a stray `elif (...) {...}` or `else {...}`, skip its block.
  void skipStrayBranch() {
    while (!cur().is(TokenKind::Eof) && !cur().is(TokenKind::LBrace))
      advance();
    std::vector<StmtPtr> ignored;
    if (cur().is(TokenKind::LBrace))
      parseBlock(ignored, "");
  }

  /// Parses `{ stmt* }` into `out`.
  bool parseBlock(std::vector<StmtPtr> &out, StringRef what) {
    SMLoc open = cur().loc;
    if (!expect(TokenKind::LBrace, what.str()))
      return false;
    if (++depth > kMaxDepth) {
      diags.error(open, "blocks nested too deeply");
      pos = toks.size() - 1;
      return false;
    }
    while (!cur().is(TokenKind::RBrace) && !cur().is(TokenKind::Eof) &&
           !diags.tooManyErrors())
      parseStatementInto(out);
    --depth;
    if (!consumeIf(TokenKind::RBrace)) {
      if (!diags.tooManyErrors())
        diags.error(cur().loc, "expected '}' to close the block")
            .note(open, "block opened here");
      return false;
    }
    return true;
  }

  StmtPtr parseGroup() {
    auto s = std::make_unique<Stmt>();
    s->kind = StmtKind::Group;
    s->loc = cur().loc;
    advance(); // group
    parseBlock(s->body, "after 'group'");
    return s;
  }

  StmtPtr parseIf() {
    auto s = std::make_unique<Stmt>();
    s->kind = StmtKind::If;
    s->loc = cur().loc;
    bool first = true;
    while (true) {
      IfBranch b;
      b.loc = cur().loc;
      bool isElse = !first && cur().isIdentifier("else");
      if (isElse && peek().isIdentifier("if")) {
        diags.error(cur().loc, "EasyML spells 'else if' as 'elif'");
        advance(); // treat as elif
        isElse = false;
      }
      advance(); // if / elif / else
      if (!isElse) {
        if (!expect(TokenKind::LParen,
                    first ? "after 'if'" : "after 'elif'")) {
          recover();
          return s->branches.empty() ? nullptr : std::move(s);
        }
        b.cond = parseExpr();
        if (!b.cond || !expect(TokenKind::RParen, "after the condition")) {
          recover();
          return nullptr;
        }
      }
      if (!parseBlock(b.body, isElse ? "after 'else'" : "after the condition"))
        return nullptr;
      s->branches.push_back(std::move(b));
      first = false;
      if (isElse)
        break;
      if (atKeyword("elif", TokenKind::LParen) ||
          atKeyword("else", TokenKind::LBrace) ||
          (cur().isIdentifier("else") && peek().isIdentifier("if")))
        continue;
      break;
    }
    return s;
  }

  StmtPtr parseAssignOrDecl() {
    auto s = std::make_unique<Stmt>();
    s->loc = cur().loc;
    s->name = cur().text.str();
    advance();
    if (consumeIf(TokenKind::Semi)) {
      s->kind = StmtKind::Declare;
      return s;
    }
    s->kind = StmtKind::Assign;
    s->opLoc = cur().loc;
    switch (cur().kind) {
    case TokenKind::Assign: s->op = AssignOp::Set; break;
    case TokenKind::PlusAssign: s->op = AssignOp::Add; break;
    case TokenKind::MinusAssign: s->op = AssignOp::Sub; break;
    case TokenKind::StarAssign: s->op = AssignOp::Mul; break;
    case TokenKind::SlashAssign: s->op = AssignOp::Div; break;
    case TokenKind::EqualEqual:
      diags.error(cur().loc, "expected '=' to define '" + s->name +
                                 "', found '=='");
      recover();
      return nullptr;
    default:
      diags.error(cur().loc, "expected '=' or ';' after '" + s->name +
                                 "', found " + describeCur());
      recover();
      return nullptr;
    }
    advance();
    if (cur().is(TokenKind::Semi)) {
      diags.error(cur().loc, "expected an expression after '" +
                                 toks[pos - 1].text + "' in the definition "
                                 "of '" + s->name + "'");
      advance();
      return nullptr;
    }
    s->value = parseExpr();
    if (!s->value) {
      recover();
      return nullptr;
    }
    if (!cur().is(TokenKind::Semi)) {
      diags.error(cur().loc, "expected ';' after the definition of '" +
                                 s->name + "', found " + describeCur());
      recover();
      return nullptr;
    }
    advance();
    return s;
  }

  //===--------------------------------------------------------------------===//
  // Markups
  //===--------------------------------------------------------------------===//

  /// Parses `.name(args);` into `m`. Returns false (after reporting and
  /// recovering) on error.
  bool parseMarkup(Markup &m) {
    advance(); // .
    if (!cur().is(TokenKind::Identifier)) {
      diags.error(cur().loc, "expected a markup name after '.', found " +
                                 describeCur());
      recover();
      return false;
    }
    m.name = cur().text.str();
    m.loc = cur().loc;
    advance();
    std::optional<MarkupSpec> spec = markupSpec(m.name);
    if (!spec) {
      auto &d = diags.error(m.loc, "unknown markup '." + m.name + "'");
      if (m.name == "array")
        d.note(m.loc, "array syntax needs openCARP's arrayifier "
                      "preprocessor; unroll the arrays first");
      recover();
      return false;
    }
    SMLoc open = cur().loc;
    if (!expect(TokenKind::LParen, ("after '." + m.name + "'"))) {
      recover();
      return false;
    }
    unsigned count = 0;
    bool ok = true;
    if (!cur().is(TokenKind::RParen)) {
      do {
        ++count;
        switch (spec->args) {
        case MarkupSpec::None:
        case MarkupSpec::Names:
          if (cur().is(TokenKind::Identifier)) {
            m.nameArgs.push_back({cur().text.str(), cur().loc});
            advance();
          } else {
            diags.error(cur().loc, "expected a name as argument of '." +
                                       m.name + "', found " + describeCur());
            ok = false;
          }
          break;
        case MarkupSpec::Numbers:
          if (ExprRef e = parseExpr())
            m.exprArgs.push_back(e);
          else
            ok = false;
          break;
        case MarkupSpec::Units:
          ok = parseUnits(m);
          break;
        }
      } while (ok && consumeIf(TokenKind::Comma));
    }
    if (ok && !cur().is(TokenKind::RParen)) {
      diags.error(cur().loc, "expected ')' to close '." + m.name +
                                 "(', found " + describeCur())
          .note(open, "opened here");
      ok = false;
    }
    if (!ok) {
      recover();
      return false;
    }
    advance(); // )
    if (count < spec->minArgs || count > spec->maxArgs) {
      std::string expected =
          spec->minArgs == spec->maxArgs
              ? std::to_string(spec->minArgs)
              : spec->maxArgs == ~0u
                    ? "at least " + std::to_string(spec->minArgs)
                    : std::to_string(spec->minArgs) + " to " +
                          std::to_string(spec->maxArgs);
      diags.error(m.loc, "markup '." + m.name + "' takes " + expected +
                             " argument" + (expected == "1" ? "" : "s") +
                             ", got " + std::to_string(count))
          .note(m.loc, "usage: " + StringRef(spec->usage));
      ok = false;
    }
    if (!cur().is(TokenKind::Semi)) {
      diags.error(cur().loc, "expected ';' after markup '." + m.name +
                                 "', found " + describeCur());
      recover();
      return false;
    }
    advance();
    return ok;
  }

  /// unit-expr := unit-term (('*'|'/') unit-term)*
  /// unit-term := unit-atom ('^' ['-'|'+'] integer)?
  /// unit-atom := name | '1' | '(' unit-expr ')'
  bool parseUnits(Markup &m) {
    std::string text;
    if (!parseUnitExpr(text, 0))
      return false;
    m.units = text;
    return true;
  }

  bool parseUnitExpr(std::string &text, unsigned nest) {
    if (nest > 16) {
      diags.error(cur().loc, "unit expression nested too deeply");
      return false;
    }
    if (!parseUnitTerm(text, nest))
      return false;
    while (cur().is(TokenKind::Star) || cur().is(TokenKind::Slash)) {
      text += cur().text.str();
      SMLoc opLoc = cur().loc;
      advance();
      if (cur().is(TokenKind::RParen) || cur().is(TokenKind::Eof)) {
        diags.error(opLoc, "expected a unit after '" + toks[pos - 1].text +
                               "' in unit expression");
        return false;
      }
      if (!parseUnitTerm(text, nest))
        return false;
    }
    return true;
  }

  bool parseUnitTerm(std::string &text, unsigned nest) {
    const Token &t = cur();
    if (t.is(TokenKind::Identifier)) {
      if (!isUnitName(t.text)) {
        diags.error(t.loc, "unknown unit '" + t.text + "'");
        return false;
      }
      text += t.text.str();
      advance();
    } else if (t.is(TokenKind::Number) && t.number == 1) {
      text += "1";
      advance();
    } else if (t.is(TokenKind::LParen)) {
      text += "(";
      advance();
      if (!parseUnitExpr(text, nest + 1))
        return false;
      if (!cur().is(TokenKind::RParen)) {
        diags.error(cur().loc, "expected ')' in unit expression, found " +
                                   describeCur());
        return false;
      }
      text += ")";
      advance();
    } else {
      diags.error(t.loc, "expected a unit name, found " + describeCur());
      return false;
    }
    if (cur().is(TokenKind::Caret)) {
      advance();
      std::string sign;
      if (cur().is(TokenKind::Minus) || cur().is(TokenKind::Plus)) {
        sign = cur().text.str();
        advance();
      }
      if (!cur().is(TokenKind::Number) ||
          cur().number != (double)(long long)cur().number) {
        diags.error(cur().loc,
                    "expected an integer exponent after '^' in unit "
                    "expression, found " + describeCur());
        return false;
      }
      text += "^" + sign + cur().text.str();
      advance();
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  static constexpr unsigned kMaxDepth = 256;

  /// RAII guard limiting expression nesting.
  struct DepthGuard {
    Parser &p;
    bool ok;
    explicit DepthGuard(Parser &p) : p(p), ok(++p.depth <= kMaxDepth) {}
    ~DepthGuard() { --p.depth; }
  };

  ExprRef parseExpr() {
    DepthGuard guard(*this);
    if (!guard.ok) {
      if (!depthReported)
        diags.error(cur().loc, "expression nested too deeply (more than " +
                                   std::to_string(kMaxDepth) + " levels)");
      depthReported = true;
      return nullptr;
    }
    return parseTernary();
  }

  ExprRef parseTernary() {
    ExprRef c = parseOr();
    if (!c || !cur().is(TokenKind::Question))
      return c;
    SMLoc qLoc = cur().loc;
    advance();
    ExprRef t = parseExpr();
    if (!t)
      return nullptr;
    if (!cur().is(TokenKind::Colon)) {
      diags.error(cur().loc, "expected ':' in conditional expression, found " +
                                 describeCur())
          .note(qLoc, "'?' is here");
      return nullptr;
    }
    advance();
    ExprRef f = parseExpr();
    if (!f)
      return nullptr;
    return Expr::makeTernary(qLoc, c, t, f);
  }

  bool atOr() const {
    return cur().is(TokenKind::PipePipe) || cur().isIdentifier("or");
  }
  bool atAnd() const {
    return cur().is(TokenKind::AmpAmp) || cur().isIdentifier("and");
  }

  ExprRef parseOr() {
    ExprRef l = parseAnd();
    while (l && atOr()) {
      SMLoc loc = cur().loc;
      advance();
      ExprRef r = parseAnd();
      if (!r)
        return nullptr;
      l = Expr::makeBinary(loc, BinaryOp::Or, l, r);
    }
    return l;
  }

  ExprRef parseAnd() {
    ExprRef l = parseEquality();
    while (l && atAnd()) {
      SMLoc loc = cur().loc;
      advance();
      ExprRef r = parseEquality();
      if (!r)
        return nullptr;
      l = Expr::makeBinary(loc, BinaryOp::And, l, r);
    }
    return l;
  }

  ExprRef parseEquality() {
    ExprRef l = parseRelational();
    while (l && (cur().is(TokenKind::EqualEqual) ||
                 cur().is(TokenKind::NotEqual))) {
      BinaryOp op =
          cur().is(TokenKind::EqualEqual) ? BinaryOp::Eq : BinaryOp::Ne;
      SMLoc loc = cur().loc;
      advance();
      ExprRef r = parseRelational();
      if (!r)
        return nullptr;
      l = Expr::makeBinary(loc, op, l, r);
    }
    return l;
  }

  ExprRef parseRelational() {
    ExprRef l = parseAdditive();
    while (l) {
      BinaryOp op;
      switch (cur().kind) {
      case TokenKind::Less: op = BinaryOp::Lt; break;
      case TokenKind::LessEqual: op = BinaryOp::Le; break;
      case TokenKind::Greater: op = BinaryOp::Gt; break;
      case TokenKind::GreaterEqual: op = BinaryOp::Ge; break;
      default: return l;
      }
      SMLoc loc = cur().loc;
      advance();
      ExprRef r = parseAdditive();
      if (!r)
        return nullptr;
      l = Expr::makeBinary(loc, op, l, r);
    }
    return l;
  }

  ExprRef parseAdditive() {
    ExprRef l = parseMultiplicative();
    while (l && (cur().is(TokenKind::Plus) || cur().is(TokenKind::Minus))) {
      BinaryOp op = cur().is(TokenKind::Plus) ? BinaryOp::Add : BinaryOp::Sub;
      SMLoc loc = cur().loc;
      advance();
      ExprRef r = parseMultiplicative();
      if (!r)
        return nullptr;
      l = Expr::makeBinary(loc, op, l, r);
    }
    return l;
  }

  ExprRef parseMultiplicative() {
    ExprRef l = parseUnary();
    while (l) {
      if (cur().is(TokenKind::Caret)) {
        diags.error(cur().loc, "'^' is not an operator in EasyML "
                               "expressions; use pow(base, exponent)");
        return nullptr;
      }
      if (!cur().is(TokenKind::Star) && !cur().is(TokenKind::Slash))
        return l;
      BinaryOp op = cur().is(TokenKind::Star) ? BinaryOp::Mul : BinaryOp::Div;
      SMLoc loc = cur().loc;
      advance();
      ExprRef r = parseUnary();
      if (!r)
        return nullptr;
      l = Expr::makeBinary(loc, op, l, r);
    }
    return l;
  }

  ExprRef parseUnary() {
    UnaryOp op;
    switch (cur().kind) {
    case TokenKind::Minus: op = UnaryOp::Neg; break;
    case TokenKind::Plus: op = UnaryOp::Plus; break;
    case TokenKind::Bang: op = UnaryOp::Not; break;
    default: return parsePrimary();
    }
    SMLoc loc = cur().loc;
    advance();
    DepthGuard guard(*this);
    if (!guard.ok) {
      if (!depthReported)
        diags.error(loc, "expression nested too deeply");
      depthReported = true;
      return nullptr;
    }
    ExprRef x = parseUnary();
    if (!x)
      return nullptr;
    return Expr::makeUnary(loc, op, x);
  }

  ExprRef parsePrimary() {
    const Token &t = cur();
    switch (t.kind) {
    case TokenKind::Number: {
      advance();
      return Expr::makeNumber(t.loc, t.number);
    }
    case TokenKind::LParen: {
      SMLoc open = t.loc;
      advance();
      ExprRef e = parseExpr();
      if (!e)
        return nullptr;
      if (!cur().is(TokenKind::RParen)) {
        diags.error(cur().loc, "expected ')' in expression, found " +
                                   describeCur())
            .note(open, "to match this '('");
        return nullptr;
      }
      advance();
      return e;
    }
    case TokenKind::Identifier: {
      advance();
      if (cur().is(TokenKind::LParen))
        return parseCall(t);
      if (cur().is(TokenKind::Arrow)) {
        // `sv->X` (a raw C struct access seen in an openCARP tutorial).
        SMLoc arrow = cur().loc;
        advance();
        if (!cur().is(TokenKind::Identifier)) {
          diags.error(cur().loc, "expected a field name after '->'");
          return nullptr;
        }
        const Token &field = cur();
        advance();
        diags.warning(t.loc, "'" + t.text + "->" + field.text +
                                 "' is C struct access, not EasyML; read "
                                 "as '" + field.text + "'");
        (void)arrow;
        auto var = std::make_shared<Expr>(*Expr::makeVar(field.loc,
                                                         field.text));
        var->structAccess = true;
        return var;
      }
      return Expr::makeVar(t.loc, t.text);
    }
    case TokenKind::Semi:
    case TokenKind::RParen:
    case TokenKind::Eof:
      diags.error(t.loc, "expected an expression, found " + describeCur());
      return nullptr;
    default:
      diags.error(t.loc, "unexpected " + describeCur() + " in expression");
      return nullptr;
    }
  }

  ExprRef parseCall(const Token &fn) {
    SMLoc open = cur().loc;
    advance(); // (
    std::vector<ExprRef> args;
    if (!cur().is(TokenKind::RParen)) {
      do {
        ExprRef a = parseExpr();
        if (!a)
          return nullptr;
        args.push_back(a);
      } while (consumeIf(TokenKind::Comma));
    }
    if (!cur().is(TokenKind::RParen)) {
      diags.error(cur().loc, "expected ')' or ',' in call to '" + fn.text +
                                 "', found " + describeCur())
          .note(open, "to match this '('");
      return nullptr;
    }
    advance();
    return Expr::makeCall(fn.loc, fn.text, std::move(args));
  }

  llvm::ArrayRef<Token> toks;
  DiagnosticEngine &diags;
  size_t pos = 0;
  unsigned depth = 0;
  bool depthReported = false;
};

} // namespace

bool easyml::isKnownMarkup(StringRef name) {
  return markupSpec(name).has_value();
}

ModelAST easyml::parse(llvm::ArrayRef<Token> tokens, StringRef modelName,
                       DiagnosticEngine &diags) {
  ModelAST ast;
  ast.name = modelName.str();
  if (tokens.empty())
    return ast;
  ast.stmts = Parser(tokens, diags).parseFile();
  return ast;
}
