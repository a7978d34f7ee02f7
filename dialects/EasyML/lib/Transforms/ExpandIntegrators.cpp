//===- ExpandIntegrators.cpp - integration methods as arithmetic ----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/Transforms/Passes.h"
#include "easyml/Dialect/EasyML/Transforms/Utils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace easyml {
#define GEN_PASS_DEF_EXPANDINTEGRATORS
#include "easyml/Dialect/EasyML/Transforms/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {

/// One state with its old value and the operands of its update.
struct StateInfo {
  StateOp decl;
  Operation *update = nullptr; // diff, gate or next op.
  Value old;                   // The value read at the start of the step.
};

class Expander {
public:
  Expander(ModelOp model, ComputeOp compute, const ExpandIntegratorsOptions &o)
      : model(model), block(compute.getBody().front()), cloner(block),
        b(model.getContext()), loc(compute.getLoc()), z{b, loc}, opts(o) {}

  LogicalResult run();

private:
  LogicalResult collect();
  /// The operands of `s`'s update, re-evaluated at the given state values
  /// and time (all old values and `t` when the maps are empty).
  SmallVector<Value> operandsAt(ArrayRef<StateInfo *> states,
                                const llvm::DenseMap<Value, Value> &overrides);
  /// dX/dt of each state from its update operands and its value `x`.
  Value rate(StateInfo &s, ArrayRef<Value> operands, Value x);
  SmallVector<Value> ratesAt(ArrayRef<StateInfo *> states,
                             ArrayRef<Value> values, Value time);
  FailureOr<DenseMatrix> jacobian(ArrayRef<Value> rates, ArrayRef<Value> seeds);
  /// I - gamma * h * J.
  DenseMatrix iterationMatrix(const DenseMatrix &j, Value gammaH);

  Value rushLarsen(StateInfo &s, ArrayRef<Value> operands, Value x, Value h);
  LogicalResult expandSingle(StateInfo &s);
  LogicalResult expandRungeKutta(ArrayRef<StateInfo *> states, bool rk4);
  LogicalResult expandLinearImplicit(ArrayRef<StateInfo *> states,
                                     Method method);
  LogicalResult expandAdaptive(ArrayRef<StateInfo *> states, int group);
  // The parts of expandAdaptive: the loop-carried values, then per
  // sub-step its size, the factorised iteration matrix (new or kept), the
  // ROS2 stages and the step-size control.
  struct AdaptiveGroup;
  struct SubStep;
  AdaptiveGroup startAdaptive(ArrayRef<StateInfo *> group, int groupNumber);
  void declareFactorReuse(AdaptiveGroup &g, int groupNumber);
  void trackVmExtrema(AdaptiveGroup &g);
  void updateVmExtrema(AdaptiveGroup &g, SubStep &s, ArrayRef<Value> xn,
                       Value accept, SmallVector<Value> &yielded);
  void buildSubStepCondition(AdaptiveGroup &g, OpBuilder &bb, Location l,
                             ValueRange args);
  void buildSubStep(AdaptiveGroup &g, Location l, ValueRange args);
  void chooseSubStepSize(AdaptiveGroup &g, SubStep &s);
  Value makeGammaH(SubStep &s);
  void factorise(AdaptiveGroup &g, SubStep &s, ArrayRef<Value> rates);
  void reuseOrFactorise(AdaptiveGroup &g, SubStep &s, ValueRange args);
  void storeFactors(AdaptiveGroup &g, SubStep &s);
  std::pair<SmallVector<Value>, Value> ros2(AdaptiveGroup &g, SubStep &s);
  std::pair<SmallVector<Value>, Value> rodas3(AdaptiveGroup &g, SubStep &s);
  /// The weighted RMS norm of `est` against the tolerances at x and xn.
  Value errorNorm(SubStep &s, ArrayRef<Value> est, ArrayRef<Value> xn);
  bool useRodas3() const { return opts.cvodeMethod == "rodas3"; }
  SmallVector<Value> controlStepSize(AdaptiveGroup &g, SubStep &s,
                                     ArrayRef<Value> xn, Value err);
  /// "cvode.<what>[.<group>]", unique in the model.
  std::string hiddenName(StringRef what, int group);
  /// Declares a hidden value (0 at the start; `unit` may be empty) and
  /// reads it; an in-place one is only declared (returns null).
  Value declareHidden(StringRef name, StringRef unit, bool inPlace = false);
  /// How many values UnrolledLU::factors() gives for the group's
  /// iteration matrix.
  unsigned countFactors(ArrayRef<StateInfo *> group);

  ModelOp model;
  Block &block;
  SliceCloner cloner;
  OpBuilder b;
  Location loc;
  ZeroAwareBuilder z;
  const ExpandIntegratorsOptions &opts;
  Value dt, time;
  llvm::MapVector<StringAttr, StateInfo> states;
  llvm::DenseMap<StateInfo *, Value> next;
  /// New values of the hidden values the expansion declared.
  SmallVector<std::pair<StringAttr, Value>> hiddenNext;
};

} // namespace

LogicalResult Expander::collect() {
  for (Operation &op : model.getBody().front())
    if (auto s = dyn_cast<StateOp>(op))
      states[s.getSymNameAttr()].decl = s;

  // One read per state, one `dt` and one `t` at the start of the block, so
  // re-evaluation and differentiation have a single value to replace.
  b.setInsertionPointToStart(&block);
  // In order of first appearance: the reads are moved to the block's start
  // in this order, which must not depend on where attributes live.
  llvm::MapVector<StringAttr, Value> firstGet;
  SmallVector<Operation *> toErase;
  for (Operation &op : block) {
    if (auto get = dyn_cast<GetOp>(op)) {
      StringAttr name = get.getVarAttr().getAttr();
      auto [it, inserted] = firstGet.try_emplace(name, get.getResult());
      if (!inserted) {
        get.getResult().replaceAllUsesWith(it->second);
        toErase.push_back(get);
      }
    } else if (isa<TimeStepOp, TimeOp>(op)) {
      Value &slot = isa<TimeStepOp>(op) ? dt : time;
      if (slot) {
        op.getResult(0).replaceAllUsesWith(slot);
        toErase.push_back(&op);
      } else {
        slot = op.getResult(0);
      }
    }
  }
  for (Operation *op : toErase)
    op->erase();
  for (auto &[name, value] : firstGet)
    if (Operation *def = value.getDefiningOp())
      def->moveBefore(&block, block.begin());
  if (!dt)
    dt = b.create<TimeStepOp>(loc, b.getF64Type());
  else
    dt.getDefiningOp()->moveBefore(&block, block.begin());
  if (!time)
    time = b.create<TimeOp>(loc, b.getF64Type());
  else
    time.getDefiningOp()->moveBefore(&block, block.begin());

  for (auto &[name, info] : states) {
    Value v = firstGet.lookup(name);
    if (!v) {
      b.setInsertionPointToStart(&block);
      v = b.create<GetOp>(loc, b.getF64Type(), FlatSymbolRefAttr::get(name));
    }
    info.old = v;
  }
  for (Operation &op : block) {
    if (!isa<DiffOp, GateInfTauOp, GateAlphaBetaOp, NextOp>(op))
      continue;
    auto name = op.getAttrOfType<FlatSymbolRefAttr>("state").getAttr();
    auto it = states.find(name);
    if (it == states.end())
      return op.emitOpError("updates unknown state ") << name;
    it->second.update = &op;
  }
  for (auto &[name, info] : states)
    if (!info.update)
      return info.decl.emitOpError("has no update");
  return success();
}

