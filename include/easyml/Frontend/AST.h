//===- AST.h - EasyML abstract syntax tree --------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The parser produces a list of statements exactly as written (assignments,
// declarations, groups, if/elif/else chains), each with the markups that
// follow it. Expressions are shared, immutable nodes so that semantic
// analysis can desugar `+=` and `if` into expression DAGs without copying.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_FRONTEND_AST_H
#define EASYML_FRONTEND_AST_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace easyml {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

struct Expr;
using ExprRef = std::shared_ptr<const Expr>;

enum class ExprKind {
  Number,   // 1.5
  Var,      // name (the variable's final definition, or its old value)
  Unary,    // -x, +x, !x
  Binary,   // x op y
  Ternary,  // c ? a : b
  Call,     // f(a, ...)
};

enum class UnaryOp { Neg, Plus, Not };
enum class BinaryOp { Add, Sub, Mul, Div, Lt, Le, Gt, Ge, Eq, Ne, And, Or };

llvm::StringRef spelling(UnaryOp op);
llvm::StringRef spelling(BinaryOp op);

struct Expr {
  ExprKind kind;
  llvm::SMLoc loc;
  double number = 0;        // Number
  std::string name;         // Var: variable; Call: function
  /// Var only: the value the variable had before this step (the incoming
  /// value of an external updated with `+=`), not its new definition.
  bool incoming = false;
  /// Var only: written as C struct access `sv->X` (tolerated, see Sema).
  bool structAccess = false;
  UnaryOp unaryOp = UnaryOp::Neg;
  BinaryOp binaryOp = BinaryOp::Add;
  std::vector<ExprRef> operands;

  static ExprRef makeNumber(llvm::SMLoc loc, double v);
  static ExprRef makeVar(llvm::SMLoc loc, llvm::StringRef name);
  static ExprRef makeUnary(llvm::SMLoc loc, UnaryOp op, ExprRef x);
  static ExprRef makeBinary(llvm::SMLoc loc, BinaryOp op, ExprRef l,
                            ExprRef r);
  static ExprRef makeTernary(llvm::SMLoc loc, ExprRef c, ExprRef t,
                             ExprRef f);
  static ExprRef makeCall(llvm::SMLoc loc, llvm::StringRef fn,
                          std::vector<ExprRef> args);
};

/// Visits every node of the DAG rooted at `root` once, operands before
/// users, without recursion (so deep `+=` chains cannot exhaust the stack).
void forEachPostOrder(const Expr *root,
                      const std::function<void(const Expr *)> &fn);

/// Prints `e` as a fully parenthesised expression.
void printExpr(llvm::raw_ostream &os, const Expr *e);
/// `e` as a person would write it: parentheses only where precedence needs
/// them, numbers in their shortest exact form ("GKr_b * 1.3").
std::string formatExpr(const Expr *e);

//===----------------------------------------------------------------------===//
// Markups
//===----------------------------------------------------------------------===//

/// One `.name(args)` markup.
struct Markup {
  std::string name;
  llvm::SMLoc loc;
  /// Numeric arguments (`.lookup`, `.lb`, `.ub`), as expressions.
  std::vector<ExprRef> exprArgs;
  /// Name arguments (`.external`, `.method`, `.flag`) with their locations.
  std::vector<std::pair<std::string, llvm::SMLoc>> nameArgs;
  /// `.units`: the unit expression, normalised (no spaces).
  std::string units;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind { Assign, Declare, Group, If };
enum class AssignOp { Set, Add, Sub, Mul, Div };

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

/// One `if`/`elif`/`else` arm; `cond` is null for `else`.
struct IfBranch {
  llvm::SMLoc loc;
  ExprRef cond;
  std::vector<StmtPtr> body;
};

struct Stmt {
  StmtKind kind;
  llvm::SMLoc loc;
  // Assign and Declare
  std::string name;
  AssignOp op = AssignOp::Set;
  llvm::SMLoc opLoc;
  ExprRef value;
  // Group
  std::vector<StmtPtr> body;
  // If
  std::vector<IfBranch> branches;
  // Markups that follow this statement.
  std::vector<Markup> markups;
};

/// A parsed file.
struct ModelAST {
  std::string name; // model name (file stem)
  std::vector<StmtPtr> stmts;
};

/// Prints the AST in an indented, line-oriented form (`--emit=ast`).
void printAST(llvm::raw_ostream &os, const ModelAST &ast,
              const std::function<std::string(llvm::SMLoc)> &locStr);

} // namespace easyml

#endif // EASYML_FRONTEND_AST_H
