//===- AST.cpp - EasyML abstract syntax tree ------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Frontend/AST.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Format.h"

#include <cstdio>
#include <cstdlib>

using namespace easyml;
using llvm::SMLoc;
using llvm::StringRef;

StringRef easyml::spelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Plus: return "+";
  case UnaryOp::Not: return "!";
  }
  return "?";
}

StringRef easyml::spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::And: return "&&";
  case BinaryOp::Or: return "||";
  }
  return "?";
}

ExprRef Expr::makeNumber(SMLoc loc, double v) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Number;
  e->loc = loc;
  e->number = v;
  return e;
}

ExprRef Expr::makeVar(SMLoc loc, StringRef name) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Var;
  e->loc = loc;
  e->name = name.str();
  return e;
}

ExprRef Expr::makeUnary(SMLoc loc, UnaryOp op, ExprRef x) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Unary;
  e->loc = loc;
  e->unaryOp = op;
  e->operands.push_back(std::move(x));
  return e;
}

ExprRef Expr::makeBinary(SMLoc loc, BinaryOp op, ExprRef l, ExprRef r) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Binary;
  e->loc = loc;
  e->binaryOp = op;
  e->operands = {std::move(l), std::move(r)};
  return e;
}

ExprRef Expr::makeTernary(SMLoc loc, ExprRef c, ExprRef t, ExprRef f) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Ternary;
  e->loc = loc;
  e->operands = {std::move(c), std::move(t), std::move(f)};
  return e;
}

ExprRef Expr::makeCall(SMLoc loc, StringRef fn, std::vector<ExprRef> args) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Call;
  e->loc = loc;
  e->name = fn.str();
  e->operands = std::move(args);
  return e;
}

void easyml::forEachPostOrder(const Expr *root,
                              const std::function<void(const Expr *)> &fn) {
  if (!root)
    return;
  llvm::DenseSet<const Expr *> done;
  // (node, index of the next operand to visit)
  std::vector<std::pair<const Expr *, size_t>> stack;
  stack.push_back({root, 0});
  if (!done.insert(root).second)
    return;
  while (!stack.empty()) {
    auto &[node, next] = stack.back();
    if (next < node->operands.size()) {
      const Expr *child = node->operands[next++].get();
      if (done.insert(child).second)
        stack.push_back({child, 0});
      continue;
    }
    const Expr *finished = node;
    stack.pop_back();
    fn(finished);
  }
}

void easyml::printExpr(llvm::raw_ostream &os, const Expr *e) {
  switch (e->kind) {
  case ExprKind::Number:
    os << llvm::format("%.17g", e->number);
    return;
  case ExprKind::Var:
    os << e->name;
    return;
  case ExprKind::Unary:
    os << "(" << spelling(e->unaryOp);
    printExpr(os, e->operands[0].get());
    os << ")";
    return;
  case ExprKind::Binary:
    os << "(";
    printExpr(os, e->operands[0].get());
    os << " " << spelling(e->binaryOp) << " ";
    printExpr(os, e->operands[1].get());
    os << ")";
    return;
  case ExprKind::Ternary:
    os << "(";
    printExpr(os, e->operands[0].get());
    os << " ? ";
    printExpr(os, e->operands[1].get());
    os << " : ";
    printExpr(os, e->operands[2].get());
    os << ")";
    return;
  case ExprKind::Call:
    os << e->name << "(";
    for (size_t i = 0; i < e->operands.size(); ++i) {
      if (i)
        os << ", ";
      printExpr(os, e->operands[i].get());
    }
    os << ")";
    return;
  }
}

/// Binding strength of `e`'s outermost operator (higher binds tighter).
static int precedence(const Expr *e) {
  switch (e->kind) {
  case ExprKind::Ternary:
    return 1;
  case ExprKind::Binary:
    switch (e->binaryOp) {
    case BinaryOp::Or:
      return 2;
    case BinaryOp::And:
      return 3;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      return 4;
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      return 5;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 6;
    case BinaryOp::Mul:
    case BinaryOp::Div:
      return 7;
    }
    return 7;
  case ExprKind::Unary:
    return 8;
  default:
    return 9;
  }
}

