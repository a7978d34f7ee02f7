//===- Utils.cpp - helpers shared by easyml transforms --------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace easyml;

//===----------------------------------------------------------------------===//
// SliceCloner
//===----------------------------------------------------------------------===//

SmallVector<Value>
SliceCloner::clone(OpBuilder &builder, ArrayRef<Value> outputs,
                   const llvm::DenseMap<Value, Value> &overrides) {
  // Forward pass: which operations of the block depend on an override.
  llvm::DenseSet<Value> dependent;
  for (auto &kv : overrides)
    dependent.insert(kv.first);
  llvm::DenseSet<Operation *> dependentOps;
  for (Operation &op : block) {
    bool dep = llvm::any_of(op.getOperands(),
                            [&](Value v) { return dependent.contains(v); });
    if (!dep && op.getNumRegions()) {
      op.walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          dep |= dependent.contains(v);
      });
    }
    if (!dep)
      continue;
    dependentOps.insert(&op);
    for (Value r : op.getResults())
      if (!overrides.count(r))
        dependent.insert(r);
  }

  // Backward pass: the dependent operations the outputs need.
  llvm::DenseSet<Operation *> needed;
  SmallVector<Value> work(outputs.begin(), outputs.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (overrides.count(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || !dependentOps.contains(def) || !needed.insert(def).second)
      continue;
    for (Value operand : def->getOperands())
      work.push_back(operand);
    if (def->getNumRegions())
      def->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands())
          work.push_back(operand);
      });
  }

  IRMapping mapping;
  for (auto &kv : overrides)
    mapping.map(kv.first, kv.second);
  for (Operation &op : block)
    if (needed.contains(&op))
      builder.clone(op, mapping);

  SmallVector<Value> result;
  for (Value out : outputs)
    result.push_back(mapping.lookupOrDefault(out));
  return result;
}

//===----------------------------------------------------------------------===//
// Forward-mode differentiation
//===----------------------------------------------------------------------===//

namespace {
class Differentiator {
public:
  Differentiator(OpBuilder &b, Location loc, ArrayRef<Value> seeds)
      : b(b), loc(loc), n(seeds.size()) {
    for (auto [i, s] : llvm::enumerate(seeds)) {
      if (Operation *def = s.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(Value(s).getParentBlock());
      Tangent t(n);
      t[i] = ZeroAwareBuilder{b, loc}.cst(1.0);
      tangents[s] = t;
    }
  }

  LogicalResult run(ArrayRef<Value> outputs) {
    SmallVector<Operation *> order;
    if (failed(collect(outputs, order)))
      return failure();
    for (Operation *op : order)
      if (failed(visit(op)))
        return failure();
    return success();
  }

  Tangent get(Value v) {
    auto it = tangents.find(v);
    if (it == tangents.end())
      return Tangent(n);
    return it->second;
  }

private:
  /// Post-order of the operations between the seeds and the outputs.
  LogicalResult collect(ArrayRef<Value> outputs,
                        SmallVectorImpl<Operation *> &order) {
    llvm::DenseMap<Operation *, bool> state; // false: open, true: depends.
    llvm::DenseSet<Operation *> done;
    auto depends = [&](Value v) {
      if (tangents.count(v))
        return true;
      Operation *def = v.getDefiningOp();
      return def && done.contains(def) && state[def];
    };
    for (Value out : outputs) {
      Operation *root = out.getDefiningOp();
      if (!root || done.contains(root))
        continue;
      SmallVector<std::pair<Operation *, unsigned>> stack{{root, 0}};
      state[root] = false;
      while (!stack.empty()) {
        auto &[op, idx] = stack.back();
        if (idx < op->getNumOperands()) {
          Value operand = op->getOperand(idx++);
          Operation *def = operand.getDefiningOp();
          if (!def || tangents.count(operand) || done.contains(def) ||
              state.count(def))
            continue;
          state[def] = false;
          stack.push_back({def, 0});
          continue;
        }
        bool dep = llvm::any_of(op->getOperands(), depends);
        if (op->getNumRegions()) {
          bool inner = false;
          op->walk([&](Operation *nested) {
            for (Value v : nested->getOperands())
              inner |= tangents.count(v) > 0;
          });
          if (inner || dep)
            return op->emitOpError("cannot be differentiated: it has regions");
        }
        state[op] = dep;
        done.insert(op);
        if (dep)
          order.push_back(op);
        stack.pop_back();
      }
    }
    return success();
  }

  /// The tangent of `op`'s result, by the op's DifferentiableOpInterface.
  LogicalResult visit(Operation *op) {
    if (op->getNumResults() != 1)
      return op->emitOpError("cannot be differentiated");
    Value res = op->getResult(0);
    if (!res.getType().isF64())
      return success(); // Comparisons and logic carry no tangent.
    auto rule = dyn_cast<DifferentiableOpInterface>(op);
    if (!rule)
      return op->emitOpError("cannot be differentiated");
    b.setInsertionPointAfter(op);
    TangentBuilder builder(b, loc, n, tangents);
    FailureOr<Tangent> t = rule.differentiate(builder);
    if (failed(t))
      return failure();
    assert(t->size() == n && "a derivative rule returned the wrong size");
    tangents[res] = std::move(*t);
    return success();
  }

  OpBuilder &b;
  Location loc;
  unsigned n;
  llvm::DenseMap<Value, Tangent> tangents;
};
} // namespace

FailureOr<std::vector<Tangent>> easyml::differentiate(OpBuilder &builder,
                                                      Location loc,
                                                      ArrayRef<Value> outputs,
                                                      ArrayRef<Value> seeds) {
  OpBuilder::InsertionGuard guard(builder);
  Differentiator diff(builder, loc, seeds);
  if (failed(diff.run(outputs)))
    return failure();
  std::vector<Tangent> result;
  for (Value out : outputs)
    result.push_back(diff.get(out));
  return result;
}

//===----------------------------------------------------------------------===//
// UnrolledLU
//===----------------------------------------------------------------------===//

/// A symmetric elimination order that keeps the factors sparse: at each
/// step the remaining diagonal entry with the smallest Markowitz count
/// (other nonzeros in its row) x (other nonzeros in its column), counted
/// on the structure with the fill of the steps before; ties go to the
/// earlier row, so a matrix that fills nothing keeps its order.
static SmallVector<unsigned> fillReducingOrder(const DenseMatrix &a) {
  unsigned n = a.size();
  std::vector<std::vector<bool>> s(n, std::vector<bool>(n));
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j)
      s[i][j] = i == j || (a[i][j] && !isConstant(a[i][j], 0.0));
  std::vector<bool> done(n);
  SmallVector<unsigned> order;
  for (unsigned step = 0; step < n; ++step) {
    unsigned best = n;
    uint64_t bestCost = 0;
    for (unsigned k = 0; k < n; ++k) {
      if (done[k])
        continue;
      uint64_t rows = 0, cols = 0;
      for (unsigned j = 0; j < n; ++j)
        if (!done[j] && j != k) {
          rows += s[k][j];
          cols += s[j][k];
        }
      uint64_t cost = rows * cols;
      if (best == n || cost < bestCost) {
        best = k;
        bestCost = cost;
      }
    }
    done[best] = true;
    order.push_back(best);
    for (unsigned i = 0; i < n; ++i)
      if (!done[i] && s[i][best])
        for (unsigned j = 0; j < n; ++j)
          if (!done[j] && s[best][j])
            s[i][j] = true;
  }
  return order;
}

