//===- KernelBuilder.cpp - entry points, parameters, cell storage ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What every entry point shares: the function itself (made by the
// EntryStrategy), the parameters loaded once per call and per cell, views of
// the per-cell storage, and the loop over the cells.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

KernelBuilder::KernelBuilder(ModelOp model, ModuleOp module, VariantAttr target,
                             ArrayRef<std::string> perCellParams)
    : model(model), module(module), target(target), variant(target.getName()),
      soa(target.getLayout() == CellLayout::soa),
      layout(ModelLayout::get(model)),
      entry(EntryStrategy::create(module, target, layout)),
      b(model.getContext()), loc(model.getLoc()) {
  ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  f64 = b.getF64Type();
  i64 = b.getI64Type();
  rowCapable = entry->paramsPerCell(layout, perCellParams);
  // Kernels that take the parameters by value take the derived values
  // too, except those that read a parameter the kernels read per cell.
  if (entry->takesParamsByValue()) {
    ModelLayout::Derived d = ModelLayout::findDerived(model);
    llvm::DenseSet<Operation *> perCell;
    // A model that integrates Vm itself may be given a wave of steps as
    // one interval (ABI one_interval), its dt their total: what depends on
    // dt is computed in the kernel, not by the host for the grid's dt.
    const bool spannedDt = layout.wholeCellVm >= 0;
    for (Operation *op : d.ops) {
      auto get = dyn_cast<GetOp>(op);
      int p = get ? layout.paramIndex(get.getVar()) : -1;
      if ((spannedDt && isa<TimeStepOp>(op)) || (p >= 0 && rowCapable[p]) ||
          llvm::any_of(op->getOperands(), [&](Value v) {
            return perCell.contains(v.getDefiningOp());
          }))
        perCell.insert(op);
    }
    for (auto [k, v] : llvm::enumerate(d.values))
      if (!perCell.contains(v.getDefiningOp()))
        derivedIndex[v] = static_cast<int>(k);
  }
}

LogicalResult KernelBuilder::build(bool withTables) {
  if (!model.isExpanded())
    return model.emitError("model '")
           << model.getSymName()
           << "' must have its integrators expanded before lowering "
              "(run easyml-expand-integrators)";
  entry->prepareModule(b, loc);
  if (withTables) {
    // Tables and derived values are built on the host, by a CPU variant.
    assert(!target.isGpu() && "host entries from a GPU variant");
    buildTables();
    buildDerived();
  }
  if (failed(buildInit()))
    return failure();
  if (failed(buildStep(/*advance=*/true)) ||
      failed(buildStep(/*advance=*/false)))
    return failure();
  buildDiffuse();
  return success();
}

Value KernelBuilder::view(Value ptr, ArrayRef<Value> sizes,
                          ArrayRef<Value> strides) {
  return memoryView(b, loc, ptr, sizes, strides, entry->memorySpace(b));
}

Value KernelBuilder::svView(Value sv, Value rowStride) {
  if (soa)
    return view(sv, {cI64(layout.svRows), rowStride}, {rowStride});
  return view(sv, {rowStride, cI64(layout.svRows)}, {cI64(layout.svRows)});
}

Value KernelBuilder::outView(Value out, int64_t numTraces) {
  if (soa)
    return view(out, {cI64(numTraces), stride}, {stride});
  return view(out, {stride, cI64(numTraces)}, {cI64(numTraces)});
}

SmallVector<Value> KernelBuilder::cellIndices(Value cell, int64_t idx) {
  Value i = b.create<arith::ConstantIndexOp>(loc, idx);
  if (soa)
    return {i, toIndex(cell)};
  return {toIndex(cell), i};
}

SmallVector<Value> KernelBuilder::externalViews(Value ext) {
  SmallVector<Value> views;
  for (size_t j = 0; j < layout.externals.size(); ++j)
    views.push_back(cellsView(hostGiven(load(ptrTy, gep(ext, ptrTy, j)))));
  return views;
}

Value KernelBuilder::startFunction(StringRef name) {
  derivedValues.clear();
  EntryFunction fn =
      entry->createFunction(b, loc, layout.symbol(variant, name));
  functionEntry = fn.block;
  paramsArg = fn.params;
  b.setInsertionPointToStart(fn.block);
  // The canonicalizer hoists constants of the init and compute regions to
  // the model's body: give every function its own copy.
  modelConstants.clear();
  for (Operation &op : model.getBody().front())
    if (op.hasTrait<OpTrait::ConstantLike>())
      b.clone(op, modelConstants);
  return fn.args;
}