SmallVector<Value>
Expander::operandsAt(ArrayRef<StateInfo *> group,
                     const llvm::DenseMap<Value, Value> &overrides) {
  SmallVector<Value> outputs;
  for (StateInfo *s : group)
    llvm::append_range(outputs, s->update->getOperands());
  if (overrides.empty())
    return outputs;
  return cloner.clone(b, outputs, overrides);
}

Value Expander::rate(StateInfo &s, ArrayRef<Value> operands, Value x) {
  if (isa<DiffOp>(s.update))
    return operands[0];
  if (isa<GateInfTauOp>(s.update))
    return z.div(z.sub(operands[0], x), operands[1]);
  // alpha * (1 - X) - beta * X
  return z.sub(z.mul(operands[0], z.sub(z.cst(1.0), x)), z.mul(operands[1], x));
}

SmallVector<Value> Expander::ratesAt(ArrayRef<StateInfo *> group,
                                     ArrayRef<Value> values, Value t) {
  llvm::DenseMap<Value, Value> overrides;
  for (auto [s, v] : llvm::zip(group, values))
    if (v != s->old)
      overrides[s->old] = v;
  if (t != time)
    overrides[time] = t;
  SmallVector<Value> operands = operandsAt(group, overrides);
  SmallVector<Value> rates;
  unsigned pos = 0;
  for (auto [s, v] : llvm::zip(group, values)) {
    unsigned n = s->update->getNumOperands();
    rates.push_back(
        z.value(rate(*s, ArrayRef<Value>(operands).slice(pos, n), v)));
    pos += n;
  }
  return rates;
}

/// `v` where finite, else 0. A derivative can overflow where the function
/// does not (d/dx of x/(1+exp(k x)) once exp overflows); the integrators
/// then use a partial Jacobian, which ROS2 and the linearised methods
/// tolerate, instead of spreading NaN.
static Value finiteOrZero(ZeroAwareBuilder &z, Value v) {
  if (!v)
    return v;
  // A derivative of constants alone is folded where it is built: an
  // infinite or NaN one is dropped here, as the select would at run time.
  FloatAttr constant;
  if (matchPattern(v, m_Constant(&constant)))
    return std::isfinite(constant.getValueAsDouble()) ? v : Value();
  if (matchPattern(v, m_Constant()))
    return v;
  OpBuilder &b = z.b;
  Value mag = b.create<math::AbsFOp>(z.loc, v);
  Value finite =
      b.create<arith::CmpFOp>(z.loc, arith::CmpFPredicate::OLT, mag,
                              z.cst(std::numeric_limits<double>::infinity()));
  return b.create<arith::SelectOp>(z.loc, finite, v, z.cst(0.0));
}

FailureOr<DenseMatrix> Expander::jacobian(ArrayRef<Value> rates,
                                          ArrayRef<Value> seeds) {
  auto tangents = differentiate(b, loc, rates, seeds);
  if (failed(tangents))
    return failure();
  DenseMatrix j;
  for (Tangent &row : *tangents) {
    for (Value &entry : row)
      entry = finiteOrZero(z, entry);
    j.push_back(row);
  }
  return j;
}

DenseMatrix Expander::iterationMatrix(const DenseMatrix &j, Value gammaH) {
  DenseMatrix m(j.size());
  for (unsigned r = 0; r < j.size(); ++r) {
    m[r].resize(j.size());
    for (unsigned c = 0; c < j.size(); ++c) {
      Value entry = z.neg(z.mul(gammaH, j[r][c]));
      m[r][c] = r == c ? z.add(z.cst(1.0), entry) : entry;
    }
  }
  return m;
}

/// The Rush-Larsen step of length `h` for a gate: A + B*X with
/// B = exp(-h/tau), A = -inf*expm1(-h/tau) (alpha/beta: tau = 1/(a+b),
/// inf = a/(a+b)).
Value Expander::rushLarsen(StateInfo &s, ArrayRef<Value> operands, Value x,
                           Value h) {
  Value e, inf;
  if (isa<GateInfTauOp>(s.update)) {
    inf = operands[0];
    e = z.neg(z.div(h, operands[1]));
  } else {
    Value k = z.add(operands[0], operands[1]);
    inf = z.div(operands[0], k);
    e = z.neg(z.mul(h, k));
  }
  Value bcoef = b.create<math::ExpOp>(loc, e);
  Value acoef = z.neg(z.mul(inf, b.create<math::ExpM1Op>(loc, e)));
  // openCARP's names for the coefficients (table columns show them).
  std::string name = s.decl.getSymName().str() + "_rush_larsen_";
  auto named = [&](Value v, const std::string &n) {
    if (Operation *def = v ? v.getDefiningOp() : nullptr)
      if (!def->hasTrait<OpTrait::ConstantLike>())
        def->setLoc(NameLoc::get(b.getStringAttr(n), def->getLoc()));
  };
  named(bcoef, name + "B");
  named(acoef, name + "A");
  return z.value(z.add(acoef, z.mul(bcoef, x)));
}

/// X + f/J * expm1(J*h), forward Euler where J == 0.
static Value linearisedStep(ZeroAwareBuilder &z, Location loc, Value x, Value f,
                            Value j, Value h) {
  OpBuilder &b = z.b;
  if (!j)
    return z.value(z.add(x, z.mul(h, f)));
  Value em1 = b.create<math::ExpM1Op>(loc, z.mul(j, h));
  Value exact = z.add(x, z.mul(z.div(f, j), em1));
  Value euler = z.add(x, z.mul(h, f));
  Value isZero =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, j, z.cst(0.0));
  return b.create<arith::SelectOp>(loc, isZero, z.value(euler), z.value(exact));
}

