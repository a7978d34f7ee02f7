//===- StepEmitter.cpp - the compute and eval entry points ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// `compute` advances the cells in [begin, end) by `nsteps` steps: per cell,
// a loop over the steps carries the states, externals and hidden values;
// around each model step come the stimulus and the integration of Vm, and
// the markers of samples (RecordingEmitter.cpp) and biomarker updates;
// clamps and table lookups out of range are counted, and so are the cells
// left non-finite. `eval` computes the outputs and traces of the current
// states once.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

LogicalResult KernelBuilder::buildStep(bool advance) {
  Value args = startFunction(advance ? "compute" : "eval");
  loadParams(args);
  StepArgs a = loadStepArgs(args, advance);
  if (paramRows.empty() || target.isGpu() || target.getWidth() == 1 ||
      !advance) {
    if (failed(buildCellLoop(a, advance)))
      return failure();
    finishFunction();
    return success();
  }
  // On the CPU a call without per-cell rows (a tissue, a run without a
  // population) gets a cell loop of its own, whose parameters are the
  // shared values: no test per parameter and cell, and the derived values
  // computed once.
  Value rows = field(args, kParamRows, ptrTy);
  Value given = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, rows,
                                       b.create<LLVM::ZeroOp>(loc, ptrTy));
  auto ifOp = b.create<scf::IfOp>(loc, TypeRange{}, given, /*withElse=*/true);
  b.setInsertionPointToStart(ifOp.thenBlock());
  if (failed(buildCellLoop(a, advance)))
    return failure();
  b.setInsertionPointToStart(ifOp.elseBlock());
  SmallVector<Value> rowsGiven = std::move(paramRows);
  paramRows.clear();
  LogicalResult shared = buildCellLoop(a, advance);
  paramRows = std::move(rowsGiven);
  if (failed(shared))
    return failure();
  finishFunction();
  return success();
}

LogicalResult KernelBuilder::buildCellLoop(const StepArgs &a, bool advance) {
  hoistDerived(a.dt);
  Value cell = openCellLoop(a.begin, a.end);
  CellValues c = loadCellValues(cell, a);
  return advance ? emitStepLoop(a, cell, c) : emitEval(a, cell, c);
}

KernelBuilder::StepArgs KernelBuilder::loadStepArgs(Value args, bool advance) {
  StepArgs a;
  a.args = args;
  a.begin = field(args, kBegin, i64);
  a.end = field(args, kEnd, i64);
  a.nsteps = field(args, kNSteps, i64);
  a.step0 = field(args, kStep0, i64);
  a.dt = field(args, kDt, f64);
  a.stim = field(args, kStim, f64);
  a.gridDt = a.dt;
  stepSpanned = Value();
  if (advance && layout.wholeCellVm >= 0)
    spanOneInterval(args, a);
  a.integrate = b.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::ne, field(args, kIntegrateVm, i64), cI64(0));
  stride = field(args, kStride, i64);
  a.svPtr = pointerField(args, kSv);
  a.ext = pointerField(args, kExt);
  a.sv = svView(a.svPtr, stride);
  tablesPtr = pointerField(args, kTables);
  counters = pointerField(args, kCounters);
  a.out = pointerField(args, kOut);
  if (advance) {
    loadRecording(args);
    if (layout.vmIndex >= 0)
      a.vmBefore = field(args, kVmBefore, ptrTy);
  }
  a.extViews = externalViews(a.ext);
  return a;
}

/// A model that integrates Vm itself crosses the call's steps as one
/// interval where the runtime asks (ABI `one_interval`): one step of
/// nsteps * dt, its sub-steps its own.
void KernelBuilder::spanOneInterval(Value args, StepArgs &a) {
  Value one = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                      field(args, kOneInterval, i64), cI64(0));
  Value steps = b.create<arith::SIToFPOp>(loc, f64, a.nsteps);
  Value span = b.create<arith::MulFOp>(loc, steps, a.dt);
  a.dt = b.create<arith::SelectOp>(loc, one, span, a.dt);
  stepSpanned = b.create<arith::SelectOp>(
      loc, one, b.create<arith::MaxNumFOp>(loc, steps, cF64(1.0)), cF64(1.0));
  a.nsteps = b.create<arith::SelectOp>(
      loc, one, b.create<arith::MinSIOp>(loc, a.nsteps, cI64(1)), a.nsteps);
}

