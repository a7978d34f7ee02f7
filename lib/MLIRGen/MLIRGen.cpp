//===- MLIRGen.cpp - EasyML model to easyml dialect -----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/MLIRGen/MLIRGen.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"
#include "easyml/Frontend/Builtins.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>

using namespace mlir;
using namespace easyml;

Location easyml::toLocation(MLIRContext &ctx, llvm::SourceMgr &sm,
                            llvm::SMLoc l) {
  if (!l.isValid())
    return UnknownLoc::get(&ctx);
  unsigned buf = sm.FindBufferContainingLoc(l);
  if (!buf)
    return UnknownLoc::get(&ctx);
  auto [line, col] = sm.getLineAndColumn(l, buf);
  return FileLineColLoc::get(
      &ctx, sm.getMemoryBuffer(buf)->getBufferIdentifier(), line, col);
}

namespace {

/// The dialect's spelling of a front-end integration method: one case per
/// method, so a method added on one side only does not compile (-Wswitch)
/// instead of mapping to its neighbour.
::easyml::Method toDialect(IntegrationMethod m) {
  using ::easyml::Method;
  switch (m) {
  case IntegrationMethod::FE:
    return Method::fe;
  case IntegrationMethod::RK2:
    return Method::rk2;
  case IntegrationMethod::RK4:
    return Method::rk4;
  case IntegrationMethod::RushLarsen:
    return Method::rush_larsen;
  case IntegrationMethod::Sundnes:
    return Method::sundnes;
  case IntegrationMethod::MarkovBE:
    return Method::markov_be;
  case IntegrationMethod::Rosenbrock:
    return Method::rosenbrock;
  case IntegrationMethod::CVODE:
    return Method::cvode;
  case IntegrationMethod::None:
    return Method::none;
  }
  llvm_unreachable("unknown integration method");
}

/// The dialect's spelling of how a model uses an external.
::easyml::Access toDialect(AccessKind a) {
  switch (a) {
  case AccessKind::Read:
    return ::easyml::Access::read;
  case AccessKind::Write:
    return ::easyml::Access::write;
  case AccessKind::ReadWrite:
    return ::easyml::Access::readwrite;
  }
  llvm_unreachable("unknown access");
}

class Generator {
public:
  Generator(MLIRContext &ctx, const Model &model, llvm::SourceMgr &sm)
      : ctx(ctx), model(model), sm(sm), b(&ctx) {}

  OwningOpRef<ModuleOp> run();

private:
  // The parts of run: the model's declarations, its init and compute
  // regions.
  void emitDeclarations();
  void emitInit(Location l);
  void emitCompute(Location l);
  Value valueOf(const std::string &n, const llvm::StringMap<Value> &values);
  void emitUpdate(const State &s, const llvm::StringMap<Value> &values,
                  llvm::DenseMap<const Expr *, Value> &memo,
                  const std::function<Value(const Expr *)> &resolve);

  Location loc(llvm::SMLoc l) { return toLocation(ctx, sm, l); }
  Location nameLoc(StringRef name, llvm::SMLoc l) {
    return NameLoc::get(StringAttr::get(&ctx, name), loc(l));
  }

  Value toF64(Value v, Location l) {
    if (v.getType().isF64())
      return v;
    return b.create<arith::UIToFPOp>(l, b.getF64Type(), v);
  }
  Value toI1(Value v, Location l) {
    if (v.getType().isInteger(1))
      return v;
    Value zero = b.create<arith::ConstantOp>(l, b.getF64FloatAttr(0.0));
    return b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNE, v, zero);
  }
  UnitAttr unit(bool set) { return set ? b.getUnitAttr() : UnitAttr(); }
  Value constant(double v, Location l) {
    return b.create<arith::ConstantOp>(l, b.getF64FloatAttr(v));
  }

  /// Emits the DAG rooted at `root`; `resolve` gives the value of a Var.
  Value emit(const Expr *root, llvm::DenseMap<const Expr *, Value> &memo,
             const std::function<Value(const Expr *)> &resolve);
  Value emitCall(const Expr *e, ArrayRef<Value> args, Location l);

  Value emitVar(const Expr *e, llvm::StringMap<Value> &values, bool initRegion);
  /// The `derived` region of parameter `p`: its definition from the
  /// parameters and flags it reads, the variables computed from them alone
  /// inlined.
  void emitDefinition(ParamOp op, const Parameter &p);