LogicalResult Expander::expandSingle(StateInfo &s) {
  Method method = s.decl.getMethod();
  StateInfo *selfPtr = &s;
  ArrayRef<StateInfo *> self(selfPtr);
  bool gate = isa<GateInfTauOp, GateAlphaBetaOp>(s.update);
  if (isa<NextOp>(s.update)) {
    next[&s] = s.update->getOperand(0);
    return success();
  }
  SmallVector<Value> operands =
      operandsAt(self, llvm::DenseMap<Value, Value>());
  switch (method) {
  case Method::fe:
  case Method::none:
    next[&s] = z.value(z.add(s.old, z.mul(dt, rate(s, operands, s.old))));
    return success();
  case Method::rush_larsen:
    if (gate) {
      next[&s] = rushLarsen(s, operands, s.old, dt);
      return success();
    }
    [[fallthrough]];
  case Method::sundnes: {
    Value half = z.mul(dt, z.cst(0.5));
    Value tHalf = z.add(time, half);
    if (gate) {
      Value xStar = rushLarsen(s, operands, s.old, half);
      llvm::DenseMap<Value, Value> overrides{{s.old, xStar}, {time, tHalf}};
      SmallVector<Value> mid = operandsAt(self, overrides);
      next[&s] = rushLarsen(s, mid, s.old, dt);
      return success();
    }
    Value f = rate(s, operands, s.old);
    auto j = jacobian({z.value(f)}, {s.old});
    if (failed(j))
      return failure();
    Value jx = (*j)[0][0];
    if (method == Method::rush_larsen) {
      next[&s] = linearisedStep(z, loc, s.old, f, jx, dt);
      return success();
    }
    // Second order (Sundnes et al. 2009): linearise at the half step.
    Value xStar = linearisedStep(z, loc, s.old, f, jx, half);
    SmallVector<Value> fStar = ratesAt(self, {xStar}, tHalf);
    auto jStar = jacobian(fStar, {xStar});
    if (failed(jStar))
      return failure();
    Value js = (*jStar)[0][0];
    // f(X) ~ f* + J*(X - X*) integrated exactly from X over dt.
    Value fAtX = z.add(fStar[0], z.mul(js, z.sub(s.old, xStar)));
    next[&s] = linearisedStep(z, loc, s.old, z.value(fAtX), js, dt);
    return success();
  }
  default:
    return s.decl.emitOpError("has a group method but no group");
  }
}

LogicalResult Expander::expandRungeKutta(ArrayRef<StateInfo *> group,
                                         bool rk4) {
  SmallVector<Value> x0;
  for (StateInfo *s : group)
    x0.push_back(s->old);
  auto stage = [&](ArrayRef<Value> k, Value factor) {
    SmallVector<Value> x;
    for (auto [xi, ki] : llvm::zip(x0, k))
      x.push_back(z.value(z.add(xi, z.mul(factor, ki))));
    return x;
  };
  Value half = z.mul(dt, z.cst(0.5));
  Value tHalf = z.add(time, half);
  SmallVector<Value> k1 = ratesAt(group, x0, time);
  SmallVector<Value> k2 = ratesAt(group, stage(k1, half), tHalf);
  if (!rk4) {
    for (auto [s, k] : llvm::zip(group, k2))
      next[s] = z.value(z.add(s->old, z.mul(dt, k)));
    return success();
  }
  SmallVector<Value> k3 = ratesAt(group, stage(k2, half), tHalf);
  SmallVector<Value> k4 = ratesAt(group, stage(k3, dt), z.add(time, dt));
  Value sixth = z.div(dt, z.cst(6.0));
  for (unsigned i = 0; i < group.size(); ++i) {
    Value sum = z.add(z.add(k1[i], z.mul(z.cst(2.0), k2[i])),
                      z.add(z.mul(z.cst(2.0), k3[i]), k4[i]));
    next[group[i]] = z.value(z.add(group[i]->old, z.mul(sixth, sum)));
  }
  return success();
}

static const double kRos2Gamma = 1.0 + 1.0 / std::sqrt(2.0);
/// RODAS3 (Sandu et al. 1997, Atmos. Environ. 31:3459) in the form
/// (I - gamma*h*J) K_i = gamma*h*f(X + sum_j a_ij K_j)
///                       + gamma * sum_j c_ij K_j,
/// X' = X + sum_i m_i K_i, error estimate sum_i e_i K_i.
static const double kRodas3Gamma = 0.5;
static const double kRodas3A[4][3] = {
    {0, 0, 0}, {0, 0, 0}, {2, 0, 0}, {2, 0, 1}};
static const double kRodas3C[4][3] = {
    {0, 0, 0}, {4, 0, 0}, {1, -1, 0}, {1, -1, -8.0 / 3.0}};
static const double kRodas3M[4] = {2, 0, 1, 1};
/// Smallest pivot magnitude accepted when cvode factorises without
/// pivoting.
static const double kMinPivot = 1e-6;

LogicalResult Expander::expandLinearImplicit(ArrayRef<StateInfo *> group,
                                             Method method) {
  SmallVector<Value> x0;
  for (StateInfo *s : group)
    x0.push_back(s->old);
  SmallVector<Value> f = ratesAt(group, x0, time);
  auto j = jacobian(f, x0);
  if (failed(j))
    return failure();
  if (method == Method::markov_be) {
    // (I - dt J) d = dt f(X): backward Euler with the rates frozen at the
    // start of the step.
    UnrolledLU lu(b, loc, iterationMatrix(*j, dt), /*pivoting=*/false);
    SmallVector<Value> rhs;
    for (Value fi : f)
      rhs.push_back(z.value(z.mul(dt, fi)));
    SmallVector<Value> d = lu.solve(rhs);
    for (unsigned i = 0; i < group.size(); ++i)
      next[group[i]] = z.value(z.add(x0[i], d[i]));
    return success();
  }
  // ROS2 (Verwer et al. 1999), one step of length dt.
  UnrolledLU lu(b, loc, iterationMatrix(*j, z.mul(z.cst(kRos2Gamma), dt)));
  SmallVector<Value> k1 = lu.solve(f);
  SmallVector<Value> x2;
  for (unsigned i = 0; i < group.size(); ++i)
    x2.push_back(z.value(z.add(x0[i], z.mul(dt, k1[i]))));
  SmallVector<Value> f2 = ratesAt(group, x2, z.add(time, dt));
  SmallVector<Value> rhs2;
  for (unsigned i = 0; i < group.size(); ++i)
    rhs2.push_back(z.value(z.sub(f2[i], z.mul(z.cst(2.0), k1[i]))));
  SmallVector<Value> k2 = lu.solve(rhs2);
  for (unsigned i = 0; i < group.size(); ++i)
    next[group[i]] =
        z.value(z.add(x0[i], z.add(z.mul(z.mul(z.cst(1.5), dt), k1[i]),
                                   z.mul(z.mul(z.cst(0.5), dt), k2[i]))));
  return success();
}

/// Largest relative change of gamma*h for which a cvode group reuses the
/// factors of its iteration matrix (CVODE's bound for a new setup).
static const double kReuseGammaChange = 0.3;

std::string Expander::hiddenName(StringRef what, int groupNumber) {
  std::string name = ("cvode." + what).str();
  if (groupNumber >= 0)
    name += "." + std::to_string(groupNumber);
  // Unique against the model's symbols (a '.' cannot occur in EasyML
  // names, so this is only a guard).
  while (SymbolTable::lookupSymbolIn(model, name))
    name += "_";
  return name;
}