KernelBuilder::CellValues KernelBuilder::loadCellValues(Value cell,
                                                        const StepArgs &a) {
  stepSv = a.sv;
  stepCell = cell;
  loadCellParams(cell, paramsReadBy(model.getComputeOp().getBody()));
  CellValues c;
  c.nodal.resize(layout.params.size());
  for (size_t i = 0; i < layout.states.size(); ++i)
    c.states.push_back(loadCell(a.sv, cell, i));
  for (auto [i, p] : llvm::enumerate(layout.params))
    if (p.nodal)
      c.nodal[i] = loadCell(a.sv, cell, p.svIndex);
  for (size_t i = 0; i < layout.hidden.size(); ++i)
    c.hidden.push_back(layout.hiddenInPlace[i]
                           ? Value()
                           : loadCell(a.sv, cell, layout.svSize + i));
  for (size_t j = 0; j < layout.externals.size(); ++j)
    c.exts.push_back(loadOne(a.extViews[j], cell));
  return c;
}

LogicalResult KernelBuilder::emitEval(const StepArgs &a, Value cell,
                                      const CellValues &c) {
  Value t = b.create<arith::MulFOp>(
      loc, b.create<arith::SIToFPOp>(loc, f64, a.step0), a.dt);
  SmallVector<Value> states(c.states);
  if (layout.wholeCellVm >= 0 && layout.vmIndex >= 0)
    states[layout.wholeCellVm] = c.exts[layout.vmIndex];
  auto r = emitStep(states, c.nodal, c.hidden, c.exts, t, a.dt,
                    /*advance=*/false);
  if (failed(r))
    return failure();
  for (size_t j = 0; j < layout.externals.size(); ++j)
    if (r->outputs[j])
      storeOne(r->outputs[j], a.extViews[j], cell);
  Value outs = outView(a.out, r->traces.size());
  for (auto [k, v] : llvm::enumerate(r->traces))
    storeCell(v, outs, cell, k);
  return success();
}

LogicalResult KernelBuilder::emitStepLoop(const StepArgs &a, Value cell,
                                          const CellValues &c) {
  size_t ns = layout.states.size(), ne = layout.externals.size();
  int vm = layout.vmIndex, iion = layout.iionIndex;
  Value dt = a.dt;
  // Carried from step to step: states, externals, hidden values.
  SmallVector<Value> iter(c.states);
  iter.append(c.exts);
  for (Value h : c.hidden)
    if (h)
      iter.push_back(h);
  if (vm >= 0)
    storeVmBefore(a, cell, c.exts[vm]);
  auto stepLoop = b.create<scf::ForOp>(loc, cI64(0), a.nsteps, cI64(1), iter);
  b.setInsertionPointToStart(stepLoop.getBody());
  Value k = stepLoop.getInductionVar();
  auto carried = stepLoop.getRegionIterArgs();
  SmallVector<Value> xs(carried.begin(), carried.begin() + ns);
  SmallVector<Value> es(carried.begin() + ns, carried.begin() + ns + ne);
  SmallVector<Value> hs;
  auto carriedHidden = carried.begin() + ns + ne;
  for (Value h : c.hidden)
    hs.push_back(h ? Value(*carriedHidden++) : Value());
  int whole = layout.wholeCellVm;
  // A whole-cell model integrates Vm itself, from the simulator's value
  // (which diffusion or a restore may have changed since the last step),
  // with the stimulus as a current over the step.
  if (whole >= 0 && vm >= 0)
    xs[whole] = es[vm];
  Value s = addI(a.step0, k);
  // Samples inside the wave: the state at the start of step s (Vm
  // before the stimulus, Iion of the step before), as a simulator that
  // stopped here would see it.
  if (failed(emitRecord(s, cell, xs, c.nodal, hs, es, dt)))
    return failure();
  Value t = b.create<arith::MulFOp>(loc, b.create<arith::SIToFPOp>(loc, f64, s),
                                    a.gridDt);
  Value vmBefore = vm >= 0 ? es[vm] : Value();
  stepStim = whole >= 0 ? b.create<arith::SelectOp>(loc, a.integrate, a.stim,
                                                    cF64(0.0))
                        : Value();
  stepVmFree = whole >= 0 ? b.create<arith::SelectOp>(loc, a.integrate,
                                                      cF64(1.0), cF64(0.0))
                          : Value();
  if (vm >= 0 && whole < 0) {
    Value stimulated = b.create<arith::AddFOp>(
        loc, es[vm], b.create<arith::MulFOp>(loc, a.stim, dt));
    es[vm] = b.create<arith::SelectOp>(loc, a.integrate, stimulated, es[vm]);
  }
  auto r = emitStep(xs, c.nodal, hs, es, t, dt, /*advance=*/true);
  if (failed(r))
    return failure();
  for (auto [h, counter] : layout.forcedCounters)
    if (r->hidden[h])
      countIf(b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT,
                                      r->hidden[h], cF64(0.0)),
              counter);
  SmallVector<Value> yielded(r->states);
  for (size_t j = 0; j < ne; ++j)
    yielded.push_back(r->outputs[j] ? r->outputs[j] : es[j]);
  if (whole >= 0 && vm >= 0) {
    yielded[ns + vm] = r->states[whole];
  } else if (vm >= 0 && iion >= 0) {
    Value v = yielded[ns + vm];
    Value integrated = b.create<arith::SubFOp>(
        loc, v, b.create<arith::MulFOp>(loc, yielded[ns + iion], dt));
    yielded[ns + vm] =
        b.create<arith::SelectOp>(loc, a.integrate, integrated, v);
  }
  // The biomarkers of the step that took Vm from before the stimulus to
  // its new value (easyml-lower-biomarkers).
  if (vm >= 0) {
    SmallVector<Value> ex = vmExtrema(r->hidden);
    b.create<UpdateBiomarkersOp>(
        loc, a.args, s, cell, dt, vmBefore, yielded[ns + vm],
        ex.empty() ? Value() : ex[0], ex.empty() ? Value() : ex[1],
        ex.empty() ? Value() : ex[2], ex.empty() ? Value() : ex[3],
        ArrayRef<Value>(yielded).take_front(ns));
  }
  for (auto [h, v] : llvm::zip(c.hidden, r->hidden))
    if (h)
      yielded.push_back(v);
  b.create<scf::YieldOp>(loc, yielded);
  b.setInsertionPointAfter(stepLoop);
  storeAfterSteps(a, cell, stepLoop.getResults(), c.hidden);
  // Every variant counts the cells it leaves non-finite, so the
  // runtime learns of a blow-up without scanning the states.
  countNonFinite(stepLoop.getResults());
  return success();
}