  MLIRContext &ctx;
  const Model &model;
  llvm::SourceMgr &sm;
  OpBuilder b;
  llvm::StringMap<Value> gets;
  bool hadError = false;
};

} // namespace

Value Generator::emitCall(const Expr *e, ArrayRef<Value> a, Location l) {
  const BuiltinInfo *info = lookupBuiltin(e->name);
  switch (info->id) {
  case Builtin::Exp:
    return b.create<math::ExpOp>(l, a[0]);
  case Builtin::Expm1:
    return b.create<math::ExpM1Op>(l, a[0]);
  case Builtin::Log:
    return b.create<math::LogOp>(l, a[0]);
  case Builtin::Log10:
    return b.create<math::Log10Op>(l, a[0]);
  case Builtin::Log2:
    return b.create<math::Log2Op>(l, a[0]);
  case Builtin::Log1p:
    return b.create<math::Log1pOp>(l, a[0]);
  case Builtin::Pow:
    return b.create<math::PowFOp>(l, a[0], a[1]);
  case Builtin::Sqrt:
    return b.create<math::SqrtOp>(l, a[0]);
  case Builtin::Cbrt:
    return b.create<math::CbrtOp>(l, a[0]);
  case Builtin::Fabs:
    return b.create<math::AbsFOp>(l, a[0]);
  case Builtin::Sin:
    return b.create<math::SinOp>(l, a[0]);
  case Builtin::Cos:
    return b.create<math::CosOp>(l, a[0]);
  case Builtin::Tan:
    return b.create<math::TanOp>(l, a[0]);
  case Builtin::Asin:
    return b.create<math::AsinOp>(l, a[0]);
  case Builtin::Acos:
    return b.create<math::AcosOp>(l, a[0]);
  case Builtin::Atan:
    return b.create<math::AtanOp>(l, a[0]);
  case Builtin::Atan2:
    return b.create<math::Atan2Op>(l, a[0], a[1]);
  case Builtin::Sinh:
    return b.create<math::SinhOp>(l, a[0]);
  case Builtin::Cosh:
    return b.create<math::CoshOp>(l, a[0]);
  case Builtin::Tanh:
    return b.create<math::TanhOp>(l, a[0]);
  case Builtin::Floor:
    return b.create<math::FloorOp>(l, a[0]);
  case Builtin::Ceil:
    return b.create<math::CeilOp>(l, a[0]);
  case Builtin::Round:
    return b.create<math::RoundOp>(l, a[0]);
  case Builtin::Trunc:
    return b.create<math::TruncOp>(l, a[0]);
  case Builtin::Erf:
    return b.create<math::ErfOp>(l, a[0]);
  case Builtin::Exp2:
    return b.create<math::Exp2Op>(l, a[0]);
  case Builtin::Fmin:
    return b.create<arith::MinNumFOp>(l, a[0], a[1]);
  case Builtin::Fmax:
    return b.create<arith::MaxNumFOp>(l, a[0], a[1]);
  case Builtin::Square:
    return b.create<arith::MulFOp>(l, a[0], a[0]);
  case Builtin::Cube:
    return b.create<arith::MulFOp>(l, b.create<arith::MulFOp>(l, a[0], a[0]),
                                   a[0]);
  case Builtin::Heav: {
    Value zero = constant(0.0, l);
    Value ge =
        b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGE, a[0], zero);
    return b.create<arith::SelectOp>(l, ge, constant(1.0, l), zero);
  }
  }
  return {};
}