static std::string shortestNumber(double v) {
  char buf[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

static void formatInto(std::string &out, const Expr *e, int context,
                       bool rightOperand) {
  int p = precedence(e);
  // Left-associative operators: a right operand of equal strength needs
  // parentheses (a - (b - c)); a ternary nests without them on the right.
  bool parens = p < context || (rightOperand && p == context && p != 1);
  if (parens)
    out += "(";
  switch (e->kind) {
  case ExprKind::Number:
    out += shortestNumber(e->number);
    break;
  case ExprKind::Var:
    out += e->name;
    break;
  case ExprKind::Unary:
    out += spelling(e->unaryOp);
    formatInto(out, e->operands[0].get(), 8, false);
    break;
  case ExprKind::Binary:
    formatInto(out, e->operands[0].get(), p, false);
    out += " " + spelling(e->binaryOp).str() + " ";
    formatInto(out, e->operands[1].get(), p, true);
    break;
  case ExprKind::Ternary:
    formatInto(out, e->operands[0].get(), 2, false);
    out += " ? ";
    formatInto(out, e->operands[1].get(), 1, false);
    out += " : ";
    formatInto(out, e->operands[2].get(), 1, false);
    break;
  case ExprKind::Call:
    out += e->name + "(";
    for (size_t i = 0; i < e->operands.size(); ++i) {
      if (i)
        out += ", ";
      formatInto(out, e->operands[i].get(), 0, false);
    }
    out += ")";
    break;
  }
  if (parens)
    out += ")";
}

std::string easyml::formatExpr(const Expr *e) {
  std::string out;
  if (e)
    formatInto(out, e, 0, false);
  return out;
}

static StringRef assignSpelling(AssignOp op) {
  switch (op) {
  case AssignOp::Set: return "=";
  case AssignOp::Add: return "+=";
  case AssignOp::Sub: return "-=";
  case AssignOp::Mul: return "*=";
  case AssignOp::Div: return "/=";
  }
  return "=";
}

static void printStmts(llvm::raw_ostream &os,
                       const std::vector<StmtPtr> &stmts, unsigned indent,
                       const std::function<std::string(SMLoc)> &locStr);

static void printMarkups(llvm::raw_ostream &os, const Stmt &s,
                         unsigned indent,
                         const std::function<std::string(SMLoc)> &locStr) {
  for (const Markup &m : s.markups) {
    os.indent(indent + 2) << "markup ." << m.name << "(";
    bool first = true;
    auto sep = [&] {
      if (!first)
        os << ", ";
      first = false;
    };
    for (auto &n : m.nameArgs) {
      sep();
      os << n.first;
    }
    for (auto &a : m.exprArgs) {
      sep();
      printExpr(os, a.get());
    }
    if (!m.units.empty()) {
      sep();
      os << m.units;
    }
    os << ") @" << locStr(m.loc) << "\n";
  }
}

static void printStmts(llvm::raw_ostream &os,
                       const std::vector<StmtPtr> &stmts, unsigned indent,
                       const std::function<std::string(SMLoc)> &locStr) {
  for (const StmtPtr &s : stmts) {
    switch (s->kind) {
    case StmtKind::Assign:
      os.indent(indent) << "assign " << s->name << " "
                        << assignSpelling(s->op) << " ";
      printExpr(os, s->value.get());
      os << " @" << locStr(s->loc) << "\n";
      break;
    case StmtKind::Declare:
      os.indent(indent) << "declare " << s->name << " @" << locStr(s->loc)
                        << "\n";
      break;
    case StmtKind::Group:
      os.indent(indent) << "group @" << locStr(s->loc) << "\n";
      printStmts(os, s->body, indent + 2, locStr);
      break;
    case StmtKind::If:
      for (size_t i = 0; i < s->branches.size(); ++i) {
        const IfBranch &b = s->branches[i];
        os.indent(indent) << (i == 0 ? "if" : b.cond ? "elif" : "else");
        if (b.cond) {
          os << " ";
          printExpr(os, b.cond.get());
        }
        os << " @" << locStr(b.loc) << "\n";
        printStmts(os, b.body, indent + 2, locStr);
      }
      break;
    }
    printMarkups(os, *s, indent, locStr);
  }
}

void easyml::printAST(llvm::raw_ostream &os, const ModelAST &ast,
                      const std::function<std::string(SMLoc)> &locStr) {
  os << "model " << ast.name << "\n";
  printStmts(os, ast.stmts, 2, locStr);
}