void KernelBuilder::storeVmBefore(const StepArgs &a, Value cell, Value vm) {
  Value given = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, a.vmBefore,
                                       b.create<LLVM::ZeroOp>(loc, ptrTy));
  auto ifOp = b.create<scf::IfOp>(loc, TypeRange{}, given, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  storeOne(vm, cellsView(hostGiven(a.vmBefore)), cell);
}

/// Vm's extremes within the step that a whole-cell model's adaptive
/// integrator leaves in its hidden values (peak, its time, largest dVm/dt,
/// its time), or none.
SmallVector<Value> KernelBuilder::vmExtrema(ArrayRef<Value> hidden) {
  SmallVector<Value> found;
  for (StringRef what : {"vm_peak", "t_vm_peak", "dvdt_max", "t_dvdt_max"}) {
    int k = layout.hiddenIndex(("cvode." + what + ".0").str());
    if (k < 0 || !hidden[k])
      return {};
    found.push_back(hidden[k]);
  }
  return found;
}

void KernelBuilder::storeAfterSteps(const StepArgs &a, Value cell,
                                    ValueRange results,
                                    ArrayRef<Value> hidden) {
  size_t ns = layout.states.size(), ne = layout.externals.size();
  Value sv = a.sv;
  SmallVector<Value> extViews = a.extViews;
  if (entry->recomputesAddressesAfterSteps()) {
    // The addresses of the cell's rows are recomputed after the step
    // loop rather than kept from before it: held through the loop they
    // cost two registers each (the optimisers would merge the two
    // computations, so the second starts from opaque copies).
    cell = entry->keepLocal(b, loc, cell);
    stride = entry->keepLocal(b, loc, stride);
    sv = svView(a.svPtr, stride);
    extViews = externalViews(a.ext);
  }
  for (size_t i = 0; i < ns; ++i)
    storeCell(results[i], sv, cell, i);
  for (size_t j = 0; j < ne; ++j)
    if (layout.externals[j].access != Access::read ||
        static_cast<int>(j) == layout.vmIndex)
      storeOne(results[ns + j], extViews[j], cell);
  for (size_t i = 0, k = ns + ne; i < hidden.size(); ++i)
    if (hidden[i])
      storeCell(results[k++], sv, cell, layout.svSize + i);
}

