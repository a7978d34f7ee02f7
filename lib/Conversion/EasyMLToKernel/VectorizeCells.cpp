//===- VectorizeCells.cpp - W cells per vector for cpu-simd ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// easyml-lower-to-kernels writes every variant's cell loop as scalar code
// for one cell: an scf.parallel tagged easyml.cells. For the cpu-simd
// variant this pass turns that loop into one that computes `width` cells
// per iteration (the width comes from the function's #easyml.variant):
//
//   - an analysis gives every value of the loop body a kind: uniform (the
//     same for every cell: stays a scalar), unit (an integer or a pointer
//     that grows by one element from cell to cell, such as the cell index
//     or the address of a cell's entry in a structure-of-arrays row: lane
//     0's scalar stands for all lanes) or varying (a vector of lanes);
//   - loads through unit pointers become vector loads (masked loads of the
//     active lanes where tagged easyml.masked_load), other varying loads
//     gathers, stores through unit pointers masked stores;
//   - branches on varying conditions become predication: their stores
//     and counters take the lanes where the condition holds; a branch that
//     yields values runs each side when any active lane takes it and
//     selects per lane;
//   - an atomic counter increment adds the number of active lanes, once;
//   - loops with varying exit conditions run while any active lane
//     continues, each lane keeping its values once its own loop is done;
//   - a math operation done by a library function (exp, log, pow, ...)
//     is varying even on uniform operands: the vector library and libm
//     may round differently, and a value must have the same bits whether
//     a parameter it reads is shared or has a per-cell row.
//
// Lanes outside the loop's range are computed and masked out of every
// store and count, so per-cell storage must be readable up to the next
// multiple of the width (the runtime pads and aligns it).
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/Passes.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace easyml {
#define GEN_PASS_DEF_VECTORIZECELLS
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;

namespace {

/// A math operation a library function computes (not an instruction that
/// rounds exactly in every lane).
bool byLibrary(Operation *op) {
  return isa<math::MathDialect>(op->getDialect()) &&
         !isa<math::SqrtOp, math::AbsFOp, math::FloorOp, math::CeilOp,
              math::TruncOp, math::RoundOp, math::CopySignOp, math::FmaOp>(op);
}

/// What a scalar value of the cell loop becomes.
enum class Kind {
  Uniform, ///< one scalar for every lane
  Unit,    ///< lane 0's integer or pointer; lane k adds k (elements)
  Varying  ///< a vector of lanes
};

Kind join(Kind a, Kind b) { return a == b ? a : Kind::Varying; }

/// Gives every value defined in the cell loop's body a Kind (values from
/// outside are uniform). Loop-carried values take the join of what enters
/// them, to a fixed point.
class KindAnalysis {
public:
  explicit KindAnalysis(scf::ParallelOp loop) : loop(loop) {}

  LogicalResult run() {
    kinds[loop.getInductionVars()[0]] = Kind::Unit;
    // Each round can only move kinds up (uniform -> unit -> varying).
    for (int round = 0; round < 8; ++round) {
      changed = false;
      if (failed(visitBlock(*loop.getBody())))
        return failure();
      if (!changed)
        return success();
    }
    return loop.emitError("easyml-vectorize-cells: no fixed point");
  }

  Kind kind(Value v) const {
    auto it = kinds.find(v);
    return it == kinds.end() ? Kind::Uniform : it->second;
  }

private:
  void set(Value v, Kind k) {
    auto [it, inserted] = kinds.try_emplace(v, k);
    if (!inserted) {
      Kind j = join(it->second, k);
      if (j != it->second) {
        it->second = j;
        changed = true;
      }
    } else if (k != Kind::Uniform) {
      changed = true;
    }
  }
  bool uniform(Value v) const { return kind(v) == Kind::Uniform; }
  bool allUniform(ValueRange vs) const {
    return llvm::all_of(vs, [&](Value v) { return uniform(v); });
  }

  LogicalResult visitBlock(Block &block) {
    for (Operation &op : block)
      if (failed(visit(&op)))
        return failure();
    return success();
  }

  LogicalResult visit(Operation *op) {
    if (isa<scf::YieldOp, scf::ConditionOp, scf::ReduceOp>(op))
      return success();
    if (auto cast = dyn_cast<arith::IndexCastOp>(op)) {
      set(cast.getResult(), kind(cast.getIn()));
      return success();
    }
    if (isa<arith::AddIOp, arith::SubIOp>(op)) {
      Kind a = kind(op->getOperand(0)), b = kind(op->getOperand(1));
      Kind k = a == Kind::Uniform && b == Kind::Uniform ? Kind::Uniform
               : a == Kind::Unit && b == Kind::Uniform  ? Kind::Unit
               : isa<arith::AddIOp>(op) && a == Kind::Uniform && b == Kind::Unit
                   ? Kind::Unit
                   : Kind::Varying;
      set(op->getResult(0), k);
      return success();
    }
    if (auto gep = dyn_cast<LLVM::GEPOp>(op)) {
      ValueRange indices = gep.getDynamicIndices();
      Kind k = Kind::Varying;
      if (uniform(gep.getBase()) && allUniform(indices))
        k = Kind::Uniform;
      else if (uniform(gep.getBase()) && indices.size() == 1 &&
               gep.getRawConstantIndices().size() == 1 &&
               kind(indices[0]) == Kind::Unit)
        k = Kind::Unit;
      set(gep.getResult(), k);
      return success();
    }
    if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
      set(load.getResult(),
          uniform(load.getAddr()) ? Kind::Uniform : Kind::Varying);
      return success();
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      set(load.getResult(),
          uniform(load.getMemRef()) && allUniform(load.getIndices())
              ? Kind::Uniform
              : Kind::Varying);
      return success();
    }
    if (isa<LLVM::StoreOp, LLVM::AtomicRMWOp, memref::StoreOp>(op))
      return success();
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      if (failed(visitBlock(*ifOp.thenBlock())) ||
          (ifOp.elseBlock() && failed(visitBlock(*ifOp.elseBlock()))))
        return failure();
      bool predicated = !uniform(ifOp.getCondition());
      for (auto [i, r] : llvm::enumerate(ifOp.getResults())) {
        Kind k = predicated ? Kind::Varying : Kind::Uniform;
        for (Block *blk : {ifOp.thenBlock(), ifOp.elseBlock()})
          if (blk)
            k = k == Kind::Uniform
                    ? kind(blk->getTerminator()->getOperand(i))
                    : join(k, kind(blk->getTerminator()->getOperand(i)));
        // A unit value is a vector once it meets another one.
        set(r, k == Kind::Uniform ? k : Kind::Varying);
      }
      return success();
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      if (!allUniform(
              {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()}))
        return forOp.emitError("easyml-vectorize-cells: a loop whose bounds "
                               "differ between cells");
      auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
      for (auto [init, arg, next, result] :
           llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                     yield.getOperands(), forOp.getResults())) {
        Kind k = join(kind(init), kind(next));
        set(arg, k == Kind::Unit ? Kind::Varying : k);
        set(result, kind(arg));
      }
      return visitBlock(*forOp.getBody());
    }
    if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
      auto cond = whileOp.getConditionOp();
      // Lanes leave the loop at different iterations when its condition
      // varies: then everything it carries is per lane.
      bool perLane = !uniform(cond.getCondition());
      auto yield = whileOp.getYieldOp();
      for (auto [i, arg] : llvm::enumerate(whileOp.getBeforeArguments())) {
        Kind k = join(kind(whileOp.getInits()[i]), kind(yield.getOperand(i)));
        set(arg, perLane || k == Kind::Unit ? Kind::Varying : k);
      }
      if (failed(visitBlock(whileOp.getBefore().front())))
        return failure();
      perLane = !uniform(cond.getCondition());
      for (auto [i, arg] : llvm::enumerate(whileOp.getAfterArguments())) {
        Kind k = kind(cond.getArgs()[i]);
        set(arg, perLane || k == Kind::Unit ? Kind::Varying : k);
        set(whileOp.getResult(i), kind(arg));
      }
      return visitBlock(whileOp.getAfter().front());
    }
    if (op->getNumRegions() || !isMemoryEffectFree(op))
      return op->emitError("easyml-vectorize-cells: cannot vectorise '")
             << op->getName() << "'";
    Kind k = allUniform(op->getOperands()) && !byLibrary(op) ? Kind::Uniform
                                                            : Kind::Varying;
    for (Value r : op->getResults())
      set(r, k);
    return success();
  }

  scf::ParallelOp loop;
  DenseMap<Value, Kind> kinds;
  bool changed = false;
};

