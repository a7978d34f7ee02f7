//===- Sema.cpp - EasyML semantic analysis --------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Frontend/Sema.h"
#include "easyml/Frontend/Builtins.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <set>

using namespace easyml;
using llvm::SMLoc;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

StringRef easyml::methodName(IntegrationMethod m) {
  switch (m) {
  case IntegrationMethod::FE: return "fe";
  case IntegrationMethod::RK2: return "rk2";
  case IntegrationMethod::RK4: return "rk4";
  case IntegrationMethod::RushLarsen: return "rush_larsen";
  case IntegrationMethod::Sundnes: return "sundnes";
  case IntegrationMethod::MarkovBE: return "markov_be";
  case IntegrationMethod::Rosenbrock: return "rosenbrock";
  case IntegrationMethod::CVODE: return "cvode";
  case IntegrationMethod::None: return "none";
  }
  return "none";
}

std::optional<IntegrationMethod> easyml::parseMethod(StringRef name) {
  return llvm::StringSwitch<std::optional<IntegrationMethod>>(name)
      .Case("fe", IntegrationMethod::FE)
      .Case("rk2", IntegrationMethod::RK2)
      .Case("rk4", IntegrationMethod::RK4)
      .Case("rush_larsen", IntegrationMethod::RushLarsen)
      .Case("sundnes", IntegrationMethod::Sundnes)
      .Case("markov_be", IntegrationMethod::MarkovBE)
      .Case("rosenbrock", IntegrationMethod::Rosenbrock)
      .Case("cvode", IntegrationMethod::CVODE)
      .Default(std::nullopt);
}

StringRef easyml::stateKindName(StateForm k) {
  switch (k) {
  case StateForm::Diff: return "diff";
  case StateForm::AlphaBeta: return "alpha_beta";
  case StateForm::InfTau: return "inf_tau";
  case StateForm::Store: return "store";
  }
  return "diff";
}

StringRef easyml::accessName(AccessKind a) {
  switch (a) {
  case AccessKind::Read: return "read";
  case AccessKind::Write: return "write";
  case AccessKind::ReadWrite: return "readwrite";
  }
  return "read";
}

StringRef easyml::roleName(VarRole r) {
  switch (r) {
  case VarRole::State: return "state";
  case VarRole::Parameter: return "parameter";
  case VarRole::Flag: return "flag";
  case VarRole::External: return "external";
  case VarRole::Constant: return "constant";
  case VarRole::Algebraic: return "algebraic";
  case VarRole::Derivative: return "derivative";
  case VarRole::InitialValue: return "initial value";
  case VarRole::Builtin: return "builtin";
  }
  return "algebraic";
}

const State *Model::lookupState(StringRef name) const {
  for (const State &s : states)
    if (s.name == name)
      return &s;
  return nullptr;
}

const External *Model::lookupExternal(StringRef name) const {
  for (const External &e : externals)
    if (e.name == name)
      return &e;
  return nullptr;
}