Value Generator::emit(const Expr *root,
                      llvm::DenseMap<const Expr *, Value> &memo,
                      const std::function<Value(const Expr *)> &resolve) {
  forEachPostOrder(root, [&](const Expr *e) {
    if (memo.count(e))
      return;
    Location l = loc(e->loc);
    auto op = [&](unsigned i) { return memo.lookup(e->operands[i].get()); };
    Value v;
    switch (e->kind) {
    case ExprKind::Number:
      v = constant(e->number, l);
      break;
    case ExprKind::Var:
      v = resolve(e);
      break;
    case ExprKind::Unary:
      switch (e->unaryOp) {
      case UnaryOp::Neg:
        v = b.create<arith::NegFOp>(l, toF64(op(0), l));
        break;
      case UnaryOp::Plus:
        v = toF64(op(0), l);
        break;
      case UnaryOp::Not: {
        Value t = b.create<arith::ConstantOp>(l, b.getBoolAttr(true));
        v = b.create<arith::XOrIOp>(l, toI1(op(0), l), t);
        break;
      }
      }
      break;
    case ExprKind::Binary: {
      Value x = op(0), y = op(1);
      auto cmp = [&](arith::CmpFPredicate p) {
        return b.create<arith::CmpFOp>(l, p, toF64(x, l), toF64(y, l));
      };
      switch (e->binaryOp) {
      case BinaryOp::Add:
        v = b.create<arith::AddFOp>(l, toF64(x, l), toF64(y, l));
        break;
      case BinaryOp::Sub:
        v = b.create<arith::SubFOp>(l, toF64(x, l), toF64(y, l));
        break;
      case BinaryOp::Mul:
        v = b.create<arith::MulFOp>(l, toF64(x, l), toF64(y, l));
        break;
      case BinaryOp::Div:
        v = b.create<arith::DivFOp>(l, toF64(x, l), toF64(y, l));
        break;
      case BinaryOp::Lt:
        v = cmp(arith::CmpFPredicate::OLT);
        break;
      case BinaryOp::Le:
        v = cmp(arith::CmpFPredicate::OLE);
        break;
      case BinaryOp::Gt:
        v = cmp(arith::CmpFPredicate::OGT);
        break;
      case BinaryOp::Ge:
        v = cmp(arith::CmpFPredicate::OGE);
        break;
      case BinaryOp::Eq:
        v = cmp(arith::CmpFPredicate::OEQ);
        break;
      case BinaryOp::Ne:
        v = cmp(arith::CmpFPredicate::UNE);
        break;
      case BinaryOp::And:
        v = b.create<arith::AndIOp>(l, toI1(x, l), toI1(y, l));
        break;
      case BinaryOp::Or:
        v = b.create<arith::OrIOp>(l, toI1(x, l), toI1(y, l));
        break;
      }
      break;
    }
    case ExprKind::Ternary:
      v = b.create<arith::SelectOp>(l, toI1(op(0), l), toF64(op(1), l),
                                    toF64(op(2), l));
      break;
    case ExprKind::Call: {
      SmallVector<Value> args;
      for (unsigned i = 0; i < e->operands.size(); ++i)
        args.push_back(toF64(op(i), l));
      v = emitCall(e, args, l);
      break;
    }
    }
    memo[e] = v;
  });
  return memo.lookup(root);
}

Value Generator::emitVar(const Expr *e, llvm::StringMap<Value> &values,
                         bool initRegion) {
  Location l = loc(e->loc);
  auto get = [&](StringRef name) -> Value {
    auto it = gets.find(name);
    if (it != gets.end())
      return it->second;
    Value v = b.create<GetOp>(nameLoc(name, e->loc), b.getF64Type(),
                              FlatSymbolRefAttr::get(&ctx, name));
    gets[name] = v;
    return v;
  };
  const Variable *v = model.lookup(e->name);
  if (!v) {
    emitError(l) << "internal error: unknown variable '" << e->name << "'";
    hadError = true;
    return constant(0, l);
  }
  switch (v->role) {
  case VarRole::Parameter:
  case VarRole::Flag:
    return get(e->name);
  case VarRole::Constant:
    return constant(*v->value, nameLoc(e->name, v->defLoc));
  case VarRole::Builtin:
    if (initRegion)
      return constant(0.0, l); // t = 0 at initialisation
    if (e->name == "dt")
      return b.create<TimeStepOp>(l, b.getF64Type());
    return b.create<TimeOp>(l, b.getF64Type());
  default:
    break;
  }
  if (!initRegion && (e->incoming || v->role == VarRole::State))
    return get(e->name);
  if (!initRegion && v->role == VarRole::External) {
    if (const External *ext = model.lookupExternal(e->name);
        ext && ext->access == AccessKind::Read)
      return get(e->name);
  }
  auto it = values.find(e->name);
  if (it == values.end()) {
    emitError(l) << "internal error: '" << e->name
                 << "' used before it is computed";
    hadError = true;
    return constant(0, l);
  }
  return it->second;
}