/// Writes the vector form of one cell loop (see the file comment).
class CellVectorizer {
public:
  CellVectorizer(scf::ParallelOp loop, const KindAnalysis &kinds, int64_t width,
                 bool unmasked)
      : loop(loop), kinds(kinds), width(width), unmasked(unmasked), b(loop),
        loc(loop.getLoc()) {}

  LogicalResult run() {
    Value lb = loop.getLowerBound()[0], ub = loop.getUpperBound()[0];
    // From the aligned cell at or below lb, `width` cells per iteration.
    Value w = b.create<arith::ConstantIndexOp>(loc, width);
    Value first =
        b.create<arith::MulIOp>(loc, b.create<arith::DivSIOp>(loc, lb, w), w);
    auto vloop = b.create<scf::ParallelOp>(loc, ValueRange{first},
                                           ValueRange{ub}, ValueRange{w});
    for (NamedAttribute attr : loop->getDiscardableAttrs())
      vloop->setAttr(attr.getName(), attr.getValue());
    b.setInsertionPointToStart(vloop.getBody());
    Value iv = vloop.getInductionVars()[0];
    if (!unmasked) {
      if (failed(emitMasked(iv, lb, ub)))
        return failure();
      loop.erase();
      return success();
    }
    // A vector whose lanes are all inside [lb, ub) (every one but the
    // first and last) runs a copy of the body without lane masks: its
    // loads and stores are plain ones and no mask is computed.
    Value full = b.create<arith::AndIOp>(
        loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, iv, lb),
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle,
                                b.create<arith::AddIOp>(loc, iv, w), ub));
    auto ifOp = b.create<scf::IfOp>(loc, full, /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifOp.thenBlock());
    map.clear();
    map.map(loop.getInductionVars()[0], iv);
    mask = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(vectorOf(b.getI1Type()), true));
    if (failed(emitBlock(*loop.getBody())))
      return failure();
    b.setInsertionPointToStart(ifOp.elseBlock());
    map.clear();
    if (failed(emitMasked(iv, lb, ub)))
      return failure();
    loop.erase();
    return success();
  }

