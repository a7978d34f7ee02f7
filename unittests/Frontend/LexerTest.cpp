//===- LexerTest.cpp - lexer unit tests -----------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "gtest/gtest.h"

using namespace easyml;
using easyml::test::Harness;

TEST(Lexer, NumbersInEveryCForm) {
  Harness h("3 3. .13 0.5 1e-9 1.e6 7.0305e-5 2E3");
  std::vector<Token> t = h.tokens();
  ASSERT_EQ(t.size(), 9u);
  double expected[] = {3, 3, .13, .5, 1e-9, 1e6, 7.0305e-5, 2e3};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(t[i].kind, TokenKind::Number);
    EXPECT_DOUBLE_EQ(t[i].number, expected[i]);
  }
  EXPECT_EQ(t.back().kind, TokenKind::Eof);
  EXPECT_FALSE(h.diags.hasErrors());
}

TEST(Lexer, AllThreeCommentStyles) {
  Harness h("a // one\n# two\n/* three\n */ b");
  std::vector<Token> t = h.tokens();
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].text, "a");
  EXPECT_EQ(t[1].text, "b");
}

TEST(Lexer, CompoundOperators) {
  Harness h("+= -= *= /= == != <= >= && || -> ^");
  std::vector<Token> t = h.tokens();
  TokenKind kinds[] = {TokenKind::PlusAssign, TokenKind::MinusAssign,
                       TokenKind::StarAssign, TokenKind::SlashAssign,
                       TokenKind::EqualEqual, TokenKind::NotEqual,
                       TokenKind::LessEqual,  TokenKind::GreaterEqual,
                       TokenKind::AmpAmp,     TokenKind::PipePipe,
                       TokenKind::Arrow,      TokenKind::Caret};
  ASSERT_EQ(t.size(), 13u);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(t[i].kind, kinds[i]) << i;
}

TEST(Lexer, ErrorsAreReportedAndSkipped) {
  Harness h("a = 1e; b = $ 2; /* open");
  std::vector<Token> t = h.tokens();
  EXPECT_EQ(h.diags.getNumErrors(), 3u);
  EXPECT_EQ(t.back().kind, TokenKind::Eof);
}

TEST(Lexer, BinaryGarbageNeverCrashes) {
  std::string bytes;
  for (int i = 0; i < 256; ++i)
    bytes.push_back(static_cast<char>(i));
  Harness h(bytes);
  std::vector<Token> t = h.tokens();
  EXPECT_EQ(t.back().kind, TokenKind::Eof);
  EXPECT_TRUE(h.diags.hasErrors());
}
