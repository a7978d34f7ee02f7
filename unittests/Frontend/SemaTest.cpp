//===- SemaTest.cpp - semantic analysis unit tests ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace easyml;
using easyml::test::Harness;

static const char *kPreamble = "V; .external(Vm); Iion; .external();\n";

/// Evaluates the final definition of `name` with all inputs given by `env`.
static double valueOf(const Model &m, llvm::StringRef name,
                      const std::map<std::string, double> &env) {
  const Variable *v = m.lookup(name);
  EXPECT_TRUE(v && v->def);
  std::function<std::optional<double>(const Expr *)> lookup;
  lookup = [&](const Expr *e) -> std::optional<double> {
    auto it = env.find(e->name);
    if (it != env.end())
      return it->second;
    const Variable *x = m.lookup(e->name);
    if (x && x->value)
      return x->value;
    if (x && x->def)
      return evaluate(x->def.get(), lookup);
    return std::nullopt;
  };
  return evaluate(v->def.get(), lookup).value_or(NAN);
}

TEST(Sema, IfElifElseDesugarsInTextualOrder) {
  Harness h(std::string(kPreamble) +
            "v_abs = -V; if (V > 0) { v_abs = V; }\n"
            "s = 0; if (V > 10) { s = 1; } elif (V > 5) { s = 2; } "
            "else { s += 3; }\n"
            "Iion = v_abs + s;");
  std::optional<Model> m = h.model();
  ASSERT_TRUE(m) << h.firstError();
  EXPECT_EQ(valueOf(*m, "v_abs", {{"V", -4}}), 4);
  EXPECT_EQ(valueOf(*m, "v_abs", {{"V", 4}}), 4);
  EXPECT_EQ(valueOf(*m, "s", {{"V", 20}}), 1);
  EXPECT_EQ(valueOf(*m, "s", {{"V", 7}}), 2);
  EXPECT_EQ(valueOf(*m, "s", {{"V", 0}}), 3);
}

TEST(Sema, CompoundAssignmentsAccumulate) {
  Harness h(std::string(kPreamble) +
            "Iion = 1; Iion += V; Iion *= 2; Iion -= 1; Iion /= 4;");
  std::optional<Model> m = h.model();
  ASSERT_TRUE(m) << h.firstError();
  EXPECT_EQ(valueOf(*m, "Iion", {{"V", 3}}), ((1 + 3) * 2 - 1) / 4.0);
}

TEST(Sema, PlusAssignOnUndefinedExternalReadsTheIncomingValue) {
  Harness h("V; .external(Vm); Iion; .external(); Iion += 0.5 * V;");
  std::optional<Model> m = h.model();
  ASSERT_TRUE(m) << h.firstError();
  ASSERT_EQ(m->externals.size(), 2u);
  EXPECT_EQ(m->lookupExternal("Iion")->access, AccessKind::ReadWrite);
}

TEST(Sema, GateDetectionBothForms) {
  Harness h(std::string(kPreamble) +
            "a_m = 0.1; b_m = 0.3; h_inf = 0.25; tau_h = 2;\n"
            "Iion = m * h * V;");
  std::optional<Model> m = h.model();
  ASSERT_TRUE(m) << h.firstError();
  ASSERT_EQ(m->states.size(), 2u);
  const State *gm = m->lookupState("m");
  const State *gh = m->lookupState("h");
  ASSERT_TRUE(gm && gh);
  EXPECT_EQ(gm->kind, StateForm::AlphaBeta);
  EXPECT_EQ(gh->kind, StateForm::InfTau);
  EXPECT_EQ(gm->method, IntegrationMethod::RushLarsen);
  EXPECT_DOUBLE_EQ(*gm->initValue, 0.25); // alpha / (alpha + beta)
  EXPECT_DOUBLE_EQ(*gh->initValue, 0.25); // h_inf
}