private:
  /// The body for the vector at `iv`, its lanes outside [lb, ub) masked.
  LogicalResult emitMasked(Value iv, Value lb, Value ub) {
    Type i64 = b.getI64Type();
    map.map(loop.getInductionVars()[0], iv);
    Value lanes = iota(b.create<arith::IndexCastOp>(loc, i64, iv));
    auto bound = [&](Value v) {
      return splat(b.create<arith::IndexCastOp>(loc, i64, v));
    };
    mask = b.create<arith::AndIOp>(
        loc,
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, lanes,
                                bound(lb)),
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, lanes,
                                bound(ub)));
    return emitBlock(*loop.getBody());
  }

  Kind kind(Value v) const { return kinds.kind(v); }
  VectorType vectorOf(Type t) const { return VectorType::get({width}, t); }
  Value splat(Value v) {
    return b.create<vector::BroadcastOp>(loc, vectorOf(v.getType()), v);
  }
  /// lane 0's integer plus (0, 1, ..., width-1).
  Value iota(Value base) {
    SmallVector<int64_t> steps;
    for (int64_t i = 0; i < width; ++i)
      steps.push_back(i);
    auto type = cast<ShapedType>(vectorOf(base.getType()));
    Value offsets;
    if (base.getType().isIndex())
      offsets = b.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(
                   type, llvm::to_vector(llvm::map_range(steps, [&](int64_t s) {
                     return Attribute(b.getIndexAttr(s));
                   }))));
    else
      offsets = b.create<arith::ConstantOp>(
          loc, DenseIntElementsAttr::get(type, ArrayRef(steps)));
    return b.create<arith::AddIOp>(loc, splat(base), offsets);
  }
  /// The vector of lanes of scalar value `v`.
  Value vec(Value v) {
    Value m = map.lookupOrDefault(v);
    switch (kind(v)) {
    case Kind::Varying:
      if (isa<VectorType, LLVM::LLVMFixedVectorType>(m.getType()))
        return m;
      return splat(m); // loop-invariant inside a per-lane loop
    case Kind::Uniform:
      return splat(m);
    case Kind::Unit:
      if (isa<LLVM::LLVMPointerType>(m.getType()))
        break;
      return iota(m);
    }
    llvm_unreachable("unit pointers are only addresses");
  }
  /// `v` as the kind `k` asks for (a unit or uniform value may have to
  /// become a vector).
  Value as(Value v, Kind k) {
    return k == Kind::Varying && kind(v) != Kind::Varying
               ? vec(v)
               : map.lookupOrDefault(v);
  }
  Type typeOf(Value scalar) {
    return kind(scalar) == Kind::Varying ? Type(vectorOf(scalar.getType()))
                                         : scalar.getType();
  }
  bool isConstantOne(Value v) {
    APInt one;
    return matchPattern(v, m_ConstantInt(&one)) && one.isOne();
  }

  LogicalResult emitBlock(Block &block) {
    for (Operation &op : block) {
      if (isa<scf::YieldOp, scf::ConditionOp, scf::ReduceOp>(op))
        continue;
      if (failed(emit(&op)))
        return failure();
    }
    return success();
  }

  LogicalResult emit(Operation *op) {
    // Uniform and side-effect free: the same for every lane.
    if (op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
        llvm::all_of(op->getResults(),
                     [&](Value r) { return kind(r) == Kind::Uniform; })) {
      b.clone(*op, map);
      return success();
    }
    if (auto load = dyn_cast<LLVM::LoadOp>(op))
      return emitLoad(load);
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return emitLoad(load);
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return emitStore(store);
    if (auto store = dyn_cast<LLVM::StoreOp>(op))
      return emitStore(store);
    if (auto atomic = dyn_cast<LLVM::AtomicRMWOp>(op))
      return emitAtomic(atomic);
    if (auto gep = dyn_cast<LLVM::GEPOp>(op))
      return emitGEP(gep);
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      return emitIf(ifOp);
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      return emitFor(forOp);
    if (auto whileOp = dyn_cast<scf::WhileOp>(op))
      return emitWhile(whileOp);
    Value r = op->getNumResults() == 1 ? op->getResult(0) : Value();
    // Lane 0 of a unit value: the same operation on the scalars.
    if (r && kind(r) == Kind::Unit) {
      b.clone(*op, map);
      return success();
    }
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      // A condition shared by every lane stays a scalar.
      Value cond = kind(select.getCondition()) == Kind::Uniform
                       ? map.lookupOrDefault(select.getCondition())
                       : vec(select.getCondition());
      Value v = b.create<arith::SelectOp>(loc, cond, vec(select.getTrueValue()),
                                          vec(select.getFalseValue()));
      map.map(r, v);
      return success();
    }
    // Any other side-effect-free operation, over lanes.
    OperationState state(op->getLoc(), op->getName());
    for (Value v : op->getOperands())
      state.addOperands(vec(v));
    state.addAttributes(op->getAttrs());
    for (Type t : op->getResultTypes())
      state.addTypes(vectorOf(t));
    Operation *widened = b.create(state);
    map.map(op->getResults(), widened->getResults());
    return success();
  }

  LogicalResult emitGEP(LLVM::GEPOp gep) {
    if (kind(gep.getResult()) == Kind::Unit) {
      b.clone(*gep, map); // lane 0's address
      return success();
    }
    // Lanes at unrelated addresses: a vector of pointers.
    ValueRange indices = gep.getDynamicIndices();
    if (indices.size() != 1 || kind(gep.getBase()) != Kind::Uniform)
      return gep.emitError("easyml-vectorize-cells: cannot vectorise this "
                           "address");
    auto ptrs = LLVM::getFixedVectorType(gep.getBase().getType(), width);
    Value v = b.create<LLVM::GEPOp>(loc, ptrs, gep.getElemType(),
                                    map.lookupOrDefault(gep.getBase()),
                                    ArrayRef<LLVM::GEPArg>{vec(indices[0])});
    map.map(gep.getResult(), v);
    return success();
  }

  LogicalResult emitLoad(LLVM::LoadOp load) {
    Value addr = load.getAddr();
    Type elem = load.getType();
    if (kind(addr) == Kind::Unit && load->hasAttr(easyml::kMaskedLoadAttr)) {
      // Consecutive cells that only the active lanes may read.
      unsigned bytes = std::max(1u, elem.getIntOrFloatBitWidth() / 8);
      Value zero = splat(b.create<arith::ConstantOp>(loc, b.getZeroAttr(elem)));
      Value v = b.create<LLVM::MaskedLoadOp>(loc, vectorOf(elem),
                                             map.lookupOrDefault(addr), mask,
                                             ValueRange{zero}, bytes);
      map.map(load.getResult(), v);
      return success();
    }
    if (kind(addr) == Kind::Unit) {
      // Consecutive cells: one vector load from lane 0's address.
      Value v =
          b.create<LLVM::LoadOp>(loc, vectorOf(elem), map.lookupOrDefault(addr),
                                 /*alignment=*/8);
      map.map(load.getResult(), v);
      return success();
    }
    if (kind(addr) == Kind::Varying) {
      // Unrelated addresses (lookup-table rows): a gather of every lane,
      // whose addresses are valid (clamped to the table).
      Value all = splat(
          b.create<arith::ConstantOp>(loc, b.getIntegerAttr(b.getI1Type(), 1)));
      Value zero = splat(b.create<arith::ConstantOp>(loc, b.getZeroAttr(elem)));
      Value v = b.create<LLVM::masked_gather>(loc, vectorOf(elem), vec(addr),
                                              all, ValueRange{zero}, 8);
      map.map(load.getResult(), v);
      return success();
    }
    b.clone(*load, map);
    return success();
  }

  /// Whether `indices` into a memref address consecutive elements from
  /// lane to lane: the innermost a unit index, the others uniform.
  bool unitAccess(Value memref, ValueRange indices) const {
    return kind(memref) == Kind::Uniform && !indices.empty() &&
           kind(indices.back()) == Kind::Unit &&
           llvm::all_of(indices.drop_back(),
                        [&](Value i) { return kind(i) == Kind::Uniform; });
  }
  SmallVector<Value> mapped(ValueRange values) {
    return llvm::to_vector(llvm::map_range(
        values, [&](Value v) { return map.lookupOrDefault(v); }));
  }

  /// A load from a memref view of per-cell storage: consecutive cells are
  /// one vector load from lane 0's element (vector.load).
  LogicalResult emitLoad(memref::LoadOp load) {
    if (kind(load.getResult()) == Kind::Uniform) {
      b.clone(*load, map);
      return success();
    }
    if (!unitAccess(load.getMemRef(), load.getIndices()))
      return load.emitError("easyml-vectorize-cells: a load that is not "
                            "of the cells' own entries");
    Value v = b.create<vector::LoadOp>(loc, vectorOf(load.getType()),
                                       map.lookupOrDefault(load.getMemRef()),
                                       mapped(load.getIndices()));
    map.map(load.getResult(), v);
    return success();
  }

  /// A store to a memref view: the active lanes' elements
  /// (vector.maskedstore).
  LogicalResult emitStore(memref::StoreOp store) {
    if (!unitAccess(store.getMemRef(), store.getIndices()))
      return store.emitError("easyml-vectorize-cells: a store that is not "
                             "to the cell's own entry");
    b.create<vector::MaskedStoreOp>(loc, map.lookupOrDefault(store.getMemRef()),
                                    mapped(store.getIndices()), mask,
                                    vec(store.getValue()));
    return success();
  }

  LogicalResult emitStore(LLVM::StoreOp store) {
    if (kind(store.getAddr()) != Kind::Unit)
      return store.emitError("easyml-vectorize-cells: a store that is not "
                             "to the cell's own entry");
    b.create<LLVM::MaskedStoreOp>(loc, vec(store.getValue()),
                                  map.lookupOrDefault(store.getAddr()), mask,
                                  8);
    return success();
  }

  /// A counter: one increment per active lane, added at once.
  LogicalResult emitAtomic(LLVM::AtomicRMWOp atomic) {
    if (atomic.getBinOp() != LLVM::AtomicBinOp::add ||
        kind(atomic.getPtr()) != Kind::Uniform ||
        kind(atomic.getVal()) != Kind::Uniform ||
        !atomic.getResult().use_empty())
      return atomic.emitError("easyml-vectorize-cells: only counters (an "
                              "unused atomic add of one value to one "
                              "address) can be vectorised");
    Type t = atomic.getVal().getType();
    Value n = b.create<vector::ReductionOp>(
        loc, vector::CombiningKind::ADD,
        b.create<arith::ExtUIOp>(loc, vectorOf(t), mask));
    if (!isConstantOne(atomic.getVal()))
      n = b.create<arith::MulIOp>(loc, n, map.lookupOrDefault(atomic.getVal()));
    Value any = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ne, n,
        b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, 0)));
    b.create<scf::IfOp>(loc, any, [&](OpBuilder &bb, Location l) {
      bb.create<LLVM::AtomicRMWOp>(l, LLVM::AtomicBinOp::add,
                                   map.lookupOrDefault(atomic.getPtr()), n,
                                   atomic.getOrdering());
      bb.create<scf::YieldOp>(l);
    });
    return success();
  }

  /// True where any lane of `lanes` is set (a scalar i1).
  Value anyLane(Value lanes) {
    return b.create<vector::ReductionOp>(loc, vector::CombiningKind::OR, lanes);
  }

  /// A branch on cell values that yields values: each side runs, under
  /// the mask of its lanes, only when one of the active lanes takes it (so
  /// work that most lanes skip is skipped while all of them do), and each
  /// lane selects its side's results.
  LogicalResult emitPredicatedIfWithResults(scf::IfOp ifOp) {
    Value outer = mask, c = vec(ifOp.getCondition());
    Value ones = splat(
        b.create<arith::ConstantOp>(loc, b.getIntegerAttr(b.getI1Type(), 1)));
    SmallVector<Type> types;
    for (Value r : ifOp.getResults())
      types.push_back(vectorOf(r.getType()));
    auto side = [&](Block *from, Value lanes) -> FailureOr<ValueRange> {
      Value active = b.create<arith::AndIOp>(loc, outer, lanes);
      auto guarded = b.create<scf::IfOp>(loc, types, anyLane(active),
                                         /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(guarded.thenBlock());
      mask = active;
      LogicalResult emitted = emitBlock(*from);
      mask = outer;
      if (failed(emitted))
        return failure();
      SmallVector<Value> yielded;
      for (Value v : from->getTerminator()->getOperands())
        yielded.push_back(vec(v));
      b.create<scf::YieldOp>(loc, yielded);
      // No lane takes this side: its values are never selected.
      b.setInsertionPointToStart(guarded.elseBlock());
      SmallVector<Value> unused;
      for (Type t : types)
        unused.push_back(b.create<arith::ConstantOp>(
            loc, cast<TypedAttr>(b.getZeroAttr(t))));
      b.create<scf::YieldOp>(loc, unused);
      return guarded.getResults();
    };
    FailureOr<ValueRange> thenValues = side(ifOp.thenBlock(), c);
    if (failed(thenValues))
      return failure();
    FailureOr<ValueRange> elseValues =
        side(ifOp.elseBlock(), b.create<arith::XOrIOp>(loc, c, ones));
    if (failed(elseValues))
      return failure();
    for (auto [r, t, e] :
         llvm::zip(ifOp.getResults(), *thenValues, *elseValues))
      map.map(r, b.create<arith::SelectOp>(loc, c, t, e));
    return success();
  }

  LogicalResult emitIf(scf::IfOp ifOp) {
    Value cond = ifOp.getCondition();
    if (kind(cond) != Kind::Uniform && ifOp.getNumResults())
      return emitPredicatedIfWithResults(ifOp);
    if (kind(cond) != Kind::Uniform) {
      // Predication: each side for the lanes where it applies, run only
      // when one of the active lanes takes it.
      Value outer = mask, c = vec(cond);
      auto side = [&](Block &from, Value lanes) -> LogicalResult {
        OpBuilder::InsertionGuard guard(b);
        // Masked stores and counters need no guard (a counter tests its
        // own count); anything else is skipped while no lane takes it.
        bool onlyMasked = llvm::all_of(from, [](Operation &op) {
          return op.hasTrait<OpTrait::ConstantLike>() ||
                 op.hasTrait<OpTrait::IsTerminator>() ||
                 isa<LLVM::StoreOp, LLVM::AtomicRMWOp, memref::StoreOp>(op);
        });
        Value active = b.create<arith::AndIOp>(loc, outer, lanes);
        if (!onlyMasked) {
          auto guarded = b.create<scf::IfOp>(loc, anyLane(active),
                                             /*withElseRegion=*/false);
          b.setInsertionPoint(guarded.thenBlock()->getTerminator());
        }
        mask = active;
        LogicalResult emitted = emitBlock(from);
        mask = outer;
        return emitted;
      };
      if (failed(side(*ifOp.thenBlock(), c)))
        return failure();
      if (ifOp.elseBlock()) {
        Value ones = splat(b.create<arith::ConstantOp>(
            loc, b.getIntegerAttr(b.getI1Type(), 1)));
        if (failed(
                side(*ifOp.elseBlock(), b.create<arith::XOrIOp>(loc, c, ones))))
          return failure();
      }
      return success();
    }
    SmallVector<Type> types;
    for (Value r : ifOp.getResults())
      types.push_back(typeOf(r));
    auto vif = b.create<scf::IfOp>(loc, types, map.lookupOrDefault(cond),
                                   /*withElseRegion=*/ifOp.elseBlock());
    auto side = [&](Block *from, Block *to) -> LogicalResult {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(to);
      if (!to->empty() && to->back().hasTrait<OpTrait::IsTerminator>())
        b.setInsertionPoint(&to->back());
      if (failed(emitBlock(*from)))
        return failure();
      SmallVector<Value> yielded;
      for (auto [v, r] :
           llvm::zip(from->getTerminator()->getOperands(), ifOp.getResults()))
        yielded.push_back(as(v, kind(r)));
      if (!to->empty() && to->back().hasTrait<OpTrait::IsTerminator>())
        to->back().erase();
      b.setInsertionPointToEnd(to);
      b.create<scf::YieldOp>(loc, yielded);
      return success();
    };
    if (failed(side(ifOp.thenBlock(), vif.thenBlock())) ||
        (ifOp.elseBlock() && failed(side(ifOp.elseBlock(), vif.elseBlock()))))
      return failure();
    map.map(ifOp.getResults(), vif.getResults());
    return success();
  }

  LogicalResult emitFor(scf::ForOp forOp) {
    SmallVector<Value> inits;
    for (auto [init, arg] :
         llvm::zip(forOp.getInitArgs(), forOp.getRegionIterArgs()))
      inits.push_back(as(init, kind(arg)));
    auto vfor =
        b.create<scf::ForOp>(loc, map.lookupOrDefault(forOp.getLowerBound()),
                             map.lookupOrDefault(forOp.getUpperBound()),
                             map.lookupOrDefault(forOp.getStep()), inits);
    for (NamedAttribute attr : forOp->getDiscardableAttrs())
      vfor->setAttr(attr.getName(), attr.getValue());
    OpBuilder::InsertionGuard guard(b);
    Block *body = vfor.getBody();
    if (!body->empty())
      body->back().erase(); // the builder's empty yield
    b.setInsertionPointToEnd(body);
    map.map(forOp.getInductionVar(), vfor.getInductionVar());
    map.map(forOp.getRegionIterArgs(), vfor.getRegionIterArgs());
    if (failed(emitBlock(*forOp.getBody())))
      return failure();
    SmallVector<Value> yielded;
    for (auto [v, arg] :
         llvm::zip(forOp.getBody()->getTerminator()->getOperands(),
                   forOp.getRegionIterArgs()))
      yielded.push_back(as(v, kind(arg)));
    b.create<scf::YieldOp>(loc, yielded);
    map.map(forOp.getResults(), vfor.getResults());
    return success();
  }

  /// A loop whose condition varies runs while any active lane continues;
  /// a lane whose condition fails keeps its values.
  LogicalResult emitWhile(scf::WhileOp whileOp) {
    scf::ConditionOp cond = whileOp.getConditionOp();
    if (kind(cond.getCondition()) == Kind::Uniform)
      return whileOp.emitError("easyml-vectorize-cells: a loop that every "
                               "cell leaves together is not supported");
    SmallVector<Value> inits;
    SmallVector<Type> types;
    for (Value v : whileOp.getInits()) {
      inits.push_back(vec(v));
      types.push_back(inits.back().getType());
    }
    Type maskTy = mask.getType();
    SmallVector<Type> afterTypes(types);
    afterTypes.push_back(maskTy);
    Value entry = mask;
    LogicalResult status = success();
    auto vwhile = b.create<scf::WhileOp>(
        loc, afterTypes, inits,
        [&](OpBuilder &, Location l, ValueRange args) {
          map.map(whileOp.getBeforeArguments(), args);
          mask = entry;
          if (failed(emitBlock(whileOp.getBefore().front())))
            status = failure();
          Value lanes =
              b.create<arith::AndIOp>(l, vec(cond.getCondition()), entry);
          Value any = b.create<vector::ReductionOp>(
              l, vector::CombiningKind::OR, lanes);
          SmallVector<Value> forwarded;
          for (Value v : cond.getArgs())
            forwarded.push_back(vec(v));
          forwarded.push_back(lanes);
          b.create<scf::ConditionOp>(l, any, forwarded);
        },
        [&](OpBuilder &, Location l, ValueRange args) {
          map.map(whileOp.getAfterArguments(), args.drop_back());
          Value active = args.back();
          mask = active;
          if (failed(emitBlock(whileOp.getAfter().front())))
            status = failure();
          SmallVector<Value> kept;
          for (auto [v, old] :
               llvm::zip(whileOp.getYieldOp().getOperands(), args))
            kept.push_back(b.create<arith::SelectOp>(l, active, vec(v), old));
          b.create<scf::YieldOp>(l, kept);
        });
    mask = entry;
    map.map(whileOp.getResults(), vwhile.getResults().drop_back());
    return status;
  }

  scf::ParallelOp loop;
  const KindAnalysis &kinds;
  int64_t width;
  /// Whether full vectors get a copy of the body without masks.
  bool unmasked;
  OpBuilder b;
  Location loc;
  IRMapping map;
  /// The lanes the operations being written apply to.
  Value mask;
};

