//===- EasyMLToKernel.cpp - easyml.model to C-ABI kernels -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/EasyMLToKernel/ModelLayout.h"
#include "easyml/Conversion/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace easyml {
#define GEN_PASS_DEF_LOWERTOKERNELS
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {

/// Field numbers of easyml_kernel_args (runtime/include/easyml/Runtime/ABI.h).
enum ArgField {
  kBegin = 0,
  kEnd,
  kNSteps,
  kStep0,
  kDt,
  kStim,
  kIntegrateVm,
  kStride,
  kSv,
  kExt,
  kParams,
  kTables,
  kCounters,
  kOut
};

/// Emits the kernels of one model.
class KernelBuilder {
public:
  KernelBuilder(ModelOp model, ModuleOp module, StringRef variant)
      : model(model), module(module), variant(variant),
        layout(ModelLayout::get(model)), b(model.getContext()),
        loc(model.getLoc()) {
    ptrTy = LLVM::LLVMPointerType::get(b.getContext());
    f64 = b.getF64Type();
    i64 = b.getI64Type();
  }

  LogicalResult build() {
    if (variant != "baseline")
      return model.emitError("unknown variant '")
             << variant << "' (this pipeline generates: baseline)";
    if (!model.isExpanded())
      return model.emitError("model '")
             << model.getSymName()
             << "' must have its integrators expanded before lowering "
                "(run easyml-expand-integrators)";
    buildTables();
    buildInit();
    if (failed(buildStep(/*advance=*/true)) ||
        failed(buildStep(/*advance=*/false)))
      return failure();
    return success();
  }

private:
  //===--- Small IR helpers -------------------------------------------===//
  Value cI64(int64_t v) {
    return b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(v));
  }
  Value cF64(double v) {
    return b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(v));
  }
  Value gep(Value base, Type elem, Value index) {
    return b.create<LLVM::GEPOp>(loc, ptrTy, elem, base,
                                 ArrayRef<LLVM::GEPArg>{index});
  }
  Value gep(Value base, Type elem, int64_t index) {
    return b.create<LLVM::GEPOp>(
        loc, ptrTy, elem, base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
  }
  Value load(Type t, Value ptr) { return b.create<LLVM::LoadOp>(loc, t, ptr); }
  void store(Value v, Value ptr) { b.create<LLVM::StoreOp>(loc, v, ptr); }
  Value field(Value args, ArgField f, Type t) {
    return load(t, gep(args, i64, static_cast<int64_t>(f)));
  }
  Value mulI(Value x, Value y) { return b.create<arith::MulIOp>(loc, x, y); }
  Value addI(Value x, Value y) { return b.create<arith::AddIOp>(loc, x, y); }

  /// Increments counter `index` by one where `cond` holds.
  void countIf(Value cond, int index) {
    b.create<scf::IfOp>(loc, cond, [&](OpBuilder &bb, Location l) {
      Value ptr = bb.create<LLVM::GEPOp>(
          l, ptrTy, i64, counters,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
      Value one = bb.create<arith::ConstantOp>(l, bb.getI64IntegerAttr(1));
      bb.create<LLVM::AtomicRMWOp>(l, LLVM::AtomicBinOp::add, ptr, one,
                                   LLVM::AtomicOrdering::monotonic);
      bb.create<scf::YieldOp>(l);
    });
  }

  /// `bound` where `v <pred> bound`, counting those events; else `v`.
  Value clamp(Value v, double bound, arith::CmpFPredicate pred, int counter) {
    Value b0 = cF64(bound);
    Value beyond = b.create<arith::CmpFOp>(loc, pred, v, b0);
    countIf(beyond, counter);
    return b.create<arith::SelectOp>(loc, beyond, b0, v);
  }

  func::FuncOp startFunction(StringRef entry) {
    b.setInsertionPointToEnd(module.getBody());
    auto fn = b.create<func::FuncOp>(loc, layout.symbol(variant, entry),
                                     b.getFunctionType({ptrTy}, {}));
    Block *entryBlock = fn.addEntryBlock();
    b.setInsertionPointToStart(entryBlock);
    // The canonicalizer hoists constants of the init and compute regions to
    // the model's body: give every function its own copy.
    modelConstants.clear();
    for (Operation &op : model.getBody().front())
      if (op.hasTrait<OpTrait::ConstantLike>())
        b.clone(op, modelConstants);
    return fn;
  }

  /// Loads every parameter and flag once.
  void loadParams(Value args) {
    Value params = field(args, kParams, ptrTy);
    paramValues.clear();
    size_t n = layout.params.size() + layout.flags.size();
    for (size_t i = 0; i < n; ++i)
      paramValues.push_back(load(f64, gep(params, f64, i)));
  }

  Value paramValue(StringRef name) {
    int idx = layout.paramIndex(name);
    return idx < 0 ? Value() : paramValues[idx];
  }

  //===--- Tables -----------------------------------------------------===//
  void buildTables() {
    func::FuncOp fn = startFunction("tables");
    Value args = fn.getArgument(0);
    loadParams(args);
    Value dt = field(args, kDt, f64);
    Value tables = field(args, kTables, ptrTy);
    for (Operation &op : model.getBody().front()) {
      auto table = dyn_cast<TableOp>(op);
      if (!table || table.getBody().empty())
        continue;
      const ModelLayout::Table &t =
          layout.tables[layout.tableIndex(table.getVariable())];
      Value lo = cF64(t.lo), step = cF64(t.step);
      Value base = gep(tables, f64, t.offset);
      auto loop = b.create<scf::ForOp>(loc, cI64(0), cI64(t.rows), cI64(1));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value row = loop.getInductionVar();
      Value x = b.create<arith::AddFOp>(
          loc, lo,
          b.create<arith::MulFOp>(loc, b.create<arith::SIToFPOp>(loc, f64, row),
                                  step));
      IRMapping mapping;
      Block &body = table.getBody().front();
      mapping.map(body.getArgument(0), x);
      Value rowBase = gep(base, f64, mulI(row, cI64(t.columns)));
      for (Operation &inner : body) {
        if (auto get = dyn_cast<GetOp>(inner)) {
          mapping.map(get.getResult(), paramValue(get.getVar()));
        } else if (isa<TimeStepOp>(inner)) {
          mapping.map(inner.getResult(0), dt);
        } else if (auto yield = dyn_cast<YieldOp>(inner)) {
          for (auto [i, v] : llvm::enumerate(yield.getValues()))
            store(mapping.lookup(v), gep(rowBase, f64, i));
        } else {
          b.clone(inner, mapping);
        }
      }
    }
    b.create<func::ReturnOp>(loc);
  }

  //===--- Init -------------------------------------------------------===//
  /// Address of variable `idx` of the per-cell record of cell `cell`.
  Value svAddress(Value sv, Value cell, int64_t idx) {
    Value base = gep(sv, f64, mulI(cell, cI64(layout.svSize)));
    return gep(base, f64, idx);
  }

  void buildInit() {
    func::FuncOp fn = startFunction("init");
    Value args = fn.getArgument(0);
    loadParams(args);
    Value begin = field(args, kBegin, i64), end = field(args, kEnd, i64);
    Value sv = field(args, kSv, ptrTy);
    Value ext = field(args, kExt, ptrTy);
    SmallVector<Value> extPtrs;
    for (size_t j = 0; j < layout.externals.size(); ++j)
      extPtrs.push_back(load(ptrTy, gep(ext, ptrTy, j)));
    auto loop = b.create<scf::ForOp>(loc, begin, end, cI64(1));
    b.setInsertionPointToStart(loop.getBody());
    Value cell = loop.getInductionVar();
    for (const ModelLayout::Param &p : layout.params)
      if (p.nodal)
        store(paramValue(p.name), svAddress(sv, cell, p.svIndex));
    IRMapping mapping = modelConstants;
    for (Operation &op : model.getInitOp().getBody().front()) {
      if (auto get = dyn_cast<GetOp>(op)) {
        mapping.map(get.getResult(), paramValue(get.getVar()));
      } else if (auto iv = dyn_cast<InitValueOp>(op)) {
        Value v = mapping.lookup(iv.getValue());
        int s = layout.stateIndex(iv.getVar());
        if (s >= 0)
          store(v, svAddress(sv, cell, s));
        else if (int e = layout.externalIndex(iv.getVar()); e >= 0)
          store(v, gep(extPtrs[e], f64, cell));
      } else {
        b.clone(op, mapping);
      }
    }
    b.setInsertionPointAfter(loop);
    b.create<func::ReturnOp>(loc);
  }

  //===--- Lookups ----------------------------------------------------===//
  SmallVector<Value> interpolate(LookupOp lookup, Value x) {
    const ModelLayout::Table &t =
        layout.tables[layout.tableIndex(lookup.getTable())];
    double last = static_cast<double>(t.rows - 1);
    Value u = b.create<arith::MulFOp>(
        loc, b.create<arith::SubFOp>(loc, x, cF64(t.lo)), cF64(1.0 / t.step));
    // Out of range, or NaN: count it, clamp to the edge rows.
    Value below =
        b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::ULT, u, cF64(0.0));
    Value above =
        b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UGT, u, cF64(last));
    countIf(b.create<arith::OrIOp>(loc, below, above), t.counter);
    Value uc = b.create<arith::MinNumFOp>(
        loc, b.create<arith::MaxNumFOp>(loc, u, cF64(0.0)), cF64(last));
    Value idx = b.create<arith::FPToSIOp>(loc, i64, uc);
    idx = b.create<arith::MinSIOp>(loc, idx,
                                   cI64(std::max<int64_t>(0, t.rows - 2)));
    Value w = b.create<arith::SubFOp>(loc, uc,
                                      b.create<arith::SIToFPOp>(loc, f64, idx));
    Value row =
        gep(tablesPtr, f64, addI(cI64(t.offset), mulI(idx, cI64(t.columns))));
    Value nextRow = gep(row, f64, t.columns);
    SmallVector<Value> results;
    for (int64_t c = 0; c < t.columns; ++c) {
      Value a = load(f64, gep(row, f64, c));
      Value d = load(f64, gep(nextRow, f64, c));
      results.push_back(b.create<arith::AddFOp>(
          loc, a,
          b.create<arith::MulFOp>(loc, w, b.create<arith::SubFOp>(loc, d, a))));
    }
    return results;
  }

  //===--- Compute and eval -------------------------------------------===//
  /// Emits one model step at the builder's position. `stateVals` are the
  /// old states, `extVals` the externals; returns the new states, the
  /// outputs per external (null where not written) and the traced values.
  struct StepResult {
    SmallVector<Value> states, outputs, traces;
  };
  StepResult emitStep(ArrayRef<Value> stateVals, ArrayRef<Value> nodalVals,
                      ArrayRef<Value> extVals, Value t, Value dt,
                      bool advance) {
    StepResult r;
    r.states.assign(stateVals.begin(), stateVals.end());
    r.outputs.resize(layout.externals.size());
    IRMapping mapping = modelConstants;
    for (Operation &op : model.getComputeOp().getBody().front()) {
      if (auto get = dyn_cast<GetOp>(op)) {
        StringRef n = get.getVar();
        Value v;
        if (int s = layout.stateIndex(n); s >= 0)
          v = stateVals[s];
        else if (int e = layout.externalIndex(n); e >= 0)
          v = extVals[e];
        else if (int p = layout.paramIndex(n); p >= 0)
          v = (p < (int)layout.params.size() && layout.params[p].nodal)
                  ? nodalVals[p]
                  : paramValues[p];
        mapping.map(get.getResult(), v);
      } else if (isa<TimeOp>(op)) {
        mapping.map(op.getResult(0), t);
      } else if (isa<TimeStepOp>(op)) {
        mapping.map(op.getResult(0), dt);
      } else if (auto lookup = dyn_cast<LookupOp>(op)) {
        auto vals = interpolate(lookup, mapping.lookup(lookup.getInput()));
        for (auto [res, v] : llvm::zip(lookup.getResults(), vals))
          mapping.map(res, v);
      } else if (auto next = dyn_cast<NextOp>(op)) {
        if (advance)
          r.states[layout.stateIndex(next.getState())] =
              mapping.lookup(next.getValue());
      } else if (auto out = dyn_cast<OutputOp>(op)) {
        r.outputs[layout.externalIndex(out.getVar())] =
            mapping.lookup(out.getValue());
      } else if (auto trace = dyn_cast<TraceOp>(op)) {
        r.traces.push_back(mapping.lookup(trace.getValue()));
      } else if (!advance && op.getNumRegions()) {
        // Integrator loops do not contribute to outputs.
        continue;
      } else {
        b.clone(op, mapping);
      }
    }
    if (advance)
      for (auto [i, s] : llvm::enumerate(layout.states)) {
        Value v = r.states[i];
        if (s.lb)
          v = clamp(v, *s.lb, arith::CmpFPredicate::OLT, s.lbCounter);
        if (s.ub)
          v = clamp(v, *s.ub, arith::CmpFPredicate::OGT, s.ubCounter);
        r.states[i] = v;
      }
    return r;
  }

  LogicalResult buildStep(bool advance) {
    func::FuncOp fn = startFunction(advance ? "compute" : "eval");
    Value args = fn.getArgument(0);
    loadParams(args);
    Value begin = field(args, kBegin, i64), end = field(args, kEnd, i64);
    Value nsteps = field(args, kNSteps, i64), step0 = field(args, kStep0, i64);
    Value dt = field(args, kDt, f64), stim = field(args, kStim, f64);
    Value integrate = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ne, field(args, kIntegrateVm, i64), cI64(0));
    Value sv = field(args, kSv, ptrTy), ext = field(args, kExt, ptrTy);
    tablesPtr = field(args, kTables, ptrTy);
    counters = field(args, kCounters, ptrTy);
    Value out = field(args, kOut, ptrTy);
    SmallVector<Value> extPtrs;
    for (size_t j = 0; j < layout.externals.size(); ++j)
      extPtrs.push_back(load(ptrTy, gep(ext, ptrTy, j)));
    size_t ns = layout.states.size(), ne = layout.externals.size();
    int vm = layout.vmIndex, iion = layout.iionIndex;

    auto cellLoop = b.create<scf::ForOp>(loc, begin, end, cI64(1));
    b.setInsertionPointToStart(cellLoop.getBody());
    Value cell = cellLoop.getInductionVar();
    SmallVector<Value> x, nodal(layout.params.size()), e;
    for (size_t i = 0; i < ns; ++i)
      x.push_back(load(f64, svAddress(sv, cell, i)));
    for (auto [i, p] : llvm::enumerate(layout.params))
      if (p.nodal)
        nodal[i] = load(f64, svAddress(sv, cell, p.svIndex));
    for (size_t j = 0; j < ne; ++j)
      e.push_back(load(f64, gep(extPtrs[j], f64, cell)));

    if (!advance) {
      Value t = b.create<arith::MulFOp>(
          loc, b.create<arith::SIToFPOp>(loc, f64, step0), dt);
      StepResult r = emitStep(x, nodal, e, t, dt, /*advance=*/false);
      for (size_t j = 0; j < ne; ++j)
        if (r.outputs[j])
          store(r.outputs[j], gep(extPtrs[j], f64, cell));
      if (!r.traces.empty()) {
        Value base = gep(out, f64, mulI(cell, cI64(r.traces.size())));
        for (auto [k, v] : llvm::enumerate(r.traces))
          store(v, gep(base, f64, k));
      }
    } else {
      SmallVector<Value> iter(x);
      iter.append(e);
      auto stepLoop = b.create<scf::ForOp>(loc, cI64(0), nsteps, cI64(1), iter);
      b.setInsertionPointToStart(stepLoop.getBody());
      Value k = stepLoop.getInductionVar();
      auto carried = stepLoop.getRegionIterArgs();
      SmallVector<Value> xs(carried.begin(), carried.begin() + ns);
      SmallVector<Value> es(carried.begin() + ns, carried.end());
      Value t = b.create<arith::MulFOp>(
          loc, b.create<arith::SIToFPOp>(loc, f64, addI(step0, k)), dt);
      if (vm >= 0) {
        Value stimulated = b.create<arith::AddFOp>(
            loc, es[vm], b.create<arith::MulFOp>(loc, stim, dt));
        es[vm] = b.create<arith::SelectOp>(loc, integrate, stimulated, es[vm]);
      }
      StepResult r = emitStep(xs, nodal, es, t, dt, /*advance=*/true);
      SmallVector<Value> yielded(r.states);
      for (size_t j = 0; j < ne; ++j)
        yielded.push_back(r.outputs[j] ? r.outputs[j] : es[j]);
      if (vm >= 0 && iion >= 0) {
        Value v = yielded[ns + vm];
        Value integrated = b.create<arith::SubFOp>(
            loc, v, b.create<arith::MulFOp>(loc, yielded[ns + iion], dt));
        yielded[ns + vm] =
            b.create<arith::SelectOp>(loc, integrate, integrated, v);
      }
      b.create<scf::YieldOp>(loc, yielded);
      b.setInsertionPointAfter(stepLoop);
      for (size_t i = 0; i < ns; ++i)
        store(stepLoop.getResult(i), svAddress(sv, cell, i));
      for (size_t j = 0; j < ne; ++j)
        if (layout.externals[j].access != Access::read || (int)j == vm)
          store(stepLoop.getResult(ns + j), gep(extPtrs[j], f64, cell));
    }
    b.setInsertionPointAfter(cellLoop);
    b.create<func::ReturnOp>(loc);
    return success();
  }

  ModelOp model;
  ModuleOp module;
  std::string variant;
  ModelLayout layout;
  OpBuilder b;
  Location loc;
  Type ptrTy, f64, i64;
  SmallVector<Value> paramValues;
  Value tablesPtr, counters;
  IRMapping modelConstants;
};

struct LowerToKernelsPass
    : public easyml::impl::LowerToKernelsBase<LowerToKernelsPass> {
  using LowerToKernelsBase::LowerToKernelsBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ModelOp> models(module.getOps<ModelOp>());
    for (ModelOp model : models) {
      KernelBuilder builder(model, module, variant);
      if (failed(builder.build()))
        return signalPassFailure();
      model.erase();
    }
  }
};

} // namespace