UnrolledLU::UnrolledLU(OpBuilder &builder, Location loc, DenseMatrix a,
                       bool pivoting)
    : builder(builder), loc(loc), order(fillReducingOrder(a)) {
  ZeroAwareBuilder z{builder, loc};
  unsigned n = a.size();
  // P A P^T: row and column k of the factorised matrix are row and
  // column order[k] of `a`.
  lu.assign(n, SmallVector<Value>(n));
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j)
      lu[i][j] = a[order[i]][order[j]];
  auto nonzero = [](Value v) { return v && !isConstant(v, 0.0); };
  for (unsigned k = 0; k < n; ++k) {
    SmallVector<unsigned> others;
    for (unsigned i = k + 1; i < n; ++i)
      if (nonzero(lu[i][k]))
        others.push_back(i);
    if (pivoting && !others.empty()) {
      // Largest magnitude in column k among the candidate rows.
      Value best = builder.create<math::AbsFOp>(loc, z.value(lu[k][k]));
      Value index =
          builder.create<arith::ConstantOp>(loc, builder.getI32IntegerAttr(k));
      for (unsigned r : others) {
        Value mag = builder.create<math::AbsFOp>(loc, lu[r][k]);
        Value larger = builder.create<arith::CmpFOp>(
            loc, arith::CmpFPredicate::OGT, mag, best);
        best = builder.create<arith::SelectOp>(loc, larger, mag, best);
        index = builder.create<arith::SelectOp>(
            loc, larger,
            builder.create<arith::ConstantOp>(loc,
                                              builder.getI32IntegerAttr(r)),
            index);
      }
      Swap swap{k, {}};
      SmallVector<Value> rowK(lu[k].begin(), lu[k].end());
      for (unsigned r : others) {
        Value chosen = builder.create<arith::CmpIOp>(
            loc, arith::CmpIPredicate::eq, index,
            builder.create<arith::ConstantOp>(loc,
                                              builder.getI32IntegerAttr(r)));
        swap.candidates.push_back({r, chosen});
        for (unsigned j = 0; j < n; ++j) {
          Value kj = lu[k][j], rj = lu[r][j];
          if (!kj && !rj)
            continue;
          rowK[j] = builder.create<arith::SelectOp>(loc, chosen, z.value(rj),
                                                    z.value(rowK[j]));
          lu[r][j] = builder.create<arith::SelectOp>(loc, chosen, z.value(kj),
                                                     z.value(rj));
        }
      }
      for (unsigned j = 0; j < n; ++j)
        lu[k][j] = rowK[j];
      swaps.push_back(std::move(swap));
    }
    Value pivot = z.value(lu[k][k]);
    lu[k][k] = pivot;
    // One division per pivot: the eliminations below it and every solve
    // multiply by its reciprocal.
    Value inv = z.value(z.div(z.cst(1.0), pivot));
    invPivots.push_back(inv);
    for (unsigned i = k + 1; i < n; ++i) {
      if (!nonzero(lu[i][k]))
        continue;
      Value factor = z.mul(lu[i][k], inv);
      lu[i][k] = factor;
      for (unsigned j = k + 1; j < n; ++j)
        if (lu[k][j])
          lu[i][j] = z.sub(lu[i][j], z.mul(factor, lu[k][j]));
    }
  }
}

