//===- ParserTest.cpp - parser unit tests ---------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "gtest/gtest.h"

using namespace easyml;
using easyml::test::Harness;

/// Parses `src` as the definition of `x` and prints its expression.
static std::string exprOf(llvm::StringRef src) {
  Harness h(("x = " + src + ";").str());
  ModelAST ast = h.ast();
  EXPECT_FALSE(h.diags.hasErrors()) << h.firstError();
  if (ast.stmts.empty())
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  printExpr(os, ast.stmts[0]->value.get());
  return s;
}

TEST(Parser, CPrecedence) {
  EXPECT_EQ(exprOf("1 + 2 * 3"), "(1 + (2 * 3))");
  EXPECT_EQ(exprOf("1 - 2 - 3"), "((1 - 2) - 3)");
  EXPECT_EQ(exprOf("a < b == c > d"), "((a < b) == (c > d))");
  EXPECT_EQ(exprOf("a || b && c"), "(a || (b && c))");
  EXPECT_EQ(exprOf("a or b and !c"), "(a || (b && (!c)))");
  EXPECT_EQ(exprOf("-a * b"), "((-a) * b)");
}

/// The first statement's value as formatExpr writes it.
static std::string formatted(llvm::StringRef stmt) {
  easyml::test::Harness h(("x = " + stmt + ";").str());
  ModelAST ast = h.ast();
  if (ast.stmts.empty() || !ast.stmts[0]->value)
    return "";
  return formatExpr(ast.stmts[0]->value.get());
}

TEST(Parser, FormatExprUsesParenthesesOnlyWherePrecedenceNeedsThem) {
  EXPECT_EQ(formatted("1 + 2 * 3"), "1 + 2 * 3");
  EXPECT_EQ(formatted("(1 + 2) * 3"), "(1 + 2) * 3");
  EXPECT_EQ(formatted("a - (b - c)"), "a - (b - c)");
  EXPECT_EQ(formatted("(a - b) - c"), "a - b - c");
  EXPECT_EQ(formatted("a / (b * c)"), "a / (b * c)");
  EXPECT_EQ(formatted("-(a + b)"), "-(a + b)");
  EXPECT_EQ(formatted("(a || b) && !c"), "(a || b) && !c");
  EXPECT_EQ(formatted("t == 1 ? g * 1.3 : t == 2 ? g * 0.8 : g"),
            "t == 1 ? g * 1.3 : t == 2 ? g * 0.8 : g");
  EXPECT_EQ(formatted("(a ? b : c) + 1"), "(a ? b : c) + 1");
  EXPECT_EQ(formatted("pow(a, 2) * sqrt(k / 5.4)"),
            "pow(a, 2) * sqrt(k / 5.4)");
  // Numbers in their shortest exact form.
  EXPECT_EQ(formatted("0.1 + 1e-05 + 2.5e10"), "0.1 + 1e-05 + 2.5e+10");
}

TEST(Parser, TernaryIsRightAssociative) {
  EXPECT_EQ(exprOf("a ? b : c ? d : e"), "(a ? b : (c ? d : e))");
  EXPECT_EQ(exprOf("a < 0 ? -a : a"), "((a < 0) ? (-a) : a)");
}

TEST(Parser, IfIsAKeywordOnlyBeforeParen) {
  Harness h("i = Aif * if + 1; if; if (x > 0) { y = 1; } else { y = 2; }");
  ModelAST ast = h.ast();
  ASSERT_FALSE(h.diags.hasErrors()) << h.firstError();
  ASSERT_EQ(ast.stmts.size(), 3u);
  EXPECT_EQ(ast.stmts[0]->kind, StmtKind::Assign);
  EXPECT_EQ(ast.stmts[1]->kind, StmtKind::Declare);
  EXPECT_EQ(ast.stmts[1]->name, "if");
  EXPECT_EQ(ast.stmts[2]->kind, StmtKind::If);
  EXPECT_EQ(ast.stmts[2]->branches.size(), 2u);
}

TEST(Parser, MarkupsAttachToThePrecedingStatement) {
  Harness h("V; .external(Vm); .nodal();\n"
            "group { a = 1; b; } .param(); .units(mmol/L/ms^2);");
  ModelAST ast = h.ast();
  ASSERT_FALSE(h.diags.hasErrors()) << h.firstError();
  ASSERT_EQ(ast.stmts.size(), 2u);
  ASSERT_EQ(ast.stmts[0]->markups.size(), 2u);
  EXPECT_EQ(ast.stmts[0]->markups[0].nameArgs[0].first, "Vm");
  ASSERT_EQ(ast.stmts[1]->markups.size(), 2u);
  EXPECT_EQ(ast.stmts[1]->markups[1].units, "mmol/L/ms^2");
}

TEST(Parser, RecoversAndReportsEveryError) {
  Harness h("a = ; b = 1 +; c = 2; d = (3;");
  ModelAST ast = h.ast();
  EXPECT_EQ(h.diags.getNumErrors(), 3u);
  // `c` survives between the errors.
  bool sawC = false;
  for (const StmtPtr &s : ast.stmts)
    sawC |= s->name == "c";
  EXPECT_TRUE(sawC);
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string src = "x = " + std::string(100000, '(') + "1;";
  Harness h(src);
  h.ast();
  EXPECT_TRUE(h.diags.hasErrors());
  EXPECT_NE(h.firstError().find("nested too deeply"), std::string::npos);
}