Value Expander::declareHidden(StringRef name, StringRef unit, bool inPlace) {
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(model.getInitOp());
    b.create<HiddenOp>(loc, b.getStringAttr(name), b.getF64FloatAttr(0.0),
                       unit.empty() ? StringAttr() : b.getStringAttr(unit),
                       inPlace ? b.getUnitAttr() : UnitAttr());
  }
  if (inPlace)
    return Value();
  return b.create<GetOp>(loc, b.getF64Type(),
                         FlatSymbolRefAttr::get(b.getContext(), name));
}

unsigned Expander::countFactors(ArrayRef<StateInfo *> group) {
  // Built once where nothing uses it, counted, and erased: the structure of
  // the factors depends only on which Jacobian entries are non-zero.
  auto probe = b.create<scf::ExecuteRegionOp>(loc, TypeRange{});
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&probe.getRegion());
  // Copies of the states made in the probe, so the right-hand sides are
  // cloned there and differentiation (which writes the tangents next to
  // the values it differentiates) stays inside it.
  SmallVector<Value> x0;
  for (StateInfo *s : group)
    x0.push_back(b.create<arith::AddFOp>(loc, s->old, z.cst(0.0)));
  SmallVector<Value> f = ratesAt(group, x0, time);
  auto j = jacobian(f, x0);
  unsigned count = 0;
  if (succeeded(j))
    count = UnrolledLU(b, loc, iterationMatrix(*j, dt), /*pivoting=*/false)
                .factors()
                .size();
  probe.erase();
  return count;
}

/// What the parts of one cvode group's expansion share: the values its
/// sub-step loop carries and how it reuses the factors of its iteration
/// matrix.
struct Expander::AdaptiveGroup {
  ArrayRef<StateInfo *> states;
  unsigned n = 0;
  /// The hidden value holding the step size the group last proposed.
  std::string hName;
  /// The loop's initial values and types: the time into the step, the
  /// step size, the states, the sub-step count, then (with reuse) the
  /// gamma*h of the kept factors and their age.
  SmallVector<Value> init;
  SmallVector<Type> types;
  unsigned countIndex = 0, reuseIndex = 0;
  /// A whole-cell group: Vm's index among its states, and where the loop
  /// carries Vm's extremes within the step (peak, its time, largest
  /// dVm/dt, its time; times from the step's start); -1 and 0 otherwise.
  int vm = -1;
  unsigned extremaIndex = 0;
  /// Where the loop carries the sub-steps it accepted above the tolerance
  /// (f64).
  unsigned forcedIndex = 0;
  /// Whether the factorised iteration matrix is kept between sub-steps.
  bool reuse = false;
  unsigned numFactors = 0;
  SmallVector<std::string> factorNames;
  std::string ghName, ageName;
  Value maxSub, maxAge, minRemaining, minStep;
  LogicalResult status = success();
  /// What the group's factorisation costs (easyml.stiff_cost).
  DictionaryAttr cost;
};

/// The values one sub-step's parts share.
struct Expander::SubStep {
  Location loc;
  Value tau, h, count;
  SmallVector<Value> x;
  Value one;
  /// The sub-step's length and start time.
  Value hh, t0;
  /// gamma*h, made when first needed.
  Value gammaH;
  /// The rates at the start of the sub-step.
  SmallVector<Value> f;
  std::optional<UnrolledLU> lu;
  /// Whether the factorisation's pivots are usable (null: not tested).
  Value pivotOk;
  /// With reuse: the gamma*h of the factors used, their next age.
  Value ghUsed, ageNext;
  /// A whole-cell group: Vm's extremes so far in the step (AdaptiveGroup).
  SmallVector<Value> extrema;
  /// Sub-steps accepted above the tolerance so far in the step.
  Value forced;
};

LogicalResult Expander::expandAdaptive(ArrayRef<StateInfo *> group,
                                       int groupNumber) {
  AdaptiveGroup g = startAdaptive(group, groupNumber);
  auto whileOp = b.create<scf::WhileOp>(
      loc, g.types, g.init,
      [&](OpBuilder &bb, Location l, ValueRange args) {
        buildSubStepCondition(g, bb, l, args);
      },
      [&](OpBuilder &bb, Location l, ValueRange args) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(bb.getInsertionBlock());
        buildSubStep(g, l, args);
      });
  if (failed(g.status))
    return failure();
  if (g.cost)
    whileOp->setAttr("easyml.stiff_cost", g.cost);
  for (unsigned i = 0; i < g.n; ++i)
    next[group[i]] = whileOp.getResult(2 + i);
  hiddenNext.push_back({b.getStringAttr(g.hName), whileOp.getResult(1)});
  // A whole-cell model counts its sub-steps (tried, accepted or not) per
  // cell: what an adaptive run costs, against the steps of a fixed dt.
  if (model.getWholeCellVm()) {
    std::string name = hiddenName("steps", groupNumber);
    Value before = declareHidden(name, "");
    Value taken = b.create<arith::SIToFPOp>(loc, b.getF64Type(),
                                            whileOp.getResult(g.countIndex));
    hiddenNext.push_back({b.getStringAttr(name), z.value(z.add(before, taken))});
  }
  // The sub-steps accepted above the tolerance in the step: the kernels
  // count the cells where there were any (a warning counter).
  {
    std::string name = hiddenName("forced", groupNumber);
    declareHidden(name, "");
    hiddenNext.push_back(
        {b.getStringAttr(name), whileOp.getResult(g.forcedIndex)});
  }
  if (g.extremaIndex) {
    const char *names[] = {"vm_peak", "t_vm_peak", "dvdt_max", "t_dvdt_max"};
    std::optional<StringRef> vmUnits = group[g.vm]->decl.getUnits();
    std::string v = vmUnits ? vmUnits->str() : "";
    std::string units[] = {v, "ms", v.empty() ? "" : v + "/ms", "ms"};
    for (unsigned k = 0; k < 4; ++k) {
      std::string name = hiddenName(names[k], groupNumber);
      declareHidden(name, units[k]);
      hiddenNext.push_back(
          {b.getStringAttr(name), whileOp.getResult(g.extremaIndex + k)});
    }
  }
  if (g.reuse) {
    hiddenNext.push_back(
        {b.getStringAttr(g.ghName), whileOp.getResult(g.reuseIndex)});
    hiddenNext.push_back(
        {b.getStringAttr(g.ageName), whileOp.getResult(g.reuseIndex + 1)});
  }
  return success();
}

