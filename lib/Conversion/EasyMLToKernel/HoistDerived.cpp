//===- HoistDerived.cpp - derived values once per call on the CPU ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A model's compute region is full of values that depend on parameters
// only: RT/F, a reciprocal, exp() of a parameter, a conductance scaled by
// a drug block (ModelLayout::findDerived). GPU kernels take them by value,
// computed on the host. On the CPU every parameter may have a per-cell row
// (a population), so the kernels read parameters per cell and the
// optimisers cannot hoist what is computed from them: each cell paid for
// every such division and exponential. Here each derived value is computed
// once per call before the cell loop from the shared values, and used in
// the loop unless one of the parameters it reads has a row in the call, in
// which case its operations are done for the cell, as before. Both give
// the same bits: where the cell loop computes W cells per vector, a value
// that needs a library function (exp, log, pow, ...) stays in the loop,
// since the vector library and libm may round differently.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

/// A math operation computed by a library function (not an instruction
/// that rounds exactly in every lane).
static bool needsLibrary(Operation *op) {
  return isa<math::MathDialect>(op->getDialect()) &&
         !isa<math::SqrtOp, math::AbsFOp, math::FloorOp, math::CeilOp,
              math::TruncOp, math::RoundOp, math::CopySignOp, math::FmaOp>(op);
}

void KernelBuilder::hoistDerived(Value dt) {
  hoisted.clear();
  if (target.isGpu() || !derivedIndex.empty())
    return;
  ModelLayout::Derived d = ModelLayout::findDerived(model);
  if (d.values.empty())
    return;
  IRMapping shared = modelConstants;
  // Per operation: the parameters it reads, directly or through others.
  llvm::DenseMap<Operation *, llvm::SmallVector<int>> reads;
  for (Operation *op : d.ops) {
    llvm::SmallVector<int> &r = reads[op];
    if (auto get = dyn_cast<GetOp>(op)) {
      int p = layout.paramIndex(get.getVar());
      shared.map(get.getResult(), paramValues[p]);
      r.push_back(p);
      continue;
    }
    if (isa<TimeStepOp>(op)) {
      shared.map(op->getResult(0), dt);
      continue;
    }
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && reads.count(def))
        for (int p : reads[def])
          if (!llvm::is_contained(r, p))
            r.push_back(p);
    b.clone(*op, shared);
  }
  Value yes = b.create<arith::ConstantOp>(loc, b.getBoolAttr(true));
  const bool vectorLoop = target.getWidth() > 1;
  for (Value v : d.values) {
    Hoisted h;
    h.value = shared.lookup(v);
    h.shared = yes;
    Operation *def = v.getDefiningOp();
    for (int p : reads[def])
      if (!paramRows.empty() && rowCapable[p]) {
        Value none = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq,
                                            paramRows[p],
                                            b.create<LLVM::ZeroOp>(loc, ptrTy));
        h.shared = b.create<arith::AndIOp>(loc, h.shared, none);
      }
    // The operations v is computed from, in order.
    llvm::SmallPtrSet<Operation *, 16> needed = {def};
    for (Operation *op : llvm::reverse(d.ops))
      if (needed.contains(op))
        for (Value o : op->getOperands())
          if (Operation *od = o.getDefiningOp(); od && reads.count(od))
            needed.insert(od);
    for (Operation *op : d.ops)
      if (needed.contains(op) && !isa<GetOp, TimeStepOp>(op) &&
          !op->hasTrait<OpTrait::ConstantLike>())
        h.chain.push_back(op);
    if (vectorLoop && llvm::any_of(h.chain, needsLibrary))
      continue;
    hoisted[v] = std::move(h);
  }
}

Value KernelBuilder::hoistedOrPerCell(Value v, IRMapping &mapping) {
  const Hoisted &h = hoisted.find(v)->second;
  if (matchPattern(h.shared, m_One()))
    return h.value;
  auto ifOp = b.create<scf::IfOp>(loc, TypeRange{v.getType()}, h.shared,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  b.create<scf::YieldOp>(loc, h.value);
  b.setInsertionPointToStart(ifOp.elseBlock());
  // The chain for this cell; what `mapping` said of its values before is
  // put back (the clones live in this branch only).
  llvm::SmallVector<std::pair<Value, Value>> before;
  for (Operation *op : h.chain)
    for (Value r : op->getResults())
      before.push_back({r, mapping.lookupOrNull(r)});
  for (Operation *op : h.chain)
    b.clone(*op, mapping);
  b.create<scf::YieldOp>(loc, mapping.lookup(v));
  for (auto [r, old] : before) {
    if (old)
      mapping.map(r, old);
    else
      mapping.erase(r);
  }
  return ifOp.getResult(0);
}