FailureOr<KernelBuilder::StepResult>
KernelBuilder::emitStep(ArrayRef<Value> stateVals, ArrayRef<Value> nodalVals,
                        ArrayRef<Value> hiddenVals, ArrayRef<Value> extVals,
                        Value t, Value dt, bool advance) {
  StepResult r;
  r.states.assign(stateVals.begin(), stateVals.end());
  r.hidden.assign(hiddenVals.begin(), hiddenVals.end());
  r.outputs.resize(layout.externals.size());
  IRMapping mapping = modelConstants;
  // An evaluation skips integrator loops and branches, and what is
  // computed from them on the way to new states and hidden values.
  llvm::DenseSet<Value> skipped;
  for (Operation &op : model.getComputeOp().getBody().front()) {
    if (!advance && (op.getNumRegions() ||
                     llvm::any_of(op.getOperands(), [&](Value v) {
                       return skipped.contains(v);
                     }))) {
      if (isa<OutputOp, TraceOp>(op))
        return op.emitError("easyml-lower-to-kernels: a value computed "
                            "in a region feeds '")
               << op.getName() << "' (only new states and hidden values may)";
      skipped.insert(op.getResults().begin(), op.getResults().end());
      continue;
    }
    // A derived value the kernel takes by value: a constant-bank operand
    // instead of a computation (whose inputs fold away unused).
    if (!derivedValues.empty() && op.getNumResults() == 1)
      if (auto it = derivedIndex.find(op.getResult(0));
          it != derivedIndex.end()) {
        mapping.map(op.getResult(0), derivedValues[it->second]);
        continue;
      }
    if (op.getNumResults() == 1 && hoisted.count(op.getResult(0))) {
      mapping.map(op.getResult(0), hoistedOrPerCell(op.getResult(0), mapping));
      continue;
    }
    if (auto get = dyn_cast<GetOp>(op)) {
      StringRef n = get.getVar();
      Value v;
      if (int s = layout.stateIndex(n); s >= 0)
        v = stateVals[s];
      else if (int h = layout.hiddenIndex(n); h >= 0)
        v = hiddenVals[h];
      else if (int e = layout.externalIndex(n); e >= 0)
        v = extVals[e];
      else if (int p = layout.paramIndex(n); p >= 0)
        v = (p < (int)layout.params.size() && layout.params[p].nodal)
                ? nodalVals[p]
                : cellParamValue(n);
      mapping.map(get.getResult(), v);
    } else if (isa<TimeOp>(op)) {
      mapping.map(op.getResult(0), t);
    } else if (isa<TimeStepOp>(op)) {
      mapping.map(op.getResult(0), dt);
    } else if (isa<StepsSpannedOp>(op)) {
      mapping.map(op.getResult(0),
                  advance && stepSpanned ? stepSpanned : cF64(1.0));
    } else if (isa<StimulusOp, VmFreeOp>(op)) {
      // Only a step of a whole-cell model reads them; an evaluation moves
      // nothing.
      Value v = isa<StimulusOp>(op) ? stepStim : stepVmFree;
      mapping.map(op.getResult(0), advance && v ? v : cF64(0.0));
    } else if (auto lookup = dyn_cast<LookupOp>(op)) {
      auto vals = interpolate(lookup, mapping.lookup(lookup.getInput()));
      for (auto [res, v] : llvm::zip(lookup.getResults(), vals))
        mapping.map(res, v);
    } else if (auto next = dyn_cast<NextOp>(op)) {
      if (!advance)
        continue;
      Value v = mapping.lookup(next.getValue());
      if (int h = layout.hiddenIndex(next.getState()); h >= 0)
        r.hidden[h] = v;
      else
        r.states[layout.stateIndex(next.getState())] = v;
    } else if (auto out = dyn_cast<OutputOp>(op)) {
      r.outputs[layout.externalIndex(out.getVar())] =
          mapping.lookup(out.getValue());
    } else if (auto trace = dyn_cast<TraceOp>(op)) {
      r.traces.push_back(mapping.lookup(trace.getValue()));
    } else if (!advance && isa<HiddenStoreOp>(op)) {
      continue; // an evaluation leaves the cell as it is
    } else {
      Operation *copy = b.clone(op, mapping);
      lowerInPlaceHidden(copy);
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

void KernelBuilder::lowerInPlaceHidden(Operation *root) {
  SmallVector<Operation *> accesses;
  root->walk([&](Operation *op) {
    if (isa<HiddenLoadOp, HiddenStoreOp>(op))
      accesses.push_back(op);
  });
  OpBuilder::InsertionGuard guard(b);
  for (Operation *op : accesses) {
    b.setInsertionPoint(op);
    if (auto load = dyn_cast<HiddenLoadOp>(op)) {
      int64_t row = layout.svSize + layout.hiddenIndex(load.getVar());
      load.getResult().replaceAllUsesWith(loadCell(stepSv, stepCell, row));
    } else {
      auto store = cast<HiddenStoreOp>(op);
      int64_t row = layout.svSize + layout.hiddenIndex(store.getVar());
      storeCell(store.getValue(), stepSv, stepCell, row);
    }
    op->erase();
  }
}

SmallVector<Value> KernelBuilder::interpolate(LookupOp lookup, Value x) {
  const ModelLayout::Table &t =
      layout.tables[layout.tableIndex(lookup.getTable())];
  auto c = [&](double v) { return cF64(v); };
  double last = static_cast<double>(t.rows - 1);
  Value u = b.create<arith::MulFOp>(
      loc, b.create<arith::SubFOp>(loc, x, c(t.lo)), c(1.0 / t.step));
  // Out of range, or NaN: count it, clamp to the edge rows.
  Value below =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::ULT, u, c(0.0));
  Value above =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UGT, u, c(last));
  countIf(b.create<arith::OrIOp>(loc, below, above), t.counter);
  Value uc = b.create<arith::MinNumFOp>(
      loc, b.create<arith::MaxNumFOp>(loc, u, c(0.0)), c(last));
  Value idx = b.create<arith::FPToSIOp>(loc, i64, uc);
  idx = b.create<arith::MinSIOp>(loc, idx,
                                 cI64(std::max<int64_t>(0, t.rows - 2)));
  Value w = b.create<arith::SubFOp>(loc, uc,
                                    b.create<arith::SIToFPOp>(loc, f64, idx));
  Value row = addI(cI64(t.offset), mulI(idx, cI64(t.columns)));
  SmallVector<Value> results;
  for (int64_t col = 0; col < t.columns; ++col) {
    Value a = loadTableEntry(row, col);
    Value d = loadTableEntry(row, t.columns + col);
    results.push_back(b.create<arith::AddFOp>(
        loc, a,
        b.create<arith::MulFOp>(loc, w, b.create<arith::SubFOp>(loc, d, a))));
  }
  return results;
}

Value KernelBuilder::loadTableEntry(Value rowIndex, int64_t c) {
  Value index = addI(rowIndex, cI64(c));
  return loadReadOnly(f64, gep(tablesPtr, f64, index));
}

Value KernelBuilder::clamp(Value v, double bound, arith::CmpFPredicate pred,
                           int counter) {
  Value b0 = cF64(bound);
  Value beyond = b.create<arith::CmpFOp>(loc, pred, v, b0);
  countIf(beyond, counter);
  return b.create<arith::SelectOp>(loc, beyond, b0, v);
}

void KernelBuilder::countIf(Value cond, int index) {
  b.create<scf::IfOp>(loc, cond, [&](OpBuilder &bb, Location l) {
    Value ptr = bb.create<LLVM::GEPOp>(
        l, counters.getType(), i64, counters,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
    bb.create<LLVM::AtomicRMWOp>(
        l, LLVM::AtomicBinOp::add, ptr,
        bb.create<arith::ConstantOp>(l, bb.getI64IntegerAttr(1)),
        LLVM::AtomicOrdering::monotonic);
    bb.create<scf::YieldOp>(l);
  });
}

void KernelBuilder::countNonFinite(ValueRange values) {
  Value inf = cF64(std::numeric_limits<double>::infinity());
  Value bad;
  for (Value v : values) {
    // |v| >= inf, or unordered (NaN).
    Value notFinite = b.create<arith::CmpFOp>(
        loc, arith::CmpFPredicate::UGE, b.create<math::AbsFOp>(loc, v), inf);
    bad = bad ? b.create<arith::OrIOp>(loc, bad, notFinite) : notFinite;
  }
  if (bad)
    countIf(bad, layout.counters.size());
}