Expander::AdaptiveGroup Expander::startAdaptive(ArrayRef<StateInfo *> group,
                                                int groupNumber) {
  AdaptiveGroup g;
  g.states = group;
  g.n = group.size();
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  // The step size this group last proposed, per cell: a hidden value, so a
  // time step starts where the last one ended instead of at dt (0 at the
  // start: dt). Proposals are capped at dt, which is all a step can use.
  g.hName = hiddenName("h", groupNumber);
  Value hStored = declareHidden(g.hName, "ms");
  Value positive = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT,
                                           hStored, z.cst(0.0));
  Value h0 = b.create<arith::SelectOp>(
      loc, positive, b.create<arith::MinNumFOp>(loc, hStored, dt), dt);
  g.init = {z.cst(0.0), h0};
  g.types = {f64, f64};
  for (StateInfo *s : group) {
    g.init.push_back(s->old);
    g.types.push_back(f64);
  }
  g.init.push_back(b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(0)));
  g.types.push_back(i64);
  g.countIndex = 2 + g.n;
  g.reuseIndex = g.types.size();
  declareFactorReuse(g, groupNumber);
  trackVmExtrema(g);
  g.forcedIndex = g.types.size();
  g.init.push_back(z.cst(0.0));
  g.types.push_back(f64);
  g.maxSub = b.create<arith::ConstantOp>(
      loc, b.getI64IntegerAttr(opts.cvodeMaxSubsteps));
  // A whole-cell model may cross several of the simulator's steps as one
  // interval: the budget is per step spanned.
  if (model.getWholeCellVm()) {
    Value spanned = b.create<StepsSpannedOp>(loc, f64);
    g.maxSub = b.create<arith::FPToSIOp>(
        loc, i64,
        z.value(
            z.mul(z.cst(static_cast<double>(opts.cvodeMaxSubsteps)), spanned)));
  }
  g.maxAge = z.cst(static_cast<double>(opts.cvodeJacobianAge));
  g.minRemaining = z.mul(dt, z.cst(1e-12));
  g.minStep = z.mul(dt, z.cst(1e-9));
  return g;
}

/// Reuse of the factorised iteration matrix: each cell keeps the factors
/// of I - gamma*h*J, the gamma*h they were made for and their age in time
/// steps. A sub-step reuses them while its gamma*h is within 30% of theirs
/// (ROS2 keeps its order with any matrix: a W-method), the sub-step before
/// it passed its error test and they are at most cvode-jacobian-age steps
/// old; otherwise it evaluates J and factorises anew. The factors are
/// in-place hidden values: stored by the branch that makes them and loaded
/// where the solves use them, so nothing holds them between sub-steps or
/// steps.
void Expander::declareFactorReuse(AdaptiveGroup &g, int groupNumber) {
  g.reuse = opts.cvodeJacobianAge > 0 && !opts.cvodePivoting && !useRodas3();
  if (opts.cvodeJacobianAge > 0 && opts.cvodePivoting)
    emitWarning(g.states.front()->decl.getLoc(),
                "easyml-expand-integrators: cvode-jacobian-age is ignored "
                "with cvode-pivoting (pivoted factors are not kept)");
  else if (opts.cvodeJacobianAge > 0 && useRodas3())
    emitWarning(g.states.front()->decl.getLoc(),
                "easyml-expand-integrators: cvode-jacobian-age is ignored "
                "with cvode-method=rodas3 (not a W-method: it needs the "
                "Jacobian of each sub-step)");
  if (g.reuse) {
    g.numFactors = countFactors(g.states);
    g.reuse = g.numFactors > 0;
  }
  if (!g.reuse)
    return;
  Type f64 = b.getF64Type();
  std::string prefix = hiddenName("lu", groupNumber);
  for (unsigned k = 0; k < g.numFactors; ++k) {
    g.factorNames.push_back(prefix + "." + std::to_string(k));
    declareHidden(g.factorNames.back(), "", /*inPlace=*/true);
  }
  g.ghName = hiddenName("gh", groupNumber);
  g.init.push_back(declareHidden(g.ghName, "ms"));
  g.types.push_back(f64);
  g.ageName = hiddenName("age", groupNumber);
  // One more time step since the factors were made.
  g.init.push_back(z.value(z.add(declareHidden(g.ageName, ""), z.cst(1.0))));
  g.types.push_back(f64);
}

/// A whole-cell group carries Vm's extremes within the step through its
/// sub-steps: the highest Vm at an accepted sub-step's end and the largest
/// dVm/dt at a sub-step's start (the rates the sub-step evaluates there),
/// each with its time from the step's start. The biomarkers read them
/// (hidden values cvode.vm_peak, cvode.dvdt_max and their times), so a
/// step of dt longer than the upstroke still sees its peak and its rate.
void Expander::trackVmExtrema(AdaptiveGroup &g) {
  FlatSymbolRefAttr vm = model.getWholeCellVm();
  if (!vm)
    return;
  for (unsigned i = 0; i < g.n; ++i)
    if (g.states[i]->decl.getSymName() == vm.getValue())
      g.vm = static_cast<int>(i);
  if (g.vm < 0)
    return;
  g.extremaIndex = g.types.size();
  Value lowest = z.cst(-std::numeric_limits<double>::infinity());
  g.init.append({g.states[g.vm]->old, z.cst(0.0), lowest, z.cst(0.0)});
  g.types.append(4, b.getF64Type());
}

void Expander::updateVmExtrema(AdaptiveGroup &g, SubStep &s, ArrayRef<Value> xn,
                               Value accept, SmallVector<Value> &yielded) {
  Location l = s.loc;
  Value vEnd = xn[g.vm], rate = s.f[g.vm];
  Value higher = b.create<arith::AndIOp>(
      l, accept,
      b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, vEnd,
                              s.extrema[0]));
  yielded.push_back(b.create<arith::SelectOp>(l, higher, vEnd, s.extrema[0]));
  yielded.push_back(
      b.create<arith::SelectOp>(l, higher, z.add(s.tau, s.hh), s.extrema[1]));
  Value faster =
      b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, rate, s.extrema[2]);
  yielded.push_back(b.create<arith::SelectOp>(l, faster, rate, s.extrema[2]));
  yielded.push_back(b.create<arith::SelectOp>(l, faster, s.tau, s.extrema[3]));
}

/// Another sub-step while the step is not covered and the budget lasts.
void Expander::buildSubStepCondition(AdaptiveGroup &g, OpBuilder &bb,
                                     Location l, ValueRange args) {
  Value remaining = bb.create<arith::SubFOp>(l, dt, args[0]);
  Value more = bb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, remaining,
                                        g.minRemaining);
  Value budget = bb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt,
                                          args[g.countIndex], g.maxSub);
  Value cond = bb.create<arith::AndIOp>(l, more, budget);
  bb.create<scf::ConditionOp>(l, cond, args);
}