void Generator::emitDefinition(ParamOp op, const Parameter &p) {
  op.getDefinition().push_back(new Block());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&op.getDefinition().front());
  gets.clear();
  llvm::StringMap<Value> values;
  llvm::DenseMap<const Expr *, Value> memo;
  std::function<Value(const Expr *)> resolve = [&](const Expr *e) -> Value {
    const Variable *v = model.lookup(e->name);
    bool computed =
        v && v->def && v->paramDependent &&
        (v->role == VarRole::Algebraic || v->role == VarRole::InitialValue);
    if (!computed)
      return emitVar(e, values, /*initRegion=*/true);
    if (Value known = values.lookup(e->name))
      return known;
    Value val = toF64(emit(v->def.get(), memo, resolve), loc(v->defLoc));
    values[e->name] = val;
    return val;
  };
  Value v = emit(p.definition.get(), memo, resolve);
  b.create<YieldOp>(nameLoc(p.name, model.lookup(p.name)->defLoc),
                    toF64(v, loc(p.definition->loc)));
}

OwningOpRef<ModuleOp> Generator::run() {
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&ctx));
  b.setInsertionPointToEnd(module->getBody());
  llvm::SMLoc start;
  if (sm.getNumBuffers())
    start = llvm::SMLoc::getFromPointer(
        sm.getMemoryBuffer(sm.getMainFileID())->getBufferStart());
  auto modelOp =
      b.create<ModelOp>(loc(start), b.getStringAttr(model.name), StringAttr());
  if (sm.getNumBuffers())
    modelOp.setSourceAttr(b.getStringAttr(
        sm.getMemoryBuffer(sm.getMainFileID())->getBufferIdentifier()));
  Block *body = new Block();
  modelOp.getBody().push_back(body);
  b.setInsertionPointToEnd(body);
  emitDeclarations();
  emitInit(loc(start));
  emitCompute(loc(start));
  if (hadError || failed(verify(*module)))
    return nullptr;
  return module;
}

/// The model's externals, parameters, flags, states and tables.
void Generator::emitDeclarations() {
  for (const External &e : model.externals) {
    const Variable *v = model.lookup(e.name);
    b.create<ExternalOp>(
        nameLoc(e.name, v->loc), b.getStringAttr(e.name),
        b.getStringAttr(e.extName),
        AccessAttr::get(&ctx, toDialect(e.access)),
        e.units ? b.getStringAttr(*e.units) : StringAttr(), unit(e.nodal),
        unit(e.trace));
  }
  for (const Parameter &p : model.params) {
    const Variable *v = model.lookup(p.name);
    StringAttr formula;
    if (p.definition)
      formula = b.getStringAttr(formatExpr(p.definition.get()));
    auto op =
        b.create<ParamOp>(nameLoc(p.name, v->defLoc), b.getStringAttr(p.name),
                          b.getF64FloatAttr(p.value),
                          p.units ? b.getStringAttr(*p.units) : StringAttr(),
                          unit(p.nodal), unit(p.trace), formula);
    if (p.definition)
      emitDefinition(op, p);
  }
  for (const Flag &f : model.flags) {
    const Variable *v = model.lookup(f.name);
    SmallVector<StringRef> names;
    SmallVector<double> values;
    for (auto &[n, val] : f.cases) {
      names.push_back(n);
      values.push_back(val);
    }
    b.create<FlagOp>(nameLoc(f.name, v->defLoc), b.getStringAttr(f.name),
                     b.getF64FloatAttr(f.value), b.getStrArrayAttr(names),
                     b.getDenseF64ArrayAttr(values));
  }
  for (const State &s : model.states) {
    b.create<StateOp>(
        nameLoc(s.name, s.loc), b.getStringAttr(s.name),
        StateKindAttr::get(&ctx, static_cast<::easyml::StateKind>(s.kind)),
        MethodAttr::get(&ctx, toDialect(s.method)),
        s.lb ? b.getF64FloatAttr(*s.lb) : FloatAttr(),
        s.ub ? b.getF64FloatAttr(*s.ub) : FloatAttr(),
        s.units ? b.getStringAttr(*s.units) : StringAttr(),
        s.group >= 0 ? b.getI32IntegerAttr(s.group) : IntegerAttr(),
        unit(s.trace), unit(s.init.empty()));
  }
  for (const Table &t : model.tables)
    b.create<TableOp>(loc(t.loc), b.getStringAttr(t.variable),
                      b.getF64FloatAttr(t.lo), b.getF64FloatAttr(t.hi),
                      b.getF64FloatAttr(t.step),
                      /*names=*/ArrayAttr());
}