void KernelBuilder::finishFunction() {
  b.setInsertionPointToEnd(functionEntry);
  entry->createReturn(b, loc);
}

void KernelBuilder::loadParams(Value args, bool withRows) {
  paramValues.clear();
  paramRows.clear();
  size_t n = layout.params.size() + layout.flags.size();
  if (paramsArg) {
    for (size_t i = 0; i < n; ++i)
      paramValues.push_back(b.create<LLVM::ExtractValueOp>(
          loc, paramsArg, ArrayRef<int64_t>{static_cast<int64_t>(i)}));
    derivedValues.clear();
    for (int64_t k = 0; k < layout.numDerived; ++k)
      derivedValues.push_back(b.create<LLVM::ExtractValueOp>(
          loc, paramsArg, ArrayRef<int64_t>{static_cast<int64_t>(n) + k}));
  } else {
    Value params = pointerField(args, kParams);
    for (size_t i = 0; i < n; ++i)
      paramValues.push_back(load(f64, gep(params, f64, i)));
  }
  if (!withRows || !llvm::is_contained(rowCapable, true))
    return;
  Value rows = field(args, kParamRows, ptrTy);
  Value null = b.create<LLVM::ZeroOp>(loc, ptrTy);
  Value given =
      b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, rows, null);
  SmallVector<Type> types(n, ptrTy);
  auto ifOp = b.create<scf::IfOp>(loc, types, given, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value table = hostGiven(rows);
    SmallVector<Value> loaded;
    for (size_t i = 0; i < n; ++i)
      loaded.push_back(rowCapable[i] ? load(ptrTy, gep(table, ptrTy, i))
                                     : null);
    b.create<scf::YieldOp>(loc, loaded);
    b.setInsertionPointToStart(ifOp.elseBlock());
    b.create<scf::YieldOp>(loc, SmallVector<Value>(n, null));
  }
  for (Value row : ifOp.getResults())
    paramRows.push_back(row);
}

SmallVector<bool> KernelBuilder::paramsReadBy(Region &region) {
  SmallVector<bool> used(layout.params.size() + layout.flags.size(), false);
  region.walk([&](GetOp get) {
    int idx = layout.paramIndex(get.getVar());
    if (idx < 0)
      return;
    if (idx < static_cast<int>(layout.params.size()) &&
        layout.params[idx].nodal)
      return;
    used[idx] = rowCapable[idx];
  });
  return used;
}

void KernelBuilder::loadCellParams(Value cell, ArrayRef<bool> used) {
  cellParams.assign(paramValues.size(), Value());
  for (auto [i, isUsed] : llvm::enumerate(used)) {
    if (!isUsed || paramRows.empty())
      continue;
    Value row = paramRows[i];
    Value has = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, row,
                                       b.create<LLVM::ZeroOp>(loc, ptrTy));
    auto ifOp = b.create<scf::IfOp>(loc, TypeRange{f64}, has,
                                    /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value at = gep(hostGiven(row), f64, cell);
    b.create<scf::YieldOp>(loc, loadReadOnly(f64, at));
    b.setInsertionPointToStart(ifOp.elseBlock());
    b.create<scf::YieldOp>(loc, paramValues[i]);
    cellParams[i] = ifOp.getResult(0);
  }
}

Value KernelBuilder::paramValue(StringRef name) {
  int idx = layout.paramIndex(name);
  return idx < 0 ? Value() : paramValues[idx];
}

Value KernelBuilder::cellParamValue(StringRef name) {
  int idx = layout.paramIndex(name);
  if (idx < 0)
    return Value();
  if (idx < static_cast<int>(cellParams.size()) && cellParams[idx])
    return cellParams[idx];
  return paramValues[idx];
}

Value KernelBuilder::openCellLoop(Value begin, Value end) {
  Type index = b.getIndexType();
  auto toIndex = [&](Value v) {
    return b.create<arith::IndexCastOp>(loc, index, v).getResult();
  };
  auto loop = b.create<scf::ParallelOp>(
      loc, ValueRange{toIndex(begin)}, ValueRange{toIndex(end)},
      ValueRange{b.create<arith::ConstantIndexOp>(loc, 1)});
  loop->setAttr(easyml::kCellLoopAttr, b.getUnitAttr());
  b.setInsertionPointToStart(loop.getBody());
  return b.create<arith::IndexCastOp>(loc, i64, loop.getInductionVars()[0]);
}