/// One ROS2 sub-step with its error estimate and step-size control, at
/// `b`'s insertion point (the loop body).
void Expander::buildSubStep(AdaptiveGroup &g, Location l, ValueRange args) {
  SubStep s{l};
  s.tau = args[0];
  s.h = args[1];
  s.count = args[g.countIndex];
  s.x.assign(args.begin() + 2, args.begin() + 2 + g.n);
  if (g.extremaIndex)
    s.extrema.assign(args.begin() + g.extremaIndex,
                     args.begin() + g.extremaIndex + 4);
  s.forced = args[g.forcedIndex];
  chooseSubStepSize(g, s);
  s.t0 = z.add(time, s.tau);
  if (!g.reuse) {
    s.f = ratesAt(g.states, s.x, s.t0);
    factorise(g, s, s.f);
  } else {
    reuseOrFactorise(g, s, args);
  }
  auto [xn, err] = useRodas3() ? rodas3(g, s) : ros2(g, s);
  SmallVector<Value> yielded = controlStepSize(g, s, xn, err);
  b.create<scf::YieldOp>(l, yielded);
}

/// The sub-step's length: what remains of the step, at most h (the last
/// sub-step of the budget covers the rest of the interval, accepted
/// whatever its error, so the step always reaches t + dt).
void Expander::chooseSubStepSize(AdaptiveGroup &g, SubStep &s) {
  Location l = s.loc;
  Value remaining = b.create<arith::SubFOp>(l, dt, s.tau);
  s.one = b.create<arith::ConstantOp>(l, b.getI64IntegerAttr(1));
  Value lastTry = b.create<arith::CmpIOp>(
      l, arith::CmpIPredicate::sge, b.create<arith::AddIOp>(l, s.count, s.one),
      g.maxSub);
  if (!g.reuse) {
    s.hh = b.create<arith::SelectOp>(
        l, lastTry, remaining, b.create<arith::MinNumFOp>(l, s.h, remaining));
    return;
  }
  // The rest of the interval in equal sub-steps of at most h, so no
  // sub-step is a sliver cut short to end the interval and gamma*h stays
  // the same from one sub-step (and time step) to the next while the
  // proposal does: what lets the factors be reused.
  Value pieces =
      b.create<math::CeilOp>(l, z.sub(z.div(remaining, s.h), z.cst(1e-9)));
  pieces = b.create<arith::MaxNumFOp>(l, pieces, z.cst(1.0));
  s.hh = b.create<arith::SelectOp>(l, lastTry, remaining,
                                   z.div(remaining, pieces));
}

Value Expander::makeGammaH(SubStep &s) {
  return z.value(z.mul(z.cst(useRodas3() ? kRodas3Gamma : kRos2Gamma), s.hh));
}

/// The Jacobian of `rates`, its factorisation and the pivot test, built at
/// the builder's insertion point.
void Expander::factorise(AdaptiveGroup &g, SubStep &s, ArrayRef<Value> rates) {
  unsigned n = g.n;
  auto j = jacobian(rates, s.x);
  if (failed(j)) {
    g.status = failure();
    j = DenseMatrix(n, SmallVector<Value>(n));
  }
  if (!s.gammaH)
    s.gammaH = makeGammaH(s);
  s.lu.emplace(b, s.loc, iterationMatrix(*j, s.gammaH), opts.cvodePivoting);
  // Checked now, so the pivots are not kept through the stages (the solves
  // use their reciprocals).
  if (!opts.cvodePivoting)
    s.pivotOk =
        b.create<arith::CmpFOp>(s.loc, arith::CmpFPredicate::OGE,
                                s.lu->smallestPivot(), z.cst(kMinPivot));
  int64_t jnz = 0;
  for (const auto &row : *j)
    for (Value v : row)
      jnz += v && !isConstant(v, 0.0);
  int64_t lunz = s.lu->nonZeros();
  g.cost = b.getDictionaryAttr(
      {b.getNamedAttr("states", b.getI64IntegerAttr(n)),
       b.getNamedAttr("jacobian_nonzeros", b.getI64IntegerAttr(jnz)),
       b.getNamedAttr("lu_nonzeros", b.getI64IntegerAttr(lunz)),
       b.getNamedAttr("live_across_stage2",
                      b.getI64IntegerAttr(lunz + (useRodas3() ? 4 : 2) * n))});
}

/// With reuse: the kept factors where they still serve, new ones otherwise.
void Expander::reuseOrFactorise(AdaptiveGroup &g, SubStep &s, ValueRange args) {
  Location l = s.loc;
  Type f64 = b.getF64Type(), i1 = b.getI1Type();
  s.gammaH = makeGammaH(s);
  Value ghKept = args[g.reuseIndex];
  Value age = args[g.reuseIndex + 1];
  // |gamma*h / kept - 1| <= 0.3; false where nothing is kept (0: at the
  // start, and after a sub-step failed its error test).
  Value change =
      b.create<math::AbsFOp>(l, z.sub(z.div(s.gammaH, ghKept), z.cst(1.0)));
  Value close = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLE, change,
                                        z.cst(kReuseGammaChange));
  Value young =
      b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLE, age, g.maxAge);
  Value trueValue = b.create<arith::ConstantOp>(l, b.getBoolAttr(true));
  Value reused = b.create<arith::AndIOp>(l, close, young);
  // The branch that makes new factors stores them; both paths then read
  // them from the cell's record, so the branches join with the rates,
  // gamma*h and the pivot test rather than with every factor.
  SmallVector<Type> joined(g.n, f64);
  joined.append({f64, i1});
  auto ifOp = b.create<scf::IfOp>(l, joined, reused, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> kept = ratesAt(g.states, s.x, s.t0);
    kept.append({ghKept, trueValue});
    b.create<scf::YieldOp>(l, kept);
    b.setInsertionPointToStart(ifOp.elseBlock());
    // The right-hand sides in each branch: differentiation writes the
    // tangents next to the values it differentiates, so here they
    // interleave with them (each intermediate value dies soon) and the
    // other branch has none.
    SmallVector<Value> results = ratesAt(g.states, s.x, s.t0);
    factorise(g, s, results);
    storeFactors(g, s);
    results.append({s.gammaH, s.pivotOk});
    b.create<scf::YieldOp>(l, results);
  }
  SmallVector<Value> factorsUsed;
  for (const std::string &name : g.factorNames)
    factorsUsed.push_back(b.create<HiddenLoadOp>(
        l, f64, FlatSymbolRefAttr::get(b.getContext(), name)));
  s.lu->setFactors(factorsUsed);
  s.f.assign(ifOp.getResults().begin(), ifOp.getResults().begin() + g.n);
  s.ghUsed = ifOp.getResult(g.n);
  s.pivotOk = ifOp.getResult(g.n + 1);
  s.ageNext = b.create<arith::SelectOp>(l, reused, age, z.cst(0.0));
}

/// Stores the new factors in the cell's record.
void Expander::storeFactors(AdaptiveGroup &g, SubStep &s) {
  SmallVector<Value> fresh = s.lu->factors();
  if (fresh.size() != g.numFactors) {
    g.status = emitError(s.loc, "easyml-expand-integrators: the factors of "
                                "cvode group changed structure (")
               << fresh.size() << " against " << g.numFactors << ")";
    fresh.resize(g.numFactors, z.cst(0.0));
  }
  for (auto [name, value] : llvm::zip(g.factorNames, fresh))
    b.create<HiddenStoreOp>(s.loc, FlatSymbolRefAttr::get(b.getContext(), name),
                            value);
}

