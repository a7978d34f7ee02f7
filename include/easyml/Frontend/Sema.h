//===- Sema.h - EasyML semantic analysis ----------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Semantic analysis turns the statements of an EasyML file into a Model:
// every variable classified (state and its method, parameter, flag, external,
// constant, algebraic, ...), `+=` and `if/elif/else` desugared in textual
// order into one definition per variable, gates detected from their names,
// dependencies ordered and cycles rejected.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_FRONTEND_SEMA_H
#define EASYML_FRONTEND_SEMA_H

#include "easyml/Frontend/AST.h"
#include "easyml/Frontend/Diagnostics.h"

#include "llvm/ADT/StringMap.h"

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace easyml {

enum class IntegrationMethod {
  FE, RK2, RK4, RushLarsen, Sundnes, MarkovBE, Rosenbrock, CVODE, None
};
enum class StateForm { Diff, AlphaBeta, InfTau, Store };
enum class AccessKind { Read, Write, ReadWrite };

llvm::StringRef methodName(IntegrationMethod m);
std::optional<IntegrationMethod> parseMethod(llvm::StringRef name);
llvm::StringRef stateKindName(StateForm k);
llvm::StringRef accessName(AccessKind a);

enum class VarRole {
  State,        // integrated or stored per cell
  Parameter,    // .param()
  Flag,         // .flag(...)
  External,     // .external()
  Constant,     // value known at compile time
  Algebraic,    // computed every step
  Derivative,   // diff_X / d_X_dt
  InitialValue, // X_init
  Builtin,      // t, dt
};
llvm::StringRef roleName(VarRole r);

/// Everything known about one name in the model.
struct Variable {
  std::string name;
  llvm::SMLoc loc;       // first mention
  unsigned order = 0;    // rank of the first mention in the file
  VarRole role = VarRole::Algebraic;
  ExprRef def;           // final (desugared) definition; null if none
  llvm::SMLoc defLoc;    // first definition
  bool declared = false; // appears as `X;`
  bool used = false;     // referenced by some expression
  llvm::SMLoc useLoc;    // first reference
  // Markups.
  bool external = false;
  std::string extName;
  bool nodal = false, param = false, trace = false, store = false,
       regional = false;
  std::optional<std::string> units;
  std::optional<IntegrationMethod> method;
  llvm::SMLoc methodLoc;
  int methodGroup = -1;
  std::optional<double> lb, ub;
  std::vector<std::pair<std::string, llvm::SMLoc>> flagCases;
  llvm::SMLoc flagLoc;
  // Analysis results.
  bool selfRef = false;
  llvm::SMLoc selfRefLoc;
  bool paramDependent = false; // depends on a parameter or flag
  /// A parameter whose default is an expression of other parameters or
  /// flags: recomputed from their current values at run time.
  bool derivedParam = false;
  std::optional<double> value; // folded value (constants, params, flags)
};

struct State {
  std::string name;
  llvm::SMLoc loc;
  StateForm kind;
  IntegrationMethod method;
  bool methodExplicit = false;
  int group = -1;             // .method() group, -1 if none
  std::string rate;           // diff: the derivative variable
  std::string alpha, beta;    // alpha_beta gates
  std::string inf, tau;       // inf_tau gates
  std::string init;           // X_init, empty when defaulted
  std::optional<double> lb, ub;
  std::optional<std::string> units;
  bool trace = false;
  std::optional<double> initValue; // evaluated with default parameters
};

struct Parameter {
  std::string name;
  double value; // with every parameter and flag at its default
  std::optional<std::string> units;
  bool nodal = false, trace = false;
  /// Derived parameters: the definition (an expression of parameters,
  /// flags, constants and variables computed from them alone), null for a
  /// free parameter.
  ExprRef definition;
};

struct Flag {
  std::string name;
  double value;
  std::vector<std::pair<std::string, double>> cases;
};

struct External {
  std::string name;    // model name (V)
  std::string extName; // simulator name (Vm)
  AccessKind access;
  std::optional<std::string> units;
  bool nodal = false, trace = false;
  std::string init;    // E_init, empty if none
  std::optional<double> initValue;
};

struct Table {
  std::string variable;
  double lo, hi, step;
  llvm::SMLoc loc;
};

/// The analysed model.
struct Model {
  std::string name;
  std::deque<Variable> vars; // stable references while growing
  llvm::StringMap<unsigned> index;
  std::vector<State> states;
  std::vector<Parameter> params;
  std::vector<Flag> flags;
  std::vector<External> externals;
  std::vector<Table> tables;
  /// Variables computed every step, dependencies first.
  std::vector<std::string> computeOrder;
  /// Variables whose initial value `init` needs, dependencies first.
  std::vector<std::string> initOrder;
  /// Traced variables that are not states, parameters or externals.
  std::vector<std::string> tracedValues;
  unsigned numMarkovGroups = 0, numCvodeGroups = 0;

  const Variable *lookup(llvm::StringRef name) const {
    auto it = index.find(name);
    return it == index.end() ? nullptr : &vars[it->second];
  }
  const State *lookupState(llvm::StringRef name) const;
  const External *lookupExternal(llvm::StringRef name) const;

  /// What `name` means while computing initial values: a state's `X_init`
  /// (or steady state), an external's `E_init`, or a variable's definition.
  ExprRef initDefinition(llvm::StringRef name) const;
  llvm::StringMap<ExprRef> steadyStates; // synthesised gate inits
};

/// Analyses `ast`; returns std::nullopt if an error was reported.
std::optional<Model> analyze(const ModelAST &ast, DiagnosticEngine &diags);

/// Evaluates `e` in double precision; `lookup` gives variable values (or
/// std::nullopt, which makes the result std::nullopt).
std::optional<double>
evaluate(const Expr *e,
         const std::function<std::optional<double>(const Expr *)> &lookup);

} // namespace easyml

#endif // EASYML_FRONTEND_SEMA_H