/// easyml.init: the initial values of the states and of the externals
/// that have one, from parameters and flags.
void Generator::emitInit(Location l) {
  auto init = b.create<InitOp>(l);
  init.getBody().push_back(new Block());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&init.getBody().front());
  gets.clear();
  llvm::StringMap<Value> values;
  llvm::DenseMap<const Expr *, Value> memo;
  auto resolve = [&](const Expr *e) { return emitVar(e, values, true); };
  for (const std::string &n : model.initOrder) {
    ExprRef def = model.initDefinition(n);
    if (!def)
      continue;
    Value v = emit(def.get(), memo, resolve);
    values[n] = toF64(v, loc(def->loc));
  }
  for (const State &s : model.states)
    if (Value v = values.lookup(s.name))
      b.create<InitValueOp>(nameLoc(s.name, s.loc),
                            FlatSymbolRefAttr::get(&ctx, s.name), v);
  for (const External &e : model.externals)
    if (!e.init.empty())
      if (Value v = values.lookup(e.name))
        b.create<InitValueOp>(nameLoc(e.name, model.lookup(e.init)->defLoc),
                              FlatSymbolRefAttr::get(&ctx, e.name), v);
}

/// easyml.compute: one step of one cell.
void Generator::emitCompute(Location l) {
  auto compute = b.create<ComputeOp>(l);
  compute.getBody().push_back(new Block());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&compute.getBody().front());
  gets.clear();
  llvm::StringMap<Value> values;
  llvm::DenseMap<const Expr *, Value> memo;
  auto resolve = [&](const Expr *e) { return emitVar(e, values, false); };
  for (const std::string &n : model.computeOrder) {
    const Variable *v = model.lookup(n);
    Value val = emit(v->def.get(), memo, resolve);
    if (Operation *def = val.getDefiningOp();
        def && !isa<GetOp>(def) && isa<FileLineColLoc>(def->getLoc()))
      def->setLoc(nameLoc(n, v->defLoc));
    values[n] = toF64(val, loc(v->defLoc));
  }
  for (const External &e : model.externals)
    if (e.access != AccessKind::Read)
      b.create<OutputOp>(nameLoc(e.name, model.lookup(e.name)->defLoc),
                         FlatSymbolRefAttr::get(&ctx, e.name),
                         valueOf(e.name, values));
  for (const State &s : model.states)
    emitUpdate(s, values, memo, resolve);
  for (const std::string &t : model.tracedValues)
    b.create<TraceOp>(nameLoc(t, model.lookup(t)->defLoc), b.getStringAttr(t),
                      toF64(valueOf(t, values), loc({})));
}

/// The value of `n` in the step: computed, a constant, or a parameter's or
/// flag's read.
Value Generator::valueOf(const std::string &n,
                         const llvm::StringMap<Value> &values) {
  if (Value v = values.lookup(n))
    return v;
  const Variable *var = model.lookup(n);
  if (var && var->value)
    return constant(*var->value, nameLoc(n, var->defLoc));
  if (var && (var->role == VarRole::Parameter || var->role == VarRole::Flag))
    return b.create<GetOp>(nameLoc(n, var->loc), b.getF64Type(),
                           FlatSymbolRefAttr::get(&ctx, n));
  emitError(UnknownLoc::get(&ctx))
      << "internal error: no value for '" << n << "'";
  hadError = true;
  return constant(0, UnknownLoc::get(&ctx));
}

/// The update of state `s` from the step's values.
void Generator::emitUpdate(const State &s, const llvm::StringMap<Value> &values,
                           llvm::DenseMap<const Expr *, Value> &memo,
                           const std::function<Value(const Expr *)> &resolve) {
  Location l = nameLoc(s.name, s.loc);
  auto sym = FlatSymbolRefAttr::get(&ctx, s.name);
  switch (s.kind) {
  case StateForm::Diff:
    b.create<DiffOp>(l, sym, valueOf(s.rate, values));
    break;
  case StateForm::InfTau:
    b.create<GateInfTauOp>(l, sym, valueOf(s.inf, values),
                           valueOf(s.tau, values));
    break;
  case StateForm::AlphaBeta:
    b.create<GateAlphaBetaOp>(l, sym, valueOf(s.alpha, values),
                              valueOf(s.beta, values));
    break;
  case StateForm::Store: {
    Value next = emit(model.lookup(s.name)->def.get(), memo, resolve);
    b.create<NextOp>(l, sym, toF64(next, l));
    break;
  }
  }
}

OwningOpRef<ModuleOp> easyml::mlirGen(MLIRContext &context, const Model &model,
                                      llvm::SourceMgr &sourceMgr) {
  context.loadDialect<EasyMLDialect, arith::ArithDialect, math::MathDialect>();
  return Generator(context, model, sourceMgr).run();
}