TEST(Sema, UnusedRatePairsDoNotMakeGates) {
  Harness h(std::string(kPreamble) + "tau_q = 1; q_inf = 2; Iion = V;");
  std::optional<Model> m = h.model();
  ASSERT_TRUE(m) << h.firstError();
  EXPECT_TRUE(m->states.empty());
}

TEST(Sema, MethodsGroupsAndClassification) {
  Harness h(std::string(kPreamble) +
            "a_init = 1; diff_a = -a; b_init = 2; diff_b = -b;\n"
            "group { a; b; } .method(markov_be);\n"
            "c_init = 1; d_c_dt = -c * k; k = 2; .param();\n"
            "K = 3; Iion = a + b + c + K;");
  std::optional<Model> m = h.model();
  ASSERT_TRUE(m) << h.firstError();
  EXPECT_EQ(m->numMarkovGroups, 1u);
  EXPECT_EQ(m->lookupState("a")->method, IntegrationMethod::MarkovBE);
  EXPECT_EQ(m->lookupState("a")->group, m->lookupState("b")->group);
  EXPECT_EQ(m->lookupState("c")->method, IntegrationMethod::FE);
  EXPECT_EQ(m->lookup("k")->role, VarRole::Parameter);
  EXPECT_EQ(m->lookup("K")->role, VarRole::Constant);
  EXPECT_EQ(m->lookup("diff_a")->role, VarRole::Derivative);
  EXPECT_EQ(m->lookup("a_init")->role, VarRole::InitialValue);
}

TEST(Sema, UseBeforeDefinitionIsOrdered) {
  Harness h(std::string(kPreamble) + "Iion = x * 2; x = y + 1; y = V;");
  std::optional<Model> m = h.model();
  ASSERT_TRUE(m) << h.firstError();
  std::vector<std::string> order = m->computeOrder;
  auto pos = [&](llvm::StringRef n) {
    return std::find(order.begin(), order.end(), n) - order.begin();
  };
  EXPECT_LT(pos("y"), pos("x"));
  EXPECT_LT(pos("x"), pos("Iion"));
}

TEST(Sema, CyclesAreErrors) {
  Harness h(std::string(kPreamble) + "a = b; b = a; Iion = a;");
  EXPECT_FALSE(h.model());
  EXPECT_NE(h.firstError().find("cyclic definition"), std::string::npos);
}

TEST(Sema, LongAccumulationChainsDoNotExhaustTheStack) {
  std::string src = std::string(kPreamble) + "Iion = 0;";
  for (int i = 0; i < 50000; ++i)
    src += "Iion += 1;";
  Harness h(src);
  std::optional<Model> m = h.model();
  ASSERT_TRUE(m) << h.firstError();
}

TEST(Sema, ParametersComputedFromOthersAreDerived) {
  Harness h(std::string(kPreamble) + "A = 0; B = 1; type = B; .flag(A, B);\n"
                                     "group { g_b; k; c; }.param();\n"
                                     "g_b = 0.5; k = 2 * 3; c = k0;\n"
                                     "k0 = 4;\n"
                                     "s = (type == B) ? 2 : 1;\n"
                                     "g = g_b * s; .param();\n"
                                     "Iion = g * V + k + c;");
  std::optional<Model> m = h.model();
  ASSERT_TRUE(m) << h.firstError();
  auto param = [&](llvm::StringRef n) -> const Parameter * {
    for (const Parameter &p : m->params)
      if (p.name == n)
        return &p;
    return nullptr;
  };
  ASSERT_TRUE(param("g") && param("g_b") && param("k") && param("c"));
  // g reads a parameter and (through s) a flag: derived, with the value
  // the defaults give.
  ASSERT_TRUE(param("g")->definition);
  EXPECT_EQ(formatExpr(param("g")->definition.get()), "g_b * s");
  EXPECT_EQ(param("g")->value, 1.0);
  // Constants alone: free parameters.
  EXPECT_FALSE(param("g_b")->definition);
  EXPECT_FALSE(param("k")->definition);
  EXPECT_FALSE(param("c")->definition);
  EXPECT_EQ(param("k")->value, 6.0);
}