struct VectorizeCellsPass
    : public easyml::impl::VectorizeCellsBase<VectorizeCellsPass> {
  using VectorizeCellsBase::VectorizeCellsBase;

  void runOnOperation() override {
    SmallVector<std::pair<scf::ParallelOp, int64_t>> loops;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (!loop->hasAttr(easyml::kCellLoopAttr))
        return;
      auto fn = loop->getParentOfType<FunctionOpInterface>();
      auto variant = fn ? fn->getAttrOfType<easyml::VariantAttr>(
                              easyml::VariantAttr::getAttrName())
                        : easyml::VariantAttr();
      if (variant && !variant.isGpu() && variant.getWidth() > 1)
        loops.push_back({loop, variant.getWidth()});
    });
    for (auto [loop, width] : loops) {
      if (loop.getNumLoops() != 1 || loop.getNumReductions() != 0 ||
          !matchPattern(loop.getStep()[0], m_One())) {
        loop.emitError("easyml-vectorize-cells: a cell loop must be one "
                       "dimension with step 1 and no reductions");
        return signalPassFailure();
      }
      KindAnalysis kinds(loop);
      int64_t ops = 0;
      loop.getBody()->walk([&](Operation *) { ++ops; });
      bool unmasked = ops <= maxUnmaskedOps;
      if (failed(kinds.run()) ||
          failed(CellVectorizer(loop, kinds, width, unmasked).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