Value UnrolledLU::smallestPivot() {
  ZeroAwareBuilder z{builder, loc};
  Value smallest;
  for (unsigned k = 0; k < lu.size(); ++k) {
    Value mag = builder.create<math::AbsFOp>(loc, z.value(lu[k][k]));
    smallest =
        smallest ? builder.create<arith::MinimumFOp>(loc, smallest, mag) : mag;
  }
  return smallest ? smallest : z.cst(1.0);
}

SmallVector<Value> UnrolledLU::solve(ArrayRef<Value> rhs) {
  ZeroAwareBuilder z{builder, loc};
  unsigned n = lu.size();
  SmallVector<Value> y;
  for (unsigned k = 0; k < n; ++k)
    y.push_back(rhs[order[k]]);
  // The row exchanges, in order: before step k's elimination.
  for (const Swap &swap : swaps) {
    Value yk = y[swap.k];
    for (auto &[r, chosen] : swap.candidates) {
      Value yr = y[r];
      y[swap.k] = builder.create<arith::SelectOp>(loc, chosen, z.value(yr),
                                                  z.value(y[swap.k]));
      y[r] = builder.create<arith::SelectOp>(loc, chosen, z.value(yk),
                                             z.value(yr));
    }
  }
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < i; ++j)
      if (lu[i][j])
        y[i] = z.sub(y[i], z.mul(lu[i][j], y[j]));
  for (int i = n - 1; i >= 0; --i) {
    for (unsigned j = i + 1; j < n; ++j)
      if (lu[i][j])
        y[i] = z.sub(y[i], z.mul(lu[i][j], y[j]));
    y[i] = z.value(z.mul(y[i], invPivots[i]));
  }
  SmallVector<Value> x(n);
  for (unsigned k = 0; k < n; ++k)
    x[order[k]] = y[k];
  return x;
}

/// Calls `fn` on each value a solve reads, in the order factors() uses.
template <typename Fn>
static void forEachFactor(DenseMatrix &lu, SmallVector<Value> &invPivots,
                          Fn fn) {
  for (unsigned i = 0; i < lu.size(); ++i)
    for (unsigned j = 0; j < lu.size(); ++j)
      if (i != j && lu[i][j])
        fn(lu[i][j]);
  for (Value &inv : invPivots)
    fn(inv);
}

SmallVector<Value> UnrolledLU::factors() const {
  assert(swaps.empty() && "factors of a pivoted factorisation");
  SmallVector<Value> values;
  auto &self = const_cast<UnrolledLU &>(*this);
  forEachFactor(self.lu, self.invPivots, [&](Value &v) {
    if (!matchPattern(v, m_Constant()))
      values.push_back(v);
  });
  return values;
}

void UnrolledLU::setFactors(ArrayRef<Value> values) {
  assert(swaps.empty() && "factors of a pivoted factorisation");
  unsigned next = 0;
  forEachFactor(lu, invPivots, [&](Value &v) {
    Attribute constant;
    if (matchPattern(v, m_Constant(&constant))) {
      v = builder.create<arith::ConstantOp>(loc, cast<TypedAttr>(constant));
      return;
    }
    assert(next < values.size() && "fewer values than factors");
    v = values[next++];
  });
  assert(next == values.size() && "more values than factors");
}

unsigned UnrolledLU::nonZeros() const {
  unsigned count = 0;
  for (const auto &row : lu)
    for (mlir::Value v : row)
      if (v && !isConstant(v, 0.0))
        ++count;
  return count;
}