ExprRef Model::initDefinition(StringRef name) const {
  if (const State *s = lookupState(name)) {
    if (!s->init.empty())
      return lookup(s->init)->def;
    auto it = steadyStates.find(name);
    return it == steadyStates.end() ? nullptr : it->second;
  }
  if (const External *e = lookupExternal(name))
    return e->init.empty() ? nullptr : lookup(e->init)->def;
  const Variable *v = lookup(name);
  return v ? v->def : nullptr;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

std::optional<double> easyml::evaluate(
    const Expr *root,
    const std::function<std::optional<double>(const Expr *)> &lookup) {
  llvm::DenseMap<const Expr *, double> val;
  bool ok = true;
  forEachPostOrder(root, [&](const Expr *e) {
    if (!ok)
      return;
    auto arg = [&](unsigned i) { return val.lookup(e->operands[i].get()); };
    switch (e->kind) {
    case ExprKind::Number:
      val[e] = e->number;
      return;
    case ExprKind::Var: {
      std::optional<double> v = lookup(e);
      if (!v) {
        ok = false;
        return;
      }
      val[e] = *v;
      return;
    }
    case ExprKind::Unary:
      switch (e->unaryOp) {
      case UnaryOp::Neg: val[e] = -arg(0); return;
      case UnaryOp::Plus: val[e] = arg(0); return;
      case UnaryOp::Not: val[e] = arg(0) == 0 ? 1.0 : 0.0; return;
      }
      return;
    case ExprKind::Binary: {
      double a = arg(0), b = arg(1);
      double r = 0;
      switch (e->binaryOp) {
      case BinaryOp::Add: r = a + b; break;
      case BinaryOp::Sub: r = a - b; break;
      case BinaryOp::Mul: r = a * b; break;
      case BinaryOp::Div: r = a / b; break;
      case BinaryOp::Lt: r = a < b; break;
      case BinaryOp::Le: r = a <= b; break;
      case BinaryOp::Gt: r = a > b; break;
      case BinaryOp::Ge: r = a >= b; break;
      case BinaryOp::Eq: r = a == b; break;
      case BinaryOp::Ne: r = a != b; break;
      case BinaryOp::And: r = (a != 0) && (b != 0); break;
      case BinaryOp::Or: r = (a != 0) || (b != 0); break;
      }
      val[e] = r;
      return;
    }
    case ExprKind::Ternary:
      val[e] = arg(0) != 0 ? arg(1) : arg(2);
      return;
    case ExprKind::Call: {
      const BuiltinInfo *b = lookupBuiltin(e->name);
      if (!b || b->arity != e->operands.size()) {
        ok = false;
        return;
      }
      std::vector<double> args;
      for (unsigned i = 0; i < e->operands.size(); ++i)
        args.push_back(arg(i));
      val[e] = evaluateBuiltin(b->id, args);
      return;
    }
    }
  });
  if (!ok)
    return std::nullopt;
  return val.lookup(root);
}

/// Calls `fn` on every Var node of the DAG rooted at `root`.
static void forEachVar(const Expr *root,
                       const std::function<void(const Expr *)> &fn) {
  forEachPostOrder(root, [&](const Expr *e) {
    if (e->kind == ExprKind::Var)
      fn(e);
  });
}

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

namespace {

/// An insertion-ordered set of names.
using NameSet = llvm::SetVector<std::string, std::vector<std::string>,
                                std::set<std::string>>;

/// The names a statement defines or declares, for markups after it.
using Targets = llvm::SmallVector<std::string, 4>;

class Sema {
public:
  Sema(const ModelAST &ast, DiagnosticEngine &diags)
      : ast(ast), diags(diags) {}

  std::optional<Model> run();

private:
  //===--- variables -------------------------------------------------------===//

  Variable &var(StringRef name, SMLoc loc) {
    auto [it, inserted] = model.index.try_emplace(name, model.vars.size());
    if (inserted) {
      Variable v;
      v.name = name.str();
      v.loc = loc;
      v.order = model.vars.size();
      model.vars.push_back(std::move(v));
    }
    return model.vars[it->second];
  }
  Variable *find(StringRef name) {
    auto it = model.index.find(name);
    return it == model.index.end() ? nullptr : &model.vars[it->second];
  }

  //===--- statements ------------------------------------------------------===//

  using Env = llvm::StringMap<ExprRef>;

  /// Replaces references to the variables in `versioned` that already have
  /// a definition in `env` by that definition (textual-order semantics);
  /// references to `self` without one are self-references.
  ExprRef resolve(const ExprRef &e, const llvm::StringSet<> &versioned,
                  const Env &env, StringRef self, bool &selfRef,
                  SMLoc &selfLoc) {
    switch (e->kind) {
    case ExprKind::Number:
      return e;
    case ExprKind::Var: {
      noteUse(*e);
      if (!versioned.contains(e->name))
        return e;
      auto it = env.find(e->name);
      if (it != env.end())
        return it->second;
      if (e->name == self && !selfRef) {
        selfRef = true;
        selfLoc = e->loc;
      }
      return e;
    }
    default: {
      bool changed = false;
      std::vector<ExprRef> ops;
      for (const ExprRef &op : e->operands) {
        ops.push_back(resolve(op, versioned, env, self, selfRef, selfLoc));
        changed |= ops.back() != op;
      }
      if (e->kind == ExprKind::Call)
        checkCall(*e);
      if (!changed)
        return e;
      auto copy = std::make_shared<Expr>(*e);
      copy->operands = std::move(ops);
      return copy;
    }
    }
  }

  void noteUse(const Expr &e) {
    Variable &v = var(e.name, e.loc);
    if (!v.used) {
      v.used = true;
      v.useLoc = e.loc;
    }
  }

  void checkCall(const Expr &e) {
    const BuiltinInfo *b = lookupBuiltin(e.name);
    if (!b) {
      auto &d = diags.error(e.loc, "unknown function '" + e.name + "'");
      std::string best;
      unsigned bestDist = 3;
      for (const BuiltinInfo &c : allBuiltins()) {
        unsigned dist = StringRef(e.name).edit_distance(c.name);
        if (dist < bestDist) {
          bestDist = dist;
          best = c.name.str();
        }
      }
      if (!best.empty())
        d.note(e.loc, "did you mean '" + best + "'?");
      return;
    }
    if (e.operands.size() != b->arity) {
      diags.error(e.loc, "function '" + e.name + "' takes " +
                             std::to_string(b->arity) + " argument" +
                             (b->arity == 1 ? "" : "s") + ", got " +
                             std::to_string(e.operands.size()));
      return;
    }
    if (!b->confirmed && warnedFunctions.insert(e.name).second)
      diags.warning(e.loc, "function '" + e.name +
                               "' may not be accepted by openCARP's "
                               "limpet_fe");
  }

  /// Names assigned anywhere in `stmts` (recursively), in textual order.
  static void collectAssigned(const std::vector<StmtPtr> &stmts,
                              NameSet &out) {
    for (const StmtPtr &s : stmts) {
      if (s->kind == StmtKind::Assign)
        out.insert(s->name);
      if (s->kind == StmtKind::Group)
        collectAssigned(s->body, out);
      for (const IfBranch &b : s->branches)
        collectAssigned(b.body, out);
    }
  }

  void processStmts(const std::vector<StmtPtr> &stmts, Env &env,
                    llvm::StringSet<> &scope,
                    const llvm::StringSet<> &ifAssigned, Targets &targets) {
    for (const StmtPtr &s : stmts) {
      Targets own;
      processStmt(*s, env, scope, ifAssigned, own);
      applyMarkups(*s, own);
      targets.append(own.begin(), own.end());
    }
  }

  void processStmt(const Stmt &s, Env &env, llvm::StringSet<> &scope,
                   const llvm::StringSet<> &ifAssigned, Targets &targets) {
    switch (s.kind) {
    case StmtKind::Declare:
      var(s.name, s.loc).declared = true;
      targets.push_back(s.name);
      return;
    case StmtKind::Assign:
      processAssign(s, env, scope, ifAssigned);
      targets.push_back(s.name);
      return;
    case StmtKind::Group:
      processStmts(s.body, env, scope, ifAssigned, targets);
      return;
    case StmtKind::If:
      processIf(s, env, ifAssigned, targets);
      return;
    }
  }

  void processAssign(const Stmt &s, Env &env, llvm::StringSet<> &scope,
                     const llvm::StringSet<> &ifAssigned) {
    // `sv->X` (C struct access) naming something the model does not have
    // cannot be translated; openCARP's generated C would not compile either.
    // Ignore the whole statement, loudly.
    bool skip = false;
    forEachVar(s.value.get(), [&](const Expr *ref) {
      if (ref->structAccess && !knownNames.contains(ref->name) && !skip) {
        diags.warning(ref->loc, "'sv->" + ref->name + "' names no variable "
                                "of this model; the statement defining '" +
                                s.name + "' here is ignored");
        skip = true;
      }
    });
    if (skip) {
      var(s.name, s.loc);
      return;
    }
    Variable &v = var(s.name, s.loc);
    llvm::StringSet<> versioned;
    for (auto &k : ifAssigned)
      versioned.insert(k.getKey());
    versioned.insert(s.name);
    bool selfRef = false;
    SMLoc selfLoc;
    ExprRef rhs = resolve(s.value, versioned, env, s.name, selfRef, selfLoc);
    auto prev = env.find(s.name);
    ExprRef result;
    if (s.op == AssignOp::Set) {
      if (scope.contains(s.name)) {
        diags.error(s.loc, "redefinition of '" + s.name + "'")
            .note(v.defLoc, "previous definition is here");
        return;
      }
      result = rhs;
    } else {
      ExprRef old;
      if (prev != env.end()) {
        old = prev->second;
      } else {
        // `X += e` without an earlier definition: adds to the incoming
        // value of an external (plugin style); checked once externals are
        // known.
        auto in = std::make_shared<Expr>();
        in->kind = ExprKind::Var;
        in->loc = s.loc;
        in->name = s.name;
        in->incoming = true;
        old = in;
        compoundWithoutDef.push_back({s.name, s.opLoc});
      }
      BinaryOp op = s.op == AssignOp::Add   ? BinaryOp::Add
                    : s.op == AssignOp::Sub ? BinaryOp::Sub
                    : s.op == AssignOp::Mul ? BinaryOp::Mul
                                            : BinaryOp::Div;
      result = Expr::makeBinary(s.opLoc, op, old, rhs);
    }
    if (selfRef && !v.selfRef) {
      v.selfRef = true;
      v.selfRefLoc = selfLoc;
    }
    if (!v.def)
      v.defLoc = s.loc;
    v.def = result;
    env[s.name] = result;
    scope.insert(s.name);
  }

  void processIf(const Stmt &s, Env &env, const llvm::StringSet<> &outer,
                 Targets &targets) {
    NameSet assignedVec;
    for (const IfBranch &b : s.branches)
      collectAssigned(b.body, assignedVec);
    llvm::StringSet<> versioned;
    for (auto &k : outer)
      versioned.insert(k.getKey());
    for (const std::string &n : assignedVec)
      versioned.insert(n);

    std::vector<ExprRef> conds;
    std::vector<Env> branchEnvs;
    bool hasElse = false;
    for (const IfBranch &b : s.branches) {
      if (b.cond) {
        bool selfRef = false;
        SMLoc selfLoc;
        ExprRef c = resolve(b.cond, versioned, env, "", selfRef, selfLoc);
        forEachVar(b.cond.get(), [&](const Expr *ref) {
          if (assignedVec.contains(ref->name) && env.count(ref->name) &&
              warnedConds.insert(ref->loc.getPointer()).second)
            diags.warning(ref->loc,
                          "condition reads '" + ref->name +
                              "', which this 'if' redefines; its earlier "
                              "definition is used (openCARP's limpet_fe "
                              "would treat '" + ref->name + "' as a state)");
        });
        conds.push_back(c);
      } else {
        hasElse = true;
      }
      Env branchEnv = env;
      llvm::StringSet<> branchScope;
      processStmts(b.body, branchEnv, branchScope, versioned, targets);
      branchEnvs.push_back(std::move(branchEnv));
    }

    for (const std::string &name : assignedVec) {
      auto valueIn = [&](const Env &e) -> ExprRef {
        auto it = e.find(name);
        return it == e.end() ? nullptr : it->second;
      };
      ExprRef acc = hasElse ? valueIn(branchEnvs.back()) : valueIn(env);
      bool complete = acc != nullptr;
      for (int i = (int)conds.size() - 1; i >= 0 && complete; --i) {
        ExprRef vi = valueIn(branchEnvs[i]);
        if (!vi) {
          complete = false;
          break;
        }
        acc = Expr::makeTernary(s.branches[i].loc, conds[i], vi, acc);
      }
      Variable &v = var(name, s.loc);
      if (!complete) {
        diags.error(s.loc, "'" + name + "' has no value on every path "
                           "through this 'if': define it before the 'if' "
                           "or assign it in every branch, including an "
                           "'else'");
        continue;
      }
      if (!v.def)
        v.defLoc = s.loc;
      v.def = acc;
      env[name] = acc;
    }
  }

  /// Every name the file defines or declares, and the states those names
  /// imply (diff_X, gate rate pairs), before any analysis.
  void collectKnownNames(const std::vector<StmtPtr> &stmts) {
    for (const StmtPtr &s : stmts) {
      if (s->kind == StmtKind::Assign || s->kind == StmtKind::Declare) {
        knownNames.insert(s->name);
        StringRef n = s->name;
        if (n.starts_with("diff_"))
          knownNames.insert(n.drop_front(5));
        for (StringRef p : {"alpha_", "beta_", "a_", "b_", "tau_"})
          if (n.starts_with(p))
            knownNames.insert(n.drop_front(p.size()));
        if (n.ends_with("_inf"))
          knownNames.insert(n.drop_back(4));
      }
      collectKnownNames(s->body);
      for (const IfBranch &b : s->branches)
        collectKnownNames(b.body);
    }
  }

  //===--- markups ---------------------------------------------------------===//

  void applyMarkups(const Stmt &s, const Targets &targets) {
    for (const Markup &m : s.markups) {
      if (m.name == "method") {
        ++methodGroups;
        methodGroupLoc.push_back(m.loc);
      }
      if (m.name == "reference")
        continue;
      if (targets.empty() && m.name != "reference") {
        diags.warning(m.loc, "markup '." + m.name +
                                 "' applies to no variable");
        continue;
      }
      for (const std::string &t : targets)
        applyMarkup(m, var(t, m.loc));
    }
  }

  void applyMarkup(const Markup &m, Variable &v) {
    StringRef n = m.name;
    if (n == "external") {
      std::string ext = m.nameArgs.empty() ? v.name : m.nameArgs[0].first;
      if (v.external && v.extName != ext) {
        diags.error(m.loc, "'" + v.name + "' is external as '" + v.extName +
                               "' and as '" + ext + "'");
        return;
      }
      v.external = true;
      v.extName = ext;
    } else if (n == "nodal") {
      v.nodal = true;
    } else if (n == "param") {
      v.param = true;
    } else if (n == "trace") {
      v.trace = true;
    } else if (n == "store") {
      v.store = true;
    } else if (n == "regional") {
      v.regional = true;
    } else if (n == "units") {
      if (v.units && *v.units != m.units)
        diags.warning(m.loc, "units of '" + v.name + "' redeclared as '" +
                                 m.units + "' (were '" + *v.units + "')");
      v.units = m.units;
    } else if (n == "method") {
      StringRef mn = m.nameArgs[0].first;
      std::optional<IntegrationMethod> method = parseMethod(mn);
      if (!method) {
        if (reportedMethods.insert(m.nameArgs[0].second.getPointer()).second)
          diags.error(m.nameArgs[0].second,
                      "unknown integration method '" + mn + "'")
              .note(m.nameArgs[0].second,
                    "expected one of fe, rk2, rk4, rush_larsen, sundnes, "
                    "markov_be, rosenbrock, cvode");
        return;
      }
      v.method = method;
      v.methodLoc = m.loc;
      v.methodGroup = methodGroups - 1;
    } else if (n == "flag") {
      v.flagCases = m.nameArgs;
      v.flagLoc = m.loc;
    } else if (n == "lookup") {
      pendingTables.push_back({v.name, &m});
    } else if (n == "lb" || n == "ub") {
      pendingBounds.push_back({v.name, &m});
    }
  }

  //===--- classification --------------------------------------------------===//

  void classify();
  void detectStates();
  // The parts of detectStates, in order.
  void detectDerivatives();
  void detectStoredStates();
  void detectGates();
  void completeState(State &s);
  void orderStatesByFirstMention();
  /// Whether `name` is a variable with a definition.
  bool isDefined(const std::string &name);
  void checkUndefined();
  bool orderDefinitions(std::vector<std::string> &topo);
  void foldValues(const std::vector<std::string> &topo);
  void buildDeclarations();
  void buildComputeOrder(const std::vector<std::string> &topo);
  void buildInitOrder();

  std::optional<double> foldConstant(const ExprRef &e, StringRef what,
                                     SMLoc loc);

  const ModelAST &ast;
  DiagnosticEngine &diags;
  Model model;
  llvm::StringSet<> warnedFunctions, knownNames;
  std::set<const char *> warnedConds, reportedMethods;
  std::vector<std::pair<std::string, SMLoc>> compoundWithoutDef;
  std::vector<std::pair<std::string, const Markup *>> pendingTables,
      pendingBounds;
  int methodGroups = 0;
  std::vector<SMLoc> methodGroupLoc;
  llvm::StringMap<std::string> derivativeOf; // diff_X -> X
  llvm::StringSet<> inCycle;
};

} // namespace

/// If `name` is `diff_X` or `d_X_dt`, returns X.
static std::optional<std::string> derivativeTarget(StringRef name) {
  if (name.starts_with("diff_") && name.size() > 5)
    return name.drop_front(5).str();
  if (name.starts_with("d_") && name.ends_with("_dt") && name.size() > 5)
    return name.drop_front(2).drop_back(3).str();
  return std::nullopt;
}

void Sema::detectStates() {
  detectDerivatives();
  detectStoredStates();
  detectGates();
  for (State &s : model.states)
    completeState(s);
  orderStatesByFirstMention();
}

bool Sema::isDefined(const std::string &name) {
  const Variable *v = find(name);
  return v && v->def;
}

/// Explicit derivatives: `diff_X` or `d_X_dt` makes X a state.
void Sema::detectDerivatives() {
  for (unsigned i = 0; i < model.vars.size(); ++i) {
    Variable &d = model.vars[i];
    if (!d.def)
      continue;
    std::optional<std::string> target = derivativeTarget(d.name);
    if (!target)
      continue;
    Variable &x = var(*target, d.defLoc);
    Variable &dRef = model.vars[i];
    if (x.external) {
      diags.error(dRef.defLoc, "'" + dRef.name + "' defines the derivative "
                               "of external '" + x.name + "', which the "
                               "simulator integrates");
      continue;
    }
    bool dup = false;
    for (State &s : model.states)
      if (s.name == x.name) {
        diags.error(dRef.defLoc, "second derivative of '" + x.name + "'")
            .note(find(s.rate)->defLoc, "first derivative is here");
        dup = true;
      }
    if (dup)
      continue;
    if (x.def && !x.store) {
      diags.error(x.defLoc, "'" + x.name + "' has both a definition and a "
                            "derivative '" + dRef.name + "'")
          .note(dRef.defLoc, "derivative is here");
      continue;
    }
    State s;
    s.name = x.name;
    s.loc = dRef.defLoc;
    s.kind = StateForm::Diff;
    s.method = IntegrationMethod::FE;
    s.rate = dRef.name;
    dRef.role = VarRole::Derivative;
    derivativeOf[dRef.name] = x.name;
    model.states.push_back(s);
  }
}

/// `.store()` variables and self-referencing definitions.
void Sema::detectStoredStates() {
  for (unsigned i = 0; i < model.vars.size(); ++i) {
    Variable &x = model.vars[i];
    if (!x.def || x.role == VarRole::Derivative || model.lookupState(x.name))
      continue;
    bool hasInit = find(x.name + "_init") && find(x.name + "_init")->def;
    if (x.store) {
      State s;
      s.name = x.name;
      s.loc = x.defLoc;
      s.kind = StateForm::Store;
      s.method = IntegrationMethod::None;
      model.states.push_back(s);
      continue;
    }
    if (x.selfRef) {
      if (!hasInit) {
        diags.error(x.selfRefLoc, "'" + x.name + "' is defined in terms of "
                                  "itself")
            .note(x.defLoc, "add '" + x.name + "_init' to make it a state "
                            "updated from its old value, or '.store()'");
        inCycle.insert(x.name);
        continue;
      }
      diags.warning(x.selfRefLoc, "'" + x.name + "' is defined in terms of "
                                  "itself; it becomes a state whose new "
                                  "value is this definition of its old "
                                  "value (as with '.store()')");
      State s;
      s.name = x.name;
      s.loc = x.defLoc;
      s.kind = StateForm::Store;
      s.method = IntegrationMethod::None;
      model.states.push_back(s);
    }
  }
}

/// Gates: a name used but not defined, with a complete rate pair.
void Sema::detectGates() {
  unsigned n = model.vars.size();
  for (unsigned i = 0; i < n; ++i) {
    const Variable &x = model.vars[i];
    if (x.def || x.external || x.param || !x.used)
      continue;
    bool isDiff = model.lookupState(x.name) != nullptr;
    std::string alpha = isDefined("alpha_" + x.name) ? "alpha_" + x.name
                        : isDefined("a_" + x.name)   ? "a_" + x.name
                                                     : "";
    std::string beta = isDefined("beta_" + x.name) ? "beta_" + x.name
                       : isDefined("b_" + x.name)  ? "b_" + x.name
                                                   : "";
    std::string tau = isDefined("tau_" + x.name) ? "tau_" + x.name : "";
    std::string inf = isDefined(x.name + "_inf") ? x.name + "_inf" : "";
    bool ab = !alpha.empty() && !beta.empty();
    bool it = !tau.empty() && !inf.empty();
    if (!ab && !it)
      continue;
    if (isDiff) {
      const State *s = model.lookupState(x.name);
      diags.warning(find(s->rate)->defLoc,
                    "'" + x.name + "' has an explicit derivative and gate "
                    "rates ('" + (it ? tau : alpha) + "', '" +
                    (it ? inf : beta) + "'); the derivative is used");
      continue;
    }
    if (ab && it) {
      diags.error(find(tau)->defLoc, "gate '" + x.name + "' is defined "
                                     "both by '" + alpha + "'/'" + beta +
                                     "' and by '" + tau + "'/'" + inf + "'")
          .note(find(alpha)->defLoc, "'" + alpha + "' is defined here")
          .note(x.useLoc, "gate '" + x.name + "' is used here");
      ab = false; // go on as openCARP does, with tau/inf
    }
    if (!alpha.empty() &&
        (isDefined("alpha_" + x.name) && isDefined("a_" + x.name))) {
      diags.error(find("a_" + x.name)->defLoc,
                  "gate '" + x.name + "' has two opening rates, 'alpha_" +
                      x.name + "' and 'a_" + x.name + "'");
      continue;
    }
    State s;
    s.name = x.name;
    s.loc = x.useLoc;
    s.kind = ab ? StateForm::AlphaBeta : StateForm::InfTau;
    s.method = IntegrationMethod::RushLarsen;
    s.alpha = ab ? alpha : "";
    s.beta = ab ? beta : "";
    s.tau = it ? tau : "";
    s.inf = it ? inf : "";
    model.states.push_back(s);
  }
}

/// A state's initial value (or its gate's steady state) and markups.
void Sema::completeState(State &s) {
  Variable &x = var(s.name, s.loc);
  x.role = VarRole::State;
  std::string initName = s.name + "_init";
  if (isDefined(initName)) {
    s.init = initName;
  } else if (s.kind == StateForm::Diff || s.kind == StateForm::Store) {
    SMLoc at = s.kind == StateForm::Diff ? find(s.rate)->defLoc : s.loc;
    diags.error(at, "state '" + s.name + "' has no initial value: define '" +
                        initName + "'");
  } else {
    ExprRef ss;
    if (s.kind == StateForm::InfTau) {
      ss = Expr::makeVar(s.loc, s.inf);
    } else {
      ExprRef a = Expr::makeVar(s.loc, s.alpha);
      ss = Expr::makeBinary(s.loc, BinaryOp::Div, a,
                            Expr::makeBinary(s.loc, BinaryOp::Add, a,
                                             Expr::makeVar(s.loc, s.beta)));
    }
    model.steadyStates[s.name] = ss;
  }
  if (x.method) {
    s.method = *x.method;
    s.methodExplicit = true;
    s.group = x.methodGroup;
    if (s.kind == StateForm::Store) {
      diags.warning(x.methodLoc,
                    "'.method' on '" + s.name +
                        "', whose next value is given explicitly, is ignored");
      s.method = IntegrationMethod::None;
      s.group = -1;
    }
  }
  s.units = x.units;
  s.trace = x.trace;
  if (x.external)
    diags.error(x.loc, "state '" + s.name + "' cannot also be external");
  if (x.param)
    diags.error(x.loc, "state '" + s.name + "' cannot also be a parameter");
}

/// States in the order of their first mention.
void Sema::orderStatesByFirstMention() {
  auto rank = [&](const State &s) {
    unsigned r = find(s.name)->order;
    for (const std::string &n : {s.name + "_init", s.rate})
      if (const Variable *v = n.empty() ? nullptr : find(n))
        r = std::min(r, v->order);
    return r;
  };
  std::stable_sort(model.states.begin(), model.states.end(),
                   [&](const State &a, const State &b) {
                     return rank(a) < rank(b);
                   });
}

void Sema::checkUndefined() {
  // `+=` without an earlier definition is only meaningful on externals.
  for (auto &[name, loc] : compoundWithoutDef) {
    Variable *v = find(name);
    if (!v->external)
      diags.error(loc, "'" + name + "' is updated before it is defined")
          .note(loc, "'+=', '-=', '*=' and '/=' need an earlier definition, "
                     "unless the variable is '.external()'");
  }
  for (unsigned i = 0; i < model.vars.size(); ++i) {
    Variable &v = model.vars[i];
    if (v.def || v.external || v.role == VarRole::State ||
        v.role == VarRole::Builtin)
      continue;
    if (!v.used) {
      if (v.declared && !v.param && v.flagCases.empty() && !v.trace &&
          v.name != "Iion")
        diags.warning(v.loc, "'" + v.name + "' is declared but never "
                             "defined or used");
      if (v.param)
        diags.error(v.loc, "parameter '" + v.name + "' has no default "
                           "value");
      continue;
    }
    auto &d = diags.error(v.useLoc, "use of undefined variable '" +
                                        v.name + "'");
    if (v.declared)
      d.note(v.loc, "'" + v.name + "' is declared here but never defined");
    auto defined = [&](const std::string &n) {
      const Variable *x = find(n);
      return x && x->def;
    };
    for (auto [a, b] : {std::pair<std::string, std::string>{"alpha_", "beta_"},
                        {"a_", "b_"}}) {
      bool ha = defined(a + v.name), hb = defined(b + v.name);
      if (ha != hb)
        d.note(find((ha ? a : b) + v.name)->defLoc,
               "gate '" + v.name + "' needs both '" + a + v.name +
                   "' and '" + b + v.name + "'");
    }
    bool ht = defined("tau_" + v.name), hi = defined(v.name + "_inf");
    if (ht != hi)
      d.note(find(ht ? "tau_" + v.name : v.name + "_inf")->defLoc,
             "gate '" + v.name + "' needs both 'tau_" + v.name + "' and '" +
                 v.name + "_inf'");
    std::string best;
    unsigned bestDist = std::min<size_t>(3, v.name.size() / 2 + 1);
    for (const Variable &c : model.vars) {
      if (!c.def && !c.external)
        continue;
      unsigned dist = StringRef(v.name).edit_distance(c.name, true, bestDist);
      if (dist < bestDist) {
        bestDist = dist;
        best = c.name;
      }
    }
    if (!best.empty())
      d.note(find(best)->defLoc.isValid() ? find(best)->defLoc
                                          : find(best)->loc,
             "did you mean '" + best + "'?");
  }
}

/// Dependencies of a definition on other definitions (not on states).
bool Sema::orderDefinitions(std::vector<std::string> &topo) {
  // Nodes: variables with a definition that are not states (a state's
  // definition, for `.store`, reads the old value of others).
  auto isNode = [&](const Variable &v) {
    return v.def && !inCycle.contains(v.name);
  };
  auto edgesOf = [&](const Variable &v) {
    std::vector<std::pair<unsigned, SMLoc>> out;
    llvm::DenseSet<unsigned> seen;
    forEachVar(v.def.get(), [&](const Expr *ref) {
      if (ref->incoming)
        return;
      const Variable *d = find(ref->name);
      if (!d || !isNode(*d) || d->role == VarRole::State)
        return;
      unsigned idx = model.index.lookup(ref->name);
      if (seen.insert(idx).second)
        out.push_back({idx, ref->loc});
    });
    return out;
  };
  // Iterative Tarjan.
  unsigned n = model.vars.size();
  std::vector<std::vector<std::pair<unsigned, SMLoc>>> edges(n);
  for (unsigned i = 0; i < n; ++i)
    if (isNode(model.vars[i]) && model.vars[i].role != VarRole::State)
      edges[i] = edgesOf(model.vars[i]);
    else if (isNode(model.vars[i]))
      edges[i] = edgesOf(model.vars[i]); // store states: next value deps
  std::vector<int> idx(n, -1), low(n, 0);
  std::vector<bool> onStack(n, false);
  std::vector<unsigned> stack;
  int counter = 0;
  bool ok = true;
  for (unsigned root = 0; root < n; ++root) {
    if (idx[root] != -1 || !isNode(model.vars[root]))
      continue;
    std::vector<std::pair<unsigned, size_t>> work{{root, 0}};
    idx[root] = low[root] = counter++;
    stack.push_back(root);
    onStack[root] = true;
    while (!work.empty()) {
      auto &[v, ei] = work.back();
      if (ei < edges[v].size()) {
        unsigned w = edges[v][ei++].first;
        if (idx[w] == -1) {
          idx[w] = low[w] = counter++;
          stack.push_back(w);
          onStack[w] = true;
          work.push_back({w, 0});
        } else if (onStack[w]) {
          low[v] = std::min(low[v], idx[w]);
        }
        continue;
      }
      unsigned done = v;
      work.pop_back();
      if (!work.empty())
        low[work.back().first] = std::min(low[work.back().first], low[done]);
      if (low[done] != idx[done])
        continue;
      std::vector<unsigned> scc;
      while (true) {
        unsigned w = stack.back();
        stack.pop_back();
        onStack[w] = false;
        scc.push_back(w);
        if (w == done)
          break;
      }
      if (scc.size() == 1) {
        topo.push_back(model.vars[done].name);
        continue;
      }
      // Report the cycle: walk from the first-defined member back to itself
      // within the component.
      ok = false;
      llvm::DenseSet<unsigned> members(scc.begin(), scc.end());
      unsigned start = *std::min_element(
          scc.begin(), scc.end(),
          [&](unsigned a, unsigned b) {
            return model.vars[a].order < model.vars[b].order;
          });
      // BFS for the shortest path start -> ... -> start.
      std::vector<int> parent(n, -1);
      std::vector<SMLoc> via(n);
      std::vector<unsigned> queue{start};
      bool found = false;
      for (size_t qi = 0; qi < queue.size() && !found; ++qi) {
        unsigned u = queue[qi];
        for (auto &[w, loc] : edges[u]) {
          if (!members.contains(w))
            continue;
          if (w == start) {
            parent[start] = u;
            via[start] = loc;
            found = true;
            break;
          }
          if (parent[w] == -1) {
            parent[w] = u;
            via[w] = loc;
            queue.push_back(w);
          }
        }
      }
      std::vector<unsigned> path{start};
      for (unsigned u = parent[start]; u != start && path.size() <= n;
           u = parent[u])
        path.push_back(u);
      std::reverse(path.begin() + 1, path.end());
      std::string chain;
      for (unsigned u : path)
        chain += "'" + model.vars[u].name + "' -> ";
      chain += "'" + model.vars[start].name + "'";
      auto &d = diags.error(model.vars[start].defLoc,
                            "cyclic definition: " + chain);
      for (size_t k = 0; k < path.size(); ++k) {
        unsigned from = path[k], to = path[(k + 1) % path.size()];
        d.note(via[to], "'" + model.vars[from].name + "' uses '" +
                            model.vars[to].name + "' here");
      }
      for (unsigned u : scc)
        inCycle.insert(model.vars[u].name);
    }
  }
  return ok;
}

std::optional<double> Sema::foldConstant(const ExprRef &e, StringRef what,
                                         SMLoc loc) {
  std::string culprit;
  std::optional<double> v = evaluate(e.get(), [&](const Expr *ref)
                                                  -> std::optional<double> {
    const Variable *x = find(ref->name);
    if (x && x->value && x->role == VarRole::Constant)
      return x->value;
    if (culprit.empty())
      culprit = ref->name;
    return std::nullopt;
  });
  if (!v)
    diags.error(loc, what + " must be a constant, but it depends on '" +
                         culprit + "'");
  return v;
}

void Sema::foldValues(const std::vector<std::string> &topo) {
  // In dependency order: a definition that reads only numbers and constants
  // is a constant; one that also reads parameters or flags is folded with
  // their defaults (for parameters' defaults) and is parameter-dependent.
  for (const std::string &name : topo) {
    Variable &v = *find(name);
    if (v.role == VarRole::State || v.role == VarRole::Derivative)
      continue;
    bool constant = true, paramDep = false;
    std::string culprit;
    std::optional<double> value = evaluate(
        v.def.get(), [&](const Expr *ref) -> std::optional<double> {
          const Variable *x = find(ref->name);
          if (!x || ref->incoming || !x->value) {
            if (culprit.empty())
              culprit = ref->name;
            return std::nullopt;
          }
          if (x->role == VarRole::Parameter || x->role == VarRole::Flag ||
              x->paramDependent)
            paramDep = true;
          return x->value;
        });
    constant = value.has_value();
    if (v.param || !v.flagCases.empty()) {
      StringRef what = v.param ? "parameter" : "flag";
      if (!constant) {
        diags.error(v.defLoc, "default of " + what + " '" + v.name +
                                  "' must be constant, but it depends on '" +
                                  culprit + "'");
        v.role = v.param ? VarRole::Parameter : VarRole::Flag;
        v.value = 0;
        continue;
      }
      v.role = v.param ? VarRole::Parameter : VarRole::Flag;
      v.value = value;
      // A parameter computed from others follows them at run time; its
      // value here is the one their defaults give.
      v.derivedParam = v.param && paramDep;
      continue;
    }
    if (v.external) {
      v.role = VarRole::External;
      continue;
    }
    if (constant) {
      v.value = value;
      v.paramDependent = paramDep;
      if (v.role != VarRole::InitialValue)
        v.role = paramDep ? VarRole::Algebraic : VarRole::Constant;
    }
  }
}

void Sema::buildDeclarations() {
  // Externals.
  for (Variable &v : model.vars) {
    if (!v.external || v.role == VarRole::State)
      continue;
    External e;
    e.name = v.name;
    e.extName = v.extName;
    e.units = v.units;
    e.nodal = v.nodal;
    e.trace = v.trace;
    bool readsIncoming = false;
    if (v.def)
      forEachVar(v.def.get(), [&](const Expr *ref) {
        readsIncoming |= ref->incoming && ref->name == v.name;
      });
    e.access = !v.def ? AccessKind::Read
               : readsIncoming ? AccessKind::ReadWrite
                               : AccessKind::Write;
    if (v.param)
      diags.error(v.loc, "'" + v.name + "' cannot be both external and a "
                         "parameter");
    const Variable *init = find(v.name + "_init");
    if (init && init->def)
      e.init = init->name;
    v.role = VarRole::External;
    model.externals.push_back(e);
  }
  // Parameters and flags.
  for (Variable &v : model.vars) {
    if (v.role == VarRole::Parameter) {
      if (!v.flagCases.empty())
        diags.error(v.flagLoc, "'" + v.name + "' cannot be both a flag and "
                               "a parameter");
      model.params.push_back({v.name, v.value.value_or(0), v.units, v.nodal,
                              v.trace, v.derivedParam ? v.def : nullptr});
    } else if (v.role == VarRole::Flag) {
      Flag f;
      f.name = v.name;
      f.value = v.value.value_or(0);
      llvm::StringSet<> seen;
      for (auto &[cname, cloc] : v.flagCases) {
        const Variable *c = find(cname);
        if (!seen.insert(cname).second) {
          diags.error(cloc, "flag case '" + cname + "' is listed twice");
          continue;
        }
        if (!c || !c->def || c->role != VarRole::Constant || !c->value) {
          diags.error(cloc, "flag case '" + cname + "' of '" + v.name +
                                "' must be a constant defined in the model");
          continue;
        }
        f.cases.push_back({cname, *c->value});
      }
      model.flags.push_back(f);
    }
  }
  // X_init names that initialise nothing.
  for (Variable &v : model.vars) {
    if (!v.def || !StringRef(v.name).ends_with("_init") ||
        v.name.size() <= 5)
      continue;
    std::string target = v.name.substr(0, v.name.size() - 5);
    const Variable *t = find(target);
    bool isState = model.lookupState(target) != nullptr;
    bool isExt = t && t->external;
    if (isState || isExt) {
      v.role = VarRole::InitialValue;
    } else if (!v.used) {
      diags.warning(v.defLoc, "'" + v.name + "' initialises '" + target +
                                  "', which is neither a state nor an "
                                  "external; it is ignored");
    }
  }
  // Tables and bounds (constant arguments).
  for (auto &[name, m] : pendingTables) {
    std::optional<double> lo = foldConstant(m->exprArgs[0], "'.lookup' lower "
                                            "bound", m->exprArgs[0]->loc);
    std::optional<double> hi = foldConstant(m->exprArgs[1], "'.lookup' upper "
                                            "bound", m->exprArgs[1]->loc);
    std::optional<double> st = foldConstant(m->exprArgs[2], "'.lookup' step",
                                            m->exprArgs[2]->loc);
    if (!lo || !hi || !st)
      continue;
    if (!(*lo < *hi) || !std::isfinite(*lo) || !std::isfinite(*hi)) {
      diags.error(m->loc, "'.lookup' of '" + name + "' needs lo < hi, got " +
                              std::to_string(*lo) + " and " +
                              std::to_string(*hi));
      continue;
    }
    if (!(*st > 0) || !std::isfinite(*st) || (*hi - *lo) / *st > 1e8) {
      diags.error(m->loc, "'.lookup' of '" + name + "' needs a positive "
                              "step giving at most 1e8 rows");
      continue;
    }
    bool dup = false;
    for (const Table &t : model.tables)
      if (t.variable == name) {
        diags.error(m->loc, "second lookup table for '" + name + "'")
            .note(t.loc, "first table is declared here");
        dup = true;
      }
    if (!dup)
      model.tables.push_back({name, *lo, *hi, *st, m->loc});
  }
  for (auto &[name, m] : pendingBounds) {
    std::optional<double> b =
        foldConstant(m->exprArgs[0], "'." + m->name + "' bound",
                     m->exprArgs[0]->loc);
    if (!b)
      continue;
    State *s = nullptr;
    for (State &st : model.states)
      if (st.name == name)
        s = &st;
    if (!s) {
      diags.warning(m->loc, "'." + m->name + "' on '" + name + "', which is "
                                "not a state, is ignored");
      continue;
    }
    (m->name == "lb" ? s->lb : s->ub) = *b;
  }
  for (State &s : model.states)
    if (s.lb && s.ub && *s.lb > *s.ub)
      diags.error(s.loc, "state '" + s.name + "' has lower bound " +
                             std::to_string(*s.lb) + " above upper bound " +
                             std::to_string(*s.ub));
  // `.method` on variables that are not states.
  for (Variable &v : model.vars)
    if (v.method && v.role != VarRole::State)
      diags.warning(v.methodLoc, "'.method' on '" + v.name + "', which is "
                                 "not a state, is ignored");
  // Method groups.
  std::set<int> markov, cvode;
  for (const State &s : model.states) {
    if (s.method == IntegrationMethod::MarkovBE)
      markov.insert(s.group);
    if (s.method == IntegrationMethod::CVODE)
      cvode.insert(s.group);
  }
  model.numMarkovGroups = markov.size();
  model.numCvodeGroups = cvode.size();
  // Traced values that are not declarations.
  for (const Variable &v : model.vars)
    if (v.trace && v.def &&
        (v.role == VarRole::Algebraic || v.role == VarRole::Constant ||
         v.role == VarRole::Derivative))
      model.tracedValues.push_back(v.name);
}

void Sema::buildComputeOrder(const std::vector<std::string> &topo) {
  llvm::StringSet<> needed;
  std::vector<std::string> work;
  auto need = [&](const std::string &n) {
    if (n.empty())
      return;
    const Variable *v = find(n);
    if (!v || !v->def)
      return;
    if (needed.insert(n).second)
      work.push_back(n);
  };
  for (const State &s : model.states) {
    need(s.rate);
    need(s.alpha);
    need(s.beta);
    need(s.inf);
    need(s.tau);
    if (s.kind == StateForm::Store)
      need(s.name);
  }
  for (const External &e : model.externals)
    if (e.access != AccessKind::Read)
      need(e.name);
  for (const std::string &t : model.tracedValues)
    need(t);
  while (!work.empty()) {
    std::string n = work.back();
    work.pop_back();
    const Variable *v = find(n);
    forEachVar(v->def.get(), [&](const Expr *ref) {
      const Variable *d = find(ref->name);
      if (ref->incoming || !d || d->role == VarRole::State)
        return;
      need(ref->name);
    });
  }
  for (const std::string &n : topo) {
    const Variable *v = find(n);
    if (!needed.contains(n) || v->role == VarRole::State ||
        v->role == VarRole::Parameter || v->role == VarRole::Flag ||
        v->role == VarRole::Constant)
      continue;
    model.computeOrder.push_back(n);
  }
}

void Sema::buildInitOrder() {
  // Depth-first over "initial value of X depends on initial value of Y",
  // where states and externals mean their initial values.
  enum Color { White, Grey, Black };
  llvm::StringMap<Color> color;
  auto isLeaf = [&](const Variable &v) {
    return v.role == VarRole::Parameter || v.role == VarRole::Flag ||
           v.role == VarRole::Constant || v.role == VarRole::Builtin;
  };
  auto visitRoot = [&](const std::string &root) {
    if (color.lookup(root) != White)
      return;
    // (name, deps, next dep)
    struct Frame {
      std::string name;
      std::vector<std::pair<std::string, SMLoc>> deps;
      size_t next = 0;
    };
    auto depsOf = [&](const std::string &n) {
      std::vector<std::pair<std::string, SMLoc>> deps;
      ExprRef def = model.initDefinition(n);
      if (!def)
        return deps;
      llvm::StringSet<> seen;
      forEachVar(def.get(), [&](const Expr *ref) {
        if (seen.insert(ref->name).second)
          deps.push_back({ref->name, ref->loc});
      });
      return deps;
    };
    std::vector<Frame> stack;
    stack.push_back({root, depsOf(root)});
    color[root] = Grey;
    while (!stack.empty()) {
      Frame &f = stack.back();
      if (f.next < f.deps.size()) {
        auto [dep, loc] = f.deps[f.next++];
        const Variable *v = find(dep);
        if (!v || inCycle.contains(dep))
          continue;
        if (v->role == VarRole::Builtin && dep == "dt") {
          diags.error(loc, "the initial value of '" + stack.front().name +
                               "' cannot depend on 'dt'");
          continue;
        }
        if (isLeaf(*v))
          continue;
        if (v->role == VarRole::External &&
            model.lookupExternal(dep)->init.empty()) {
          diags.error(loc, "the initial value of '" + stack.front().name +
                               "' depends on external '" + dep +
                               "', which has no '" + dep + "_init'");
          continue;
        }
        Color c = color.lookup(dep);
        if (c == Grey) {
          diags.error(loc, "the initial value of '" + dep +
                               "' depends on itself");
          continue;
        }
        if (c == Black)
          continue;
        color[dep] = Grey;
        stack.push_back({dep, depsOf(dep)});
        continue;
      }
      color[f.name] = Black;
      model.initOrder.push_back(f.name);
      stack.pop_back();
    }
  };
  for (const State &s : model.states)
    visitRoot(s.name);
  for (const External &e : model.externals)
    if (!e.init.empty())
      visitRoot(e.name);
}

std::optional<Model> Sema::run() {
  model.name = ast.name;
  collectKnownNames(ast.stmts);
  Env env;
  llvm::StringSet<> scope, noIf;
  Targets targets;
  processStmts(ast.stmts, env, scope, noIf, targets);
  if (diags.tooManyErrors())
    return std::nullopt;

  // Builtins: `t` and `dt`, unless the model defines its own.
  for (StringRef b : {"t", "dt"}) {
    Variable *v = find(b);
    if (v && !v->def && !v->external)
      v->role = VarRole::Builtin;
  }

  detectStates();
  checkUndefined();
  std::vector<std::string> topo;
  orderDefinitions(topo);
  // Roles before folding.
  for (Variable &v : model.vars) {
    if (v.param && v.def && v.role != VarRole::State)
      v.role = VarRole::Parameter;
    else if (!v.flagCases.empty() && v.def && v.role != VarRole::State)
      v.role = VarRole::Flag;
    else if (v.def && StringRef(v.name).ends_with("_init") &&
             v.role == VarRole::Algebraic) {
      std::string target = v.name.substr(0, v.name.size() - 5);
      if (model.lookupState(target) ||
          (find(target) && find(target)->external))
        v.role = VarRole::InitialValue;
    }
  }
  foldValues(topo);
  buildDeclarations();
  if (diags.hasErrors())
    return std::nullopt;
  buildComputeOrder(topo);
  buildInitOrder();
  if (diags.hasErrors())
    return std::nullopt;

  // Numeric initial values with default parameters.
  llvm::StringMap<double> initVals;
  for (const std::string &n : model.initOrder) {
    ExprRef def = model.initDefinition(n);
    if (!def)
      continue;
    std::optional<double> v =
        evaluate(def.get(), [&](const Expr *ref) -> std::optional<double> {
          const Variable *x = find(ref->name);
          if (!x)
            return std::nullopt;
          if (x->role == VarRole::Builtin)
            return ref->name == "t" ? std::optional<double>(0.0)
                                    : std::nullopt;
          if ((x->role == VarRole::Parameter || x->role == VarRole::Flag ||
               x->role == VarRole::Constant) &&
              x->value)
            return x->value;
          auto it = initVals.find(ref->name);
          if (it != initVals.end())
            return it->second;
          return std::nullopt;
        });
    if (v)
      initVals[n] = *v;
  }
  for (State &s : model.states)
    if (initVals.count(s.name))
      s.initValue = initVals[s.name];
  for (External &e : model.externals)
    if (initVals.count(e.name))
      e.initValue = initVals[e.name];
  return std::move(model);
}

std::optional<Model> easyml::analyze(const ModelAST &ast,
                                     DiagnosticEngine &diags) {
  return Sema(ast, diags).run();
}