/// The ROS2 stages from the factorisation: the new states and the error
/// of the embedded first-order estimate (X + h*k1) against them, NaN where
/// a pivot was near zero.
std::pair<SmallVector<Value>, Value> Expander::ros2(AdaptiveGroup &g,
                                                    SubStep &s) {
  unsigned n = g.n;
  Value hh = s.hh;
  SmallVector<Value> k1 = s.lu->solve(s.f);
  SmallVector<Value> x2;
  for (unsigned i = 0; i < n; ++i)
    x2.push_back(z.value(z.add(s.x[i], z.mul(hh, k1[i]))));
  SmallVector<Value> f2 = ratesAt(g.states, x2, z.add(s.t0, hh));
  SmallVector<Value> rhs2;
  for (unsigned i = 0; i < n; ++i)
    rhs2.push_back(z.value(z.sub(f2[i], z.mul(z.cst(2.0), k1[i]))));
  SmallVector<Value> k2 = s.lu->solve(rhs2);
  SmallVector<Value> xn, est;
  for (unsigned i = 0; i < n; ++i) {
    xn.push_back(
        z.value(z.add(s.x[i], z.add(z.mul(z.mul(z.cst(1.5), hh), k1[i]),
                                    z.mul(z.mul(z.cst(0.5), hh), k2[i])))));
    est.push_back(z.mul(z.mul(z.cst(0.5), hh), z.add(k1[i], k2[i])));
  }
  return {xn, errorNorm(s, est, xn)};
}

/// The RODAS3 stages from the factorisation of I - h/2*J: the new states
/// (the last stage's point plus its increment: stiffly accurate) and the
/// error of the embedded second-order solution (the last increment), NaN
/// where a pivot was near zero. Stage 2 reuses f(X) (a_2j = 0); stages 3
/// and 4 evaluate the rates at the end of the sub-step.
std::pair<SmallVector<Value>, Value> Expander::rodas3(AdaptiveGroup &g,
                                                      SubStep &s) {
  unsigned n = g.n;
  Value gh = s.gammaH ? s.gammaH : makeGammaH(s);
  Value tEnd = z.add(s.t0, s.hh);
  SmallVector<SmallVector<Value>> k;
  SmallVector<Value> f = s.f;
  for (unsigned stage = 0; stage < 4; ++stage) {
    if (stage >= 2) {
      SmallVector<Value> at;
      for (unsigned i = 0; i < n; ++i) {
        Value xi = s.x[i];
        for (unsigned j = 0; j < stage; ++j)
          if (kRodas3A[stage][j] != 0)
            xi = z.add(xi, z.mul(z.cst(kRodas3A[stage][j]), k[j][i]));
        at.push_back(z.value(xi));
      }
      f = ratesAt(g.states, at, tEnd);
    }
    SmallVector<Value> rhs;
    for (unsigned i = 0; i < n; ++i) {
      Value coupling = z.cst(0.0);
      for (unsigned j = 0; j < stage; ++j)
        coupling = z.add(coupling, z.mul(z.cst(kRodas3C[stage][j]), k[j][i]));
      rhs.push_back(z.value(
          z.add(z.mul(gh, f[i]), z.mul(z.cst(kRodas3Gamma), coupling))));
    }
    k.push_back(s.lu->solve(rhs));
  }
  SmallVector<Value> xn;
  for (unsigned i = 0; i < n; ++i) {
    Value xi = s.x[i];
    for (unsigned j = 0; j < 4; ++j)
      if (kRodas3M[j] != 0)
        xi = z.add(xi, z.mul(z.cst(kRodas3M[j]), k[j][i]));
    xn.push_back(z.value(xi));
  }
  return {xn, errorNorm(s, k[3], xn)};
}

Value Expander::errorNorm(SubStep &s, ArrayRef<Value> est, ArrayRef<Value> xn) {
  Location l = s.loc;
  Value errSum = z.cst(0.0);
  for (unsigned i = 0; i < est.size(); ++i) {
    Value mag = b.create<arith::MaxNumFOp>(l, b.create<math::AbsFOp>(l, s.x[i]),
                                           b.create<math::AbsFOp>(l, xn[i]));
    Value scale =
        z.add(z.cst(opts.cvodeAbsTol), z.mul(z.cst(opts.cvodeRelTol), mag));
    Value r = z.div(est[i], scale);
    errSum = z.value(z.add(errSum, z.mul(r, r)));
  }
  Value err = b.create<math::SqrtOp>(
      l, z.div(errSum, z.cst(static_cast<double>(est.size()))));
  if (s.pivotOk) {
    // A near-zero pivot: the sub-step fails like a NaN error would
    // (rejected, h * 0.2); I - gamma*h*J tends to I as h shrinks.
    err = b.create<arith::SelectOp>(
        l, s.pivotOk, err, z.cst(std::numeric_limits<double>::quiet_NaN()));
  }
  return err;
}

/// Accepts or rejects the sub-step and proposes the next step size; the
/// values the loop carries to the next sub-step.
SmallVector<Value> Expander::controlStepSize(AdaptiveGroup &g, SubStep &s,
                                             ArrayRef<Value> xn, Value err) {
  Location l = s.loc;
  Value hh = s.hh;
  Value ok =
      b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLE, err, z.cst(1.0));
  Value nextCount = b.create<arith::AddIOp>(l, s.count, s.one);
  Value last = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, nextCount,
                                       g.maxSub);
  Value tiny =
      b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLE, hh, g.minStep);
  Value accept =
      b.create<arith::OrIOp>(l, ok, b.create<arith::OrIOp>(l, last, tiny));
  // Step-size factor 0.9/err^(1/q), q the order of the error estimate
  // plus one (2 for ROS2, 3 for RODAS3), limited to [0.2, 5]; NaN -> 0.2.
  Value floored = b.create<arith::MaxNumFOp>(l, err, z.cst(1e-12));
  Value fac = useRodas3()
                  ? z.mul(z.cst(0.9),
                          b.create<math::PowFOp>(l, floored, z.cst(-1.0 / 3.0)))
                  : z.div(z.cst(0.9), b.create<math::SqrtOp>(l, floored));
  fac = b.create<arith::MinNumFOp>(
      l, b.create<arith::MaxNumFOp>(l, fac, z.cst(0.2)), z.cst(5.0));
  Value isNan = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNO, err, err);
  fac = b.create<arith::SelectOp>(l, isNan, z.cst(0.2), fac);
  Value hNext = z.mul(hh, fac);
  if (g.reuse) {
    hNext = b.create<arith::MinNumFOp>(l, hNext, dt);
  } else {
    // A sub-step cut short to end the interval says nothing against the
    // longer step proposed before it.
    Value cut = b.create<arith::AndIOp>(
        l, accept,
        b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLT, hh, s.h));
    hNext = b.create<arith::MinNumFOp>(
        l,
        b.create<arith::SelectOp>(
            l, cut, b.create<arith::MaxNumFOp>(l, s.h, hNext), hNext),
        dt);
  }
  SmallVector<Value> yielded;
  yielded.push_back(
      b.create<arith::SelectOp>(l, accept, z.add(s.tau, hh), s.tau));
  yielded.push_back(hNext);
  for (unsigned i = 0; i < g.n; ++i)
    yielded.push_back(b.create<arith::SelectOp>(l, accept, xn[i], s.x[i]));
  yielded.push_back(nextCount);
  if (g.reuse) {
    // A sub-step that failed its error test (or was accepted only at the
    // end of the budget or below the smallest step) drops the factors: the
    // next one makes new ones.
    yielded.push_back(b.create<arith::SelectOp>(l, ok, s.ghUsed, z.cst(0.0)));
    yielded.push_back(s.ageNext);
  }
  if (g.extremaIndex)
    updateVmExtrema(g, s, xn, accept, yielded);
  // Accepted at the end of the budget or at the smallest step, above the
  // tolerance (or with a NaN error).
  Value forced = b.create<arith::AndIOp>(
      l, accept,
      b.create<arith::XOrIOp>(
          l, ok, b.create<arith::ConstantOp>(l, b.getBoolAttr(true))));
  yielded.push_back(b.create<arith::SelectOp>(
      l, forced, z.add(s.forced, z.cst(1.0)), s.forced));
  return yielded;
}

