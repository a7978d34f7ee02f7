//===- Summary.cpp - readable model summaries -----------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Frontend/Summary.h"

#include "llvm/Support/Format.h"

#include <map>

using namespace easyml;
using llvm::json::Array;
using llvm::json::Object;

static std::string num(std::optional<double> v) {
  if (!v)
    return "-";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.10g", *v);
  return s;
}

/// Counts of variables per role.
static std::map<std::string, unsigned> roleCounts(const Model &m) {
  std::map<std::string, unsigned> counts;
  for (const Variable &v : m.vars)
    if (v.def || v.external || v.role == VarRole::State)
      ++counts[roleName(v.role).str()];
  return counts;
}

void easyml::printSummary(llvm::raw_ostream &os, const Model &m) {
  os << "model " << m.name << ": " << m.states.size() << " states, "
     << m.params.size() << " parameters, " << m.flags.size() << " flags, "
     << m.externals.size() << " externals, " << m.tables.size()
     << " lookup tables\n";
  os << "  markov_be groups: " << m.numMarkovGroups
     << ", cvode groups: " << m.numCvodeGroups << "\n";

  os << "\nstates:\n";
  os << llvm::format("  %-20s %-11s %-12s %-6s %-14s %s\n", (const char *)"name",
                     (const char *)"kind", (const char *)"method",
                     (const char *)"group", (const char *)"init",
                     (const char *)"bounds");
  for (const State &s : m.states) {
    std::string bounds;
    if (s.lb || s.ub)
      bounds = "[" + num(s.lb) + ", " + num(s.ub) + "]";
    std::string init = s.init.empty() ? num(s.initValue) + " (steady)"
                                      : num(s.initValue);
    os << llvm::format("  %-20s %-11s %-12s %-6s %-14s %s\n",
                       s.name.c_str(), stateKindName(s.kind).str().c_str(),
                       methodName(s.method).str().c_str(),
                       s.group < 0 ? "-" : std::to_string(s.group).c_str(),
                       init.c_str(), bounds.c_str());
  }
  if (!m.externals.empty()) {
    os << "\nexternals:\n";
    for (const External &e : m.externals)
      os << llvm::format("  %-20s as %-10s %-9s init %s%s\n", e.name.c_str(),
                         e.extName.c_str(),
                         accessName(e.access).str().c_str(),
                         num(e.initValue).c_str(), e.nodal ? " nodal" : "");
  }
  if (!m.params.empty()) {
    os << "\nparameters:\n";
    for (const Parameter &p : m.params) {
      os << llvm::format("  %-20s = %-14s %s%s\n", p.name.c_str(),
                         num(p.value).c_str(),
                         p.units ? p.units->c_str() : "",
                         p.nodal ? " nodal" : "");
      if (p.definition)
        os << "      derived: " << formatExpr(p.definition.get()) << "\n";
    }
  }
  if (!m.flags.empty()) {
    os << "\nflags:\n";
    for (const Flag &f : m.flags) {
      os << "  " << f.name << " = " << num(f.value) << " {";
      for (size_t i = 0; i < f.cases.size(); ++i)
        os << (i ? ", " : "") << f.cases[i].first << "="
           << num(f.cases[i].second);
      os << "}\n";
    }
  }
  if (!m.tables.empty()) {
    os << "\nlookup tables:\n";
    for (const Table &t : m.tables)
      os << "  " << t.variable << " from " << num(t.lo) << " to "
         << num(t.hi) << " step " << num(t.step) << " ("
         << (long long)((t.hi - t.lo) / t.step + 1.5) << " rows)\n";
  }
  os << "\nvariables by role:";
  for (auto &[role, n] : roleCounts(m))
    os << " " << role << "=" << n;
  os << "\n";
}

llvm::json::Value easyml::summaryToJSON(const Model &m) {
  auto optNum = [](std::optional<double> v) -> llvm::json::Value {
    if (v)
      return *v;
    return nullptr;
  };
  auto optStr = [](const std::optional<std::string> &s) -> llvm::json::Value {
    if (s)
      return *s;
    return nullptr;
  };
  Array states;
  for (const State &s : m.states)
    states.push_back(Object{
        {"name", s.name},
        {"kind", stateKindName(s.kind)},
        {"method", methodName(s.method)},
        {"method_explicit", s.methodExplicit},
        {"group", s.group < 0 ? llvm::json::Value(nullptr) : s.group},
        {"init", optNum(s.initValue)},
        {"init_from", s.init.empty() ? llvm::json::Value("steady_state")
                                     : llvm::json::Value(s.init)},
        {"lb", optNum(s.lb)},
        {"ub", optNum(s.ub)},
        {"units", optStr(s.units)},
        {"trace", s.trace},
    });
  Array params;
  for (const Parameter &p : m.params)
    params.push_back(
        Object{{"name", p.name},
               {"default", p.value},
               {"units", optStr(p.units)},
               {"nodal", p.nodal},
               {"derived",
                p.definition ? llvm::json::Value(formatExpr(p.definition.get()))
                             : llvm::json::Value(nullptr)}});
  Array flags;
  for (const Flag &f : m.flags) {
    Object cases;
    for (auto &[n, v] : f.cases)
      cases[n] = v;
    flags.push_back(
        Object{{"name", f.name}, {"default", f.value}, {"cases", std::move(cases)}});
  }
  Array externals;
  for (const External &e : m.externals)
    externals.push_back(Object{{"name", e.name},
                               {"simulator_name", e.extName},
                               {"access", accessName(e.access)},
                               {"init", optNum(e.initValue)},
                               {"units", optStr(e.units)},
                               {"nodal", e.nodal}});
  Array tables;
  for (const Table &t : m.tables)
    tables.push_back(Object{{"variable", t.variable},
                            {"lo", t.lo},
                            {"hi", t.hi},
                            {"step", t.step}});
  Object roles;
  for (auto &[role, n] : roleCounts(m))
    roles[role] = n;
  Array constants, algebraic;
  for (const Variable &v : m.vars) {
    if (v.role == VarRole::Constant && v.def)
      constants.push_back(v.name);
    else if (v.role == VarRole::Algebraic && v.def)
      algebraic.push_back(v.name);
  }
  Array traced;
  for (const std::string &t : m.tracedValues)
    traced.push_back(t);
  return Object{
      {"model", m.name},
      {"states", std::move(states)},
      {"parameters", std::move(params)},
      {"flags", std::move(flags)},
      {"externals", std::move(externals)},
      {"tables", std::move(tables)},
      {"constants", std::move(constants)},
      {"algebraic", std::move(algebraic)},
      {"traced_values", std::move(traced)},
      {"counts", Object{{"states", (int64_t)m.states.size()},
                        {"parameters", (int64_t)m.params.size()},
                        {"flags", (int64_t)m.flags.size()},
                        {"externals", (int64_t)m.externals.size()},
                        {"tables", (int64_t)m.tables.size()},
                        {"markov_groups", (int64_t)m.numMarkovGroups},
                        {"cvode_groups", (int64_t)m.numCvodeGroups}}},
      {"roles", std::move(roles)},
  };
}