LogicalResult Expander::run() {
  if (failed(collect()))
    return failure();
  b.setInsertionPointToEnd(&block);

  SmallVector<StateInfo *> rk2, rk4;
  std::map<std::pair<int, int>, SmallVector<StateInfo *>> groups;
  for (auto &[name, s] : states) {
    Method m = s.decl.getMethod();
    if (isa<NextOp>(s.update)) {
      next[&s] = s.update->getOperand(0);
      continue;
    }
    switch (m) {
    case Method::rk2:
      rk2.push_back(&s);
      break;
    case Method::rk4:
      rk4.push_back(&s);
      break;
    case Method::markov_be:
    case Method::rosenbrock:
    case Method::cvode: {
      int group = s.decl.getGroup() ? static_cast<int>(*s.decl.getGroup()) : -1;
      groups[{static_cast<int>(m), group}].push_back(&s);
      break;
    }
    default:
      if (failed(expandSingle(s)))
        return failure();
    }
  }
  if (!rk2.empty() && failed(expandRungeKutta(rk2, /*rk4=*/false)))
    return failure();
  if (!rk4.empty() && failed(expandRungeKutta(rk4, /*rk4=*/true)))
    return failure();
  for (auto &[key, group] : groups) {
    auto method = static_cast<Method>(key.first);
    LogicalResult r = method == Method::cvode
                          ? expandAdaptive(group, key.second)
                          : expandLinearImplicit(group, method);
    if (failed(r))
      return failure();
  }

  // Replace the updates by the new values.
  for (auto &[name, s] : states) {
    b.setInsertionPointToEnd(&block);
    b.create<NextOp>(s.update->getLoc(), FlatSymbolRefAttr::get(name),
                     next[&s]);
    s.update->erase();
  }
  b.setInsertionPointToEnd(&block);
  for (auto &[name, value] : hiddenNext)
    b.create<NextOp>(loc, FlatSymbolRefAttr::get(name), value);
  model->setAttr(ModelOp::getExpandedAttrName(), b.getUnitAttr());
  return success();
}

/// NaN and infinity are not tolerances.
std::vector<std::string> easyml::checkIntegratorOptions(
    double cvodeRelTol, double cvodeAbsTol, int64_t cvodeMaxSubsteps,
    int64_t cvodeJacobianAge, const std::string &cvodeMethod) {
  std::vector<std::string> problems;
  auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return std::string(text);
  };
  for (auto [name, value] : {std::pair{"cvode-rtol", cvodeRelTol},
                             std::pair{"cvode-atol", cvodeAbsTol}})
    if (!(value > 0) || !std::isfinite(value))
      problems.push_back(std::string(name) +
                         " must be a positive number, got " + number(value));
  if (cvodeMaxSubsteps < 1)
    problems.push_back("cvode-max-substeps must be at least 1, got " +
                       std::to_string(cvodeMaxSubsteps));
  if (cvodeJacobianAge < 0)
    problems.push_back("cvode-jacobian-age must not be negative, got " +
                       std::to_string(cvodeJacobianAge));
  if (cvodeMethod != "ros2" && cvodeMethod != "rodas3")
    problems.push_back("cvode-method must be ros2 or rodas3, got '" +
                       cvodeMethod + "'");
  return problems;
}

namespace {
struct ExpandIntegratorsPass
    : public easyml::impl::ExpandIntegratorsBase<ExpandIntegratorsPass> {
  using ExpandIntegratorsBase::ExpandIntegratorsBase;
  /// The Jacobians are built by the derivative rules of the arith and math
  /// operations, attached wherever this pass runs. (LLVM 19 does not
  /// deduplicate dialect extensions, so each pass manager run appends one
  /// more copy to the context's registry; attaching an interface again is
  /// ignored.)
  void getDependentDialects(DialectRegistry &registry) const override {
    ExpandIntegratorsBase::getDependentDialects(registry);
    registerDifferentiableOpInterfaceExternalModels(registry);
  }
  std::vector<std::string> optionProblems() const {
    return checkIntegratorOptions(cvodeRelTol, cvodeAbsTol, cvodeMaxSubsteps,
                                  cvodeJacobianAge, cvodeMethod);
  }
  /// A bad option is reported when the pipeline is parsed, every one.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Pass::initializeOptions(options, errorHandler)))
      return failure();
    std::vector<std::string> problems = optionProblems();
    if (problems.empty())
      return success();
    return errorHandler("bad options of easyml-expand-integrators:\n  " +
                        llvm::join(problems, "\n  "));
  }
  void runOnOperation() override {
    ModelOp model = getOperation();
    if (model.isExpanded())
      return;
    ComputeOp compute = model.getComputeOp();
    if (!compute)
      return;
    // Built in C++ (not parsed), the options are checked here too.
    std::vector<std::string> problems = optionProblems();
    for (const std::string &problem : problems)
      model.emitError() << "easyml-expand-integrators: " << problem;
    if (!problems.empty())
      return signalPassFailure();
    ExpandIntegratorsOptions options{cvodeRelTol,      cvodeAbsTol,
                                     cvodeMaxSubsteps, cvodePivoting,
                                     cvodeMethod,      cvodeJacobianAge};
    Expander expander(model, compute, options);
    if (failed(expander.run()))
      signalPassFailure();
  }
};
} // namespace
