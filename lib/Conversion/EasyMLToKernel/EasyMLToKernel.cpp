//===- EasyMLToKernel.cpp - easyml.model to C-ABI kernels -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "EntryStrategy.h"
#include "KernelArgs.h"

#include "easyml/Conversion/EasyMLToKernel/DeriveParams.h"
#include "easyml/Conversion/EasyMLToKernel/ModelLayout.h"
#include "easyml/Conversion/Passes.h"
#include "easyml/Runtime/ABI.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <limits>

namespace easyml {
#define GEN_PASS_DEF_LOWERTOKERNELS
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

namespace {

/// Emits the kernels of one model.
class KernelBuilder {
public:
  /// `perCellParams`: the parameters GPU kernels read per cell (validated
  /// by the pass); CPU kernels read any parameter per cell.
  KernelBuilder(ModelOp model, ModuleOp module, VariantAttr target,
                ArrayRef<std::string> perCellParams = {})
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
      for (Operation *op : d.ops) {
        auto get = dyn_cast<GetOp>(op);
        int p = get ? layout.paramIndex(get.getVar()) : -1;
        if ((p >= 0 && rowCapable[p]) ||
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

  /// Only the host table builder.
  void buildTablesOnly() {
    buildTables();
    buildDerived();
  }

  LogicalResult build(bool withTables) {
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
    return b.create<LLVM::GEPOp>(loc, base.getType(), elem, base,
                                 ArrayRef<LLVM::GEPArg>{index});
  }
  Value gep(Value base, Type elem, int64_t index) {
    return b.create<LLVM::GEPOp>(
        loc, base.getType(), elem, base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
  }
  /// A pointer the host passed in, as the kernels address it (GPU: in the
  /// global address space).
  Value hostGiven(Value pointer) { return entry->hostGiven(b, loc, pointer); }
  /// A pointer field of the kernel arguments.
  Value pointerField(Value args, ArgField f) {
    return hostGiven(field(args, f, ptrTy));
  }
  Value load(Type t, Value ptr) { return b.create<LLVM::LoadOp>(loc, t, ptr); }
  /// A load of memory no kernel writes while it runs (kernel arguments,
  /// parameters, per-cell parameter rows, lookup tables): marked invariant
  /// where the entry strategy says so (GPU: the read-only data path).
  Value loadReadOnly(Type t, Value ptr) {
    return b.create<LLVM::LoadOp>(
        loc, t, ptr, /*alignment=*/0,
        /*isVolatile=*/false,
        /*isNonTemporal=*/false,
        /*isInvariant=*/entry->marksReadOnlyLoadsInvariant());
  }
  void store(Value v, Value ptr) { b.create<LLVM::StoreOp>(loc, v, ptr); }
  /// Field `f` of the kernel arguments (KernelArgs.h).
  Value field(Value args, ArgField f, Type t) {
    return argField(b, loc, args, f, t);
  }
  Value mulI(Value x, Value y) { return b.create<arith::MulIOp>(loc, x, y); }
  Value addI(Value x, Value y) { return b.create<arith::AddIOp>(loc, x, y); }

  //===--- Per-cell storage as memref views ---------------------------===//
  /// A memref view of per-cell f64 storage at the host-given `ptr`: sizes
  /// `sizes`, row-major with the given leading strides and a unit
  /// innermost stride, in the global memory space on a GPU. Loads and
  /// stores through it are lowered by the upstream memref and vector
  /// conversions; the sizes are only metadata (nothing checks bounds, and
  /// cpu-simd reads the padding after the last cell).
  Value view(Value ptr, ArrayRef<Value> sizes, ArrayRef<Value> strides) {
    MLIRContext *ctx = b.getContext();
    int64_t rank = static_cast<int64_t>(sizes.size());
    assert(strides.size() + 1 == sizes.size() && "leading strides only");
    SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
    SmallVector<int64_t> layoutStrides(rank - 1, ShapedType::kDynamic);
    layoutStrides.push_back(1);
    MemRefLayoutAttrInterface layoutAttr;
    if (rank > 1)
      layoutAttr = StridedLayoutAttr::get(ctx, 0, layoutStrides);
    Attribute space = entry->memorySpace(b);
    auto type = MemRefType::get(shape, f64, layoutAttr, space);
    // The descriptor the memref-to-LLVM type converter expects.
    auto sizesTy = LLVM::LLVMArrayType::get(i64, rank);
    auto descTy = LLVM::LLVMStructType::getLiteral(
        ctx, {ptr.getType(), ptr.getType(), i64, sizesTy, sizesTy});
    Value d = b.create<LLVM::UndefOp>(loc, descTy);
    auto insert = [&](Value v, ArrayRef<int64_t> pos) {
      d = b.create<LLVM::InsertValueOp>(loc, d, v, pos);
    };
    insert(ptr, {0});
    insert(ptr, {1});
    insert(cI64(0), {2});
    for (int64_t r = 0; r < rank; ++r) {
      insert(sizes[r], {3, r});
      insert(r + 1 < rank ? strides[r] : cI64(1), {4, r});
    }
    return b.create<UnrealizedConversionCastOp>(loc, type, d).getResult(0);
  }
  /// The state vector `sv` as a view: [row][cell] with `rowStride` (SoA)
  /// or [cell][row] (AoS).
  Value svView(Value sv, Value rowStride) {
    if (soa)
      return view(sv, {cI64(layout.svRows), rowStride}, {rowStride});
    return view(sv, {rowStride, cI64(layout.svRows)}, {cI64(layout.svRows)});
  }
  /// The eval output `out` as a view of `numTraces` values per cell.
  Value outView(Value out, int64_t numTraces) {
    if (soa)
      return view(out, {cI64(numTraces), stride}, {stride});
    return view(out, {stride, cI64(numTraces)}, {cI64(numTraces)});
  }
  /// One value per cell: an external's array.
  Value cellsView(Value ptr) { return view(ptr, {stride}, {}); }
  Value toIndex(Value v) {
    return b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
  }
  /// The indices of entry `idx` of `cell` in a per-cell view.
  SmallVector<Value> cellIndices(Value cell, int64_t idx) {
    Value i = b.create<arith::ConstantIndexOp>(loc, idx);
    if (soa)
      return {i, toIndex(cell)};
    return {toIndex(cell), i};
  }
  Value loadAt(Value view, ValueRange indices) {
    return b.create<memref::LoadOp>(loc, view, indices);
  }
  void storeAt(Value v, Value view, ValueRange indices) {
    b.create<memref::StoreOp>(loc, v, view, indices);
  }
  /// Entry `idx` of the cell's state vector (or of its eval outputs).
  Value loadCell(Value view, Value cell, int64_t idx) {
    return loadAt(view, cellIndices(cell, idx));
  }
  void storeCell(Value v, Value view, Value cell, int64_t idx) {
    storeAt(v, view, cellIndices(cell, idx));
  }
  /// The cell's entry of a one-value-per-cell view.
  Value loadOne(Value view, Value cell) { return loadAt(view, toIndex(cell)); }
  void storeOne(Value v, Value view, Value cell) {
    storeAt(v, view, toIndex(cell));
  }

  /// Adds one to counter `index` when `cond` holds for the cell.
  /// (easyml-vectorize-cells turns this into one addition per vector.)
  void countIf(Value cond, int index) {
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

  /// NaN detection where the cells are: a compute kernel adds each cell
  /// whose new state or externals hold a NaN or an infinity to the slot
  /// after the model's counters, so the host learns of a blow-up without
  /// scanning (or, on a GPU, copying back) the states.
  void countNonFinite(ValueRange values) {
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

  /// `bound` where `v <pred> bound`, counting those events; else `v`.
  Value clamp(Value v, double bound, arith::CmpFPredicate pred, int counter) {
    Value b0 = cF64(bound);
    Value beyond = b.create<arith::CmpFOp>(loc, pred, v, b0);
    countIf(beyond, counter);
    return b.create<arith::SelectOp>(loc, beyond, b0, v);
  }

  /// Starts entry point `name` (EntryStrategy::createFunction). Returns
  /// the kernel arguments (pointer or struct); the builder is in the entry
  /// block.
  Value startFunction(StringRef name) {
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

  /// Ends the function started last.
  void finishFunction() {
    b.setInsertionPointToEnd(functionEntry);
    entry->createReturn(b, loc);
  }

  /// Loads every parameter and flag's shared value once, and the rows of
  /// per-cell parameters (ABI 3 `param_rows`; null where shared).
  void loadParams(Value args, bool withRows = true) {
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

  /// The parameters and flags (params indices) that `region` reads and
  /// that may vary per cell in these kernels, nodal parameters excepted
  /// (those are per-cell storage already).
  SmallVector<bool> paramsReadBy(Region &region) {
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

  /// Each parameter in `used` for the cells at `cell`: the cell's value
  /// from its row where the simulation gave one, else the shared value
  /// (broadcast). Sets `cellParams`.
  void loadCellParams(Value cell, ArrayRef<bool> used) {
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

  Value paramValue(StringRef name) {
    int idx = layout.paramIndex(name);
    return idx < 0 ? Value() : paramValues[idx];
  }
  /// The value of parameter `name` for the current cells.
  Value cellParamValue(StringRef name) {
    int idx = layout.paramIndex(name);
    if (idx < 0)
      return Value();
    if (idx < static_cast<int>(cellParams.size()) && cellParams[idx])
      return cellParams[idx];
    return paramValues[idx];
  }

  //===--- Tables -----------------------------------------------------===//
  void buildTables() {
    Value args = startFunction("tables");
    loadParams(args, /*withRows=*/false);
    Value dt = field(args, kDt, f64);
    Value tables = pointerField(args, kTables);
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

  //===--- Derived values ---------------------------------------------===//
  /// The host entry `derived` (when the model has derived values,
  /// ModelLayout::findDerived): computes them from the shared parameters
  /// and dt into args.out, in order. The runtime calls it whenever those
  /// change and passes the values to GPU kernels by value.
  void buildDerived() {
    if (!layout.numDerived)
      return;
    Value args = startFunction("derived");
    loadParams(args, /*withRows=*/false);
    Value dt = field(args, kDt, f64);
    Value out = pointerField(args, kOut);
    ModelLayout::Derived d = ModelLayout::findDerived(model);
    IRMapping mapping = modelConstants;
    for (Operation *op : d.ops) {
      if (auto get = dyn_cast<GetOp>(op))
        mapping.map(get.getResult(), paramValue(get.getVar()));
      else if (isa<TimeStepOp>(op))
        mapping.map(op->getResult(0), dt);
      else
        b.clone(*op, mapping);
    }
    for (auto [k, v] : llvm::enumerate(d.values))
      store(mapping.lookup(v), gep(out, f64, static_cast<int64_t>(k)));
    finishFunction();
  }

  //===--- Cells and their storage ------------------------------------===//
  /// Opens the loop over the cells [begin, end) and returns the cell of
  /// the current iteration (i64). The loop is an `scf.parallel` tagged
  /// `easyml.cells`: iterations are independent (counters are atomic). On
  /// the CPU it runs in order (scf-to-cf), cpu-simd's `width` cells per
  /// iteration once easyml-vectorize-cells has run; in a GPU kernel
  /// easyml-map-cells-to-gpu-threads gives each thread one cell.
  Value openCellLoop(Value begin, Value end) {
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

  //===--- Init -------------------------------------------------------===//
  LogicalResult buildInit() {
    Value args = startFunction("init");
    loadParams(args);
    Value begin = field(args, kBegin, i64), end = field(args, kEnd, i64);
    stride = field(args, kStride, i64);
    Value sv = svView(pointerField(args, kSv), stride);
    Value ext = pointerField(args, kExt);
    SmallVector<Value> extViews;
    for (size_t j = 0; j < layout.externals.size(); ++j)
      extViews.push_back(cellsView(hostGiven(load(ptrTy, gep(ext, ptrTy, j)))));
    SmallVector<bool> used = paramsReadBy(model.getInitOp().getBody());
    // Nodal parameters start from their (per-cell) parameter value.
    for (const ModelLayout::Param &p : layout.params)
      if (p.nodal)
        used[layout.paramIndex(p.name)] = true;
    Value cell = openCellLoop(begin, end);
    loadCellParams(cell, used);
    for (const ModelLayout::Param &p : layout.params)
      if (p.nodal)
        storeCell(cellParamValue(p.name), sv, cell, p.svIndex);
    for (auto [i, init] : llvm::enumerate(layout.hiddenInit))
      storeCell(cF64(init), sv, cell, layout.svSize + i);
    IRMapping mapping = modelConstants;
    for (Operation &op : model.getInitOp().getBody().front()) {
      if (auto get = dyn_cast<GetOp>(op)) {
        mapping.map(get.getResult(), cellParamValue(get.getVar()));
      } else if (auto iv = dyn_cast<InitValueOp>(op)) {
        Value v = mapping.lookup(iv.getValue());
        int s = layout.stateIndex(iv.getVar());
        if (s >= 0)
          storeCell(v, sv, cell, s);
        else if (int e = layout.externalIndex(iv.getVar()); e >= 0)
          storeOne(v, extViews[e], cell);
      } else {
        b.clone(op, mapping);
      }
    }
    finishFunction();
    return success();
  }

  //===--- Lookups ----------------------------------------------------===//
  /// Loads column `c` of the rows at `rowIndex` (per cell; a gather once
  /// vectorised).
  Value loadTableEntry(Value rowIndex, int64_t c) {
    Value index = addI(rowIndex, cI64(c));
    return loadReadOnly(f64, gep(tablesPtr, f64, index));
  }

  SmallVector<Value> interpolate(LookupOp lookup, Value x) {
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

  /// The cell's record where emitStep runs (set by buildStep): in-place
  /// hidden values are read and written there.
  Value stepSv, stepCell;

  /// Replaces easyml.hidden_load/store in `root` (at any depth) by accesses
  /// to the cell's record.
  void lowerInPlaceHidden(Operation *root) {
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

  //===--- Compute and eval -------------------------------------------===//
  /// Emits one model step at the builder's position. `stateVals` are the
  /// old states, `extVals` the externals; returns the new states, the
  /// outputs per external (null where not written) and the traced values.
  struct StepResult {
    SmallVector<Value> states, hidden, outputs, traces;
  };
  FailureOr<StepResult> emitStep(ArrayRef<Value> stateVals,
                                 ArrayRef<Value> nodalVals,
                                 ArrayRef<Value> hiddenVals,
                                 ArrayRef<Value> extVals, Value t, Value dt,
                                 bool advance) {
    StepResult r;
    r.states.assign(stateVals.begin(), stateVals.end());
    r.hidden.assign(hiddenVals.begin(), hiddenVals.end());
    r.outputs.resize(layout.externals.size());
    IRMapping mapping = modelConstants;
    for (Operation &op : model.getComputeOp().getBody().front()) {
      // A derived value the kernel takes by value: a constant-bank operand
      // instead of a computation (whose inputs fold away unused).
      if (!derivedValues.empty() && op.getNumResults() == 1)
        if (auto it = derivedIndex.find(op.getResult(0));
            it != derivedIndex.end()) {
          mapping.map(op.getResult(0), derivedValues[it->second]);
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
      } else if (!advance && op.getNumRegions()) {
        // Integrator loops and branches give new states only: an
        // evaluation of outputs and traces skips them.
        for (Operation *user : op.getUsers())
          if (!isa<NextOp>(user))
            return op.emitError("easyml-lower-to-kernels: a value computed "
                                "in a region feeds '")
                   << user->getName()
                   << "' (only new states and hidden values may)";
        continue;
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

  /// Loads what the step loop needs to recognise a sample step (before the
  /// cell loop: the same for every cell). The other recording fields are
  /// loaded in the sample branch itself: held across the step loop they
  /// cost GPU kernels a dozen registers for a branch taken rarely.
  void loadRecording(Value args) {
    Recording &r = recording;
    r.args = args;
    r.first = field(args, kRecFirst, i64);
    // A zero interval would divide by zero (a trap on x86).
    r.every =
        b.create<arith::MaxSIOp>(loc, field(args, kRecEvery, i64), cI64(1));
    r.samples = field(args, kRecSamples, i64);
  }

  /// The rest of the recording fields, where the sample is written.
  void loadRecordingTargets() {
    Recording &r = recording;
    r.rec = pointerField(r.args, kRec);
    r.slots = pointerField(r.args, kRecSlot);
    r.num = field(r.args, kRecNum, i64);
    r.begin = field(r.args, kRecBegin, i64);
    r.end = field(r.args, kRecEnd, i64);
    r.stride = field(r.args, kRecStride, i64);
    r.traces = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                       field(r.args, kRecTraces, i64), cI64(0));
  }

  /// At the start of global step `s`: when `s` is a sample step of this
  /// wave, records the selected values of the cells at `cell` (those in
  /// [rec_begin, rec_end)) into sample `(s - rec_first) / rec_every`.
  /// Traces are evaluated from the same values, as the eval entry does.
  LogicalResult emitRecord(Value s, Value cell, ArrayRef<Value> states,
                           ArrayRef<Value> nodal, ArrayRef<Value> hidden,
                           ArrayRef<Value> exts, Value dt) {
    Recording &r = recording;
    Value rel = b.create<arith::SubIOp>(loc, s, r.first);
    Value k = b.create<arith::DivSIOp>(loc, rel, r.every);
    Value isSample = b.create<arith::AndIOp>(
        loc,
        b.create<arith::AndIOp>(
            loc,
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, rel,
                                    cI64(0)),
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                    mulI(k, r.every), rel)),
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, k, r.samples));
    auto sampleIf = b.create<scf::IfOp>(loc, isSample, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(sampleIf.thenBlock());
    loadRecordingTargets();
    // The cells inside the recorded range.
    Value inside = b.create<arith::AndIOp>(
        loc,
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, cell, r.begin),
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, cell, r.end));
    auto cellIf = b.create<scf::IfOp>(loc, inside, /*withElse=*/false);
    b.setInsertionPointToStart(cellIf.thenBlock());
    Value sampleBase = mulI(k, r.num);
    Value offset = b.create<arith::SubIOp>(loc, cell, r.begin);
    auto put = [&](int64_t v, Value value) {
      Value slot = load(i64, gep(r.slots, i64, v));
      Value wanted = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge,
                                             slot, cI64(0));
      auto ifOp = b.create<scf::IfOp>(loc, wanted, /*withElse=*/false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value index = addI(mulI(addI(sampleBase, slot), r.stride), offset);
      store(value, gep(r.rec, f64, index));
    };
    for (size_t i = 0; i < states.size(); ++i)
      put(i, states[i]);
    for (auto [i, p] : llvm::enumerate(layout.params))
      if (p.nodal)
        put(p.svIndex, nodal[i]);
    for (size_t i = 0; i < hidden.size(); ++i)
      put(layout.svSize + i, layout.hiddenInPlace[i]
                                 ? loadCell(stepSv, stepCell, layout.svSize + i)
                                 : hidden[i]);
    for (size_t j = 0; j < exts.size(); ++j)
      put(layout.svRows + j, exts[j]);
    if (!layout.traces.empty()) {
      auto tracesIf = b.create<scf::IfOp>(loc, r.traces, /*withElse=*/false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(tracesIf.thenBlock());
      Value t = b.create<arith::MulFOp>(
          loc, b.create<arith::SIToFPOp>(loc, f64, s), dt);
      auto eval =
          emitStep(states, nodal, hidden, exts, t, dt, /*advance=*/false);
      if (failed(eval))
        return failure();
      int64_t base = layout.svRows + static_cast<int64_t>(exts.size());
      for (auto [k2, v] : llvm::enumerate(eval->traces))
        put(base + k2, v);
    }
    return success();
  }

  /// Biomarker accumulators (ABI 3 `bio`, when the runtime passes them):
  /// updated after the step from t = s*dt to t + dt that took Vm from `v0`
  /// (before the stimulus) to `v1`, with `states` the new states. Every
  /// update is a select, so vector lanes and GPU threads do not diverge;
  /// the definitions are in docs/biomarkers.md.
  ///
  /// Register pressure matters on GPUs, where the step loop keeps every
  /// state in registers: the rows' addresses are computed inside the
  /// branch (on the CPU the stride is loaded there: the stores below may
  /// alias the arguments, so nothing derived from it is hoisted; on a GPU
  /// from an easyml.opaque copy of it), and each accumulator is loaded,
  /// updated and stored before the next is loaded.
  void emitBiomarkers(Value args, Value cell, Value s, Value dt, Value v0,
                      Value v1, ArrayRef<Value> states) {
    Value raw = field(args, kBio, ptrTy);
    Value null = b.create<LLVM::ZeroOp>(loc, ptrTy);
    Value on = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, raw, null);
    auto bioIf = b.create<scf::IfOp>(loc, on, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(bioIf.thenBlock());
    // On a GPU the arguments are constant-bank values, so the rows'
    // addresses would be hoisted out of the step loop and held in
    // registers through it: an opaque stride keeps them in this branch.
    Value rowStride = entry->keepLocal(b, loc, field(args, kStride, i64));
    Value bio = view(hostGiven(raw), {cI64(EASYML_BIO_NUM_ROWS), rowStride},
                     {rowStride});
    Value cellIndex = toIndex(cell);
    auto at = [&](int row) -> SmallVector<Value> {
      return {b.create<arith::ConstantIndexOp>(loc, row), cellIndex};
    };
    auto ld = [&](int row) { return loadAt(bio, at(row)); };
    auto st = [&](int row, Value v) { storeAt(v, bio, at(row)); };
    auto c = [&](double v) { return cF64(v); };
    auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) {
      return b.create<arith::CmpFOp>(loc, p, x, y);
    };
    auto sel = [&](Value cond, Value x, Value y) -> Value {
      return b.create<arith::SelectOp>(loc, cond, x, y);
    };
    auto isNaN = [&](Value x) { return cmp(arith::CmpFPredicate::UNO, x, x); };
    auto sub = [&](Value x, Value y) -> Value {
      return b.create<arith::SubFOp>(loc, x, y);
    };
    auto mul = [&](Value x, Value y) -> Value {
      return b.create<arith::MulFOp>(loc, x, y);
    };
    auto add = [&](Value x, Value y) -> Value {
      return b.create<arith::AddFOp>(loc, x, y);
    };
    auto notI = [&](Value x) -> Value {
      Value one =
          b.create<arith::ConstantOp>(loc, b.getIntegerAttr(b.getI1Type(), 1));
      return b.create<arith::XOrIOp>(loc, x, one);
    };
    auto andI = [&](Value x, Value y) -> Value {
      return b.create<arith::AndIOp>(loc, x, y);
    };
    Value t = b.create<arith::MulFOp>(
        loc, b.create<arith::SIToFPOp>(loc, f64, s), dt);
    Value t1 = b.create<arith::AddFOp>(loc, t, dt);
    Value tMid = b.create<arith::AddFOp>(
        loc, t, b.create<arith::MulFOp>(loc, dt, cF64(0.5)));
    Value tc = t, dtc = dt;
    Value nan = c(std::numeric_limits<double>::quiet_NaN());

    Value restOld = ld(EASYML_BIO_V_REST);
    Value rest = sel(isNaN(restOld), v0, restOld);
    st(EASYML_BIO_V_REST, rest);
    // A new peak (always, while the peak is still NaN) restarts
    // repolarisation.
    Value peakOld = ld(EASYML_BIO_V_PEAK);
    Value peak = cmp(arith::CmpFPredicate::UGT, v1, peakOld);
    Value vPeak = sel(peak, v1, peakOld);
    st(EASYML_BIO_V_PEAK, vPeak);
    st(EASYML_BIO_T_PEAK, sel(peak, t1, ld(EASYML_BIO_T_PEAK)));
    Value dvdt = b.create<arith::DivFOp>(loc, sub(v1, v0), dtc);
    Value dvdtOld = ld(EASYML_BIO_DVDT_MAX);
    Value up = cmp(arith::CmpFPredicate::UGT, dvdt, dvdtOld);
    st(EASYML_BIO_DVDT_MAX, sel(up, dvdt, dvdtOld));
    st(EASYML_BIO_T_UPSTROKE, sel(up, tMid, ld(EASYML_BIO_T_UPSTROKE)));

    Value amplitude = sub(vPeak, rest);
    Value falling = notI(peak);
    const std::pair<int, double> levels[] = {{EASYML_BIO_T_REPOL30, 0.3},
                                             {EASYML_BIO_T_REPOL50, 0.5},
                                             {EASYML_BIO_T_REPOL90, 0.9}};
    Value crossed[3];
    for (auto [k, level] : llvm::enumerate(levels)) {
      auto [row, fraction] = level;
      Value old = ld(row);
      Value threshold = sub(vPeak, mul(c(fraction), amplitude));
      Value cross = andI(andI(falling, isNaN(old)),
                         cmp(arith::CmpFPredicate::OLT, v1, threshold));
      // Linear interpolation between the two steps.
      Value w = b.create<arith::DivFOp>(loc, sub(v0, threshold), sub(v0, v1));
      w = b.create<arith::MinNumFOp>(
          loc, b.create<arith::MaxNumFOp>(loc, w, c(0.0)), c(1.0));
      crossed[k] = sel(peak, nan, sel(cross, add(tc, mul(dtc, w)), old));
      st(row, crossed[k]);
    }
    Value troughOld = ld(EASYML_BIO_V_TROUGH);
    Value lower = cmp(arith::CmpFPredicate::ULT, v1, troughOld);
    Value trough = sel(peak, nan, sel(lower, v1, troughOld));
    st(EASYML_BIO_V_TROUGH, trough);
    // An early afterdepolarisation: Vm rises more than 1 mV above its
    // trough after 50% and before 90% repolarisation.
    Value rising =
        andI(andI(notI(isNaN(crossed[1])), isNaN(crossed[2])),
             cmp(arith::CmpFPredicate::OGT, v1, add(trough, c(1.0))));
    Value ead = b.create<arith::OrIOp>(
        loc, cmp(arith::CmpFPredicate::OGT, ld(EASYML_BIO_EAD), c(0.5)),
        rising);
    st(EASYML_BIO_EAD, sel(peak, c(0.0), sel(ead, c(1.0), c(0.0))));

    // Calcium: the state in sv row bio_ca (none when -1).
    Value caRow = field(args, kBioCa, i64);
    Value ca = nan;
    for (auto [i, v] : llvm::enumerate(states)) {
      Value is = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, caRow,
                                         cI64(static_cast<int64_t>(i)));
      ca = b.create<arith::SelectOp>(loc, is, v, ca);
    }
    Value caMinOld = ld(EASYML_BIO_CA_MIN);
    st(EASYML_BIO_CA_MIN,
       sel(cmp(arith::CmpFPredicate::ULT, ca, caMinOld), ca, caMinOld));
    Value caMaxOld = ld(EASYML_BIO_CA_MAX);
    Value caHigh = cmp(arith::CmpFPredicate::UGT, ca, caMaxOld);
    st(EASYML_BIO_CA_MAX, sel(caHigh, ca, caMaxOld));
    st(EASYML_BIO_T_CA_PEAK, sel(caHigh, t1, ld(EASYML_BIO_T_CA_PEAK)));
  }

  LogicalResult buildStep(bool advance) {
    Value args = startFunction(advance ? "compute" : "eval");
    loadParams(args);
    Value begin = field(args, kBegin, i64), end = field(args, kEnd, i64);
    Value nsteps = field(args, kNSteps, i64), step0 = field(args, kStep0, i64);
    Value dt = field(args, kDt, f64), stim = field(args, kStim, f64);
    Value integrate = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ne, field(args, kIntegrateVm, i64), cI64(0));
    stride = field(args, kStride, i64);
    Value svPtr = pointerField(args, kSv), ext = pointerField(args, kExt);
    Value sv = svView(svPtr, stride);
    tablesPtr = pointerField(args, kTables);
    counters = pointerField(args, kCounters);
    Value out = pointerField(args, kOut);
    if (advance)
      loadRecording(args);
    SmallVector<Value> extViews;
    for (size_t j = 0; j < layout.externals.size(); ++j)
      extViews.push_back(cellsView(hostGiven(load(ptrTy, gep(ext, ptrTy, j)))));
    size_t ns = layout.states.size(), ne = layout.externals.size();
    int vm = layout.vmIndex, iion = layout.iionIndex;
    SmallVector<bool> used = paramsReadBy(model.getComputeOp().getBody());

    Value cell = openCellLoop(begin, end);
    stepSv = sv;
    stepCell = cell;
    loadCellParams(cell, used);
    SmallVector<Value> x, nodal(layout.params.size()), hid, e;
    size_t nh = layout.hidden.size();
    for (size_t i = 0; i < ns; ++i)
      x.push_back(loadCell(sv, cell, i));
    for (auto [i, p] : llvm::enumerate(layout.params))
      if (p.nodal)
        nodal[i] = loadCell(sv, cell, p.svIndex);
    // In-place hidden values are accessed where the step uses them (null
    // here): neither loaded up front nor carried from step to step.
    for (size_t i = 0; i < nh; ++i)
      hid.push_back(layout.hiddenInPlace[i]
                        ? Value()
                        : loadCell(sv, cell, layout.svSize + i));
    for (size_t j = 0; j < ne; ++j)
      e.push_back(loadOne(extViews[j], cell));

    if (!advance) {
      Value t = b.create<arith::MulFOp>(
          loc, b.create<arith::SIToFPOp>(loc, f64, step0), dt);
      auto r = emitStep(x, nodal, hid, e, t, dt, /*advance=*/false);
      if (failed(r))
        return failure();
      for (size_t j = 0; j < ne; ++j)
        if (r->outputs[j])
          storeOne(r->outputs[j], extViews[j], cell);
      Value outs = outView(out, r->traces.size());
      for (auto [k, v] : llvm::enumerate(r->traces))
        storeCell(v, outs, cell, k);
    } else {
      // Carried from step to step: states, externals, hidden values.
      SmallVector<Value> iter(x);
      iter.append(e);
      for (Value h : hid)
        if (h)
          iter.push_back(h);
      auto stepLoop = b.create<scf::ForOp>(loc, cI64(0), nsteps, cI64(1), iter);
      b.setInsertionPointToStart(stepLoop.getBody());
      Value k = stepLoop.getInductionVar();
      auto carried = stepLoop.getRegionIterArgs();
      SmallVector<Value> xs(carried.begin(), carried.begin() + ns);
      SmallVector<Value> es(carried.begin() + ns, carried.begin() + ns + ne);
      SmallVector<Value> hs;
      auto carriedHidden = carried.begin() + ns + ne;
      for (Value h : hid)
        hs.push_back(h ? Value(*carriedHidden++) : Value());
      Value s = addI(step0, k);
      // Samples inside the wave: the state at the start of step s (Vm
      // before the stimulus, Iion of the step before), as a simulator that
      // stopped here would see it.
      if (failed(emitRecord(s, cell, xs, nodal, hs, es, dt)))
        return failure();
      Value t = b.create<arith::MulFOp>(
          loc, b.create<arith::SIToFPOp>(loc, f64, s), dt);
      Value vmBefore = vm >= 0 ? es[vm] : Value();
      if (vm >= 0) {
        Value stimulated = b.create<arith::AddFOp>(
            loc, es[vm], b.create<arith::MulFOp>(loc, stim, dt));
        es[vm] = b.create<arith::SelectOp>(loc, integrate, stimulated, es[vm]);
      }
      auto r = emitStep(xs, nodal, hs, es, t, dt, /*advance=*/true);
      if (failed(r))
        return failure();
      SmallVector<Value> yielded(r->states);
      for (size_t j = 0; j < ne; ++j)
        yielded.push_back(r->outputs[j] ? r->outputs[j] : es[j]);
      if (vm >= 0 && iion >= 0) {
        Value v = yielded[ns + vm];
        Value integrated = b.create<arith::SubFOp>(
            loc, v, b.create<arith::MulFOp>(loc, yielded[ns + iion], dt));
        yielded[ns + vm] =
            b.create<arith::SelectOp>(loc, integrate, integrated, v);
      }
      if (vm >= 0)
        emitBiomarkers(args, cell, s, dt, vmBefore, yielded[ns + vm],
                       ArrayRef<Value>(yielded).take_front(ns));
      for (auto [h, v] : llvm::zip(hid, r->hidden))
        if (h)
          yielded.push_back(v);
      b.create<scf::YieldOp>(loc, yielded);
      b.setInsertionPointAfter(stepLoop);
      if (entry->recomputesAddressesAfterSteps()) {
        // The addresses of the cell's rows are recomputed after the step
        // loop rather than kept from before it: held through the loop they
        // cost two registers each (the optimisers would merge the two
        // computations, so the second starts from opaque copies).
        cell = entry->keepLocal(b, loc, cell);
        stride = entry->keepLocal(b, loc, stride);
        sv = svView(svPtr, stride);
        for (size_t j = 0; j < ne; ++j)
          extViews[j] = cellsView(hostGiven(load(ptrTy, gep(ext, ptrTy, j))));
      }
      for (size_t i = 0; i < ns; ++i)
        storeCell(stepLoop.getResult(i), sv, cell, i);
      for (size_t j = 0; j < ne; ++j)
        if (layout.externals[j].access != Access::read || (int)j == vm)
          storeOne(stepLoop.getResult(ns + j), extViews[j], cell);
      for (size_t i = 0, k = ns + ne; i < nh; ++i)
        if (hid[i])
          storeCell(stepLoop.getResult(k++), sv, cell, layout.svSize + i);
      // Every variant counts the cells it leaves non-finite, so the
      // runtime learns of a blow-up without scanning the states.
      countNonFinite(stepLoop.getResults());
    }
    finishFunction();
    return success();
  }

  ModelOp model;
  ModuleOp module;
  /// What the kernels are for; the fields below are read from it.
  VariantAttr target;
  std::string variant;
  bool soa;
  ModelLayout layout;
  /// What differs between CPU functions and GPU kernels.
  std::unique_ptr<EntryStrategy> entry;
  Block *functionEntry = nullptr;
  OpBuilder b;
  Location loc;
  Type ptrTy, f64, i64;
  SmallVector<Value> paramValues;
  /// GPU kernels: the parameters and flags passed by value (null when
  /// they do not fit, or on the CPU), then the derived values.
  Value paramsArg;
  SmallVector<Value> derivedValues;
  /// GPU kernels: the compute region's values they take as derived value
  /// k (those that read no parameter the kernels read per cell).
  DenseMap<Value, int> derivedIndex;
  /// Per params index: whether these kernels read a row for it when the
  /// simulation gives one (every parameter on the CPU; on GPUs those named
  /// by per-cell-params, the others shared).
  SmallVector<bool> rowCapable;
  /// Rows of per-cell parameters (null where shared), and the parameters'
  /// values for the current cells.
  SmallVector<Value> paramRows, cellParams;
  Value tablesPtr, counters, stride;
  /// The recording fields (ABI 3): when to sample, loaded once per compute
  /// call; where to write, loaded in the sample branch.
  struct Recording {
    Value args, rec, slots, num, begin, end, stride, first, every, samples,
        traces;
  } recording;
  IRMapping modelConstants;
};

struct LowerToKernelsPass
    : public easyml::impl::LowerToKernelsBase<LowerToKernelsPass> {
  using LowerToKernelsBase::LowerToKernelsBase;

  /// Checks the options; returns the problem, or an empty string.
  std::string checkOptions() const {
    int64_t width = vectorWidth;
    if (width < 1 || width > 64)
      return "vector width " + std::to_string(width) +
             " is out of range (expected 1 to 64)";
    for (const std::string &v : variants)
      if (!symbolizeVariantKind(v))
        return "unknown variant '" + v +
               "' (this pass generates: baseline, cpu-simd, cuda, rocm)";
    return "";
  }

  /// Every name in per-cell-params is a parameter or flag of `model` that
  /// no lookup table reads (tables are built once for all cells).
  static LogicalResult checkPerCellParams(ModelOp model,
                                          ArrayRef<std::string> names) {
    ModelLayout layout = ModelLayout::get(model);
    std::vector<std::string> unknown;
    std::vector<int64_t> chosen = layout.paramIndices(names, &unknown);
    bool ok = true;
    for (const std::string &name : unknown) {
      emitError(model.getLoc(), "per-cell-params: model '")
          << model.getSymName() << "' has no parameter or flag '" << name
          << "'";
      ok = false;
    }
    bool all = llvm::is_contained(names, "all");
    for (const ModelLayout::Table &t : layout.tables)
      for (int64_t p : t.paramsRead)
        if (!all && llvm::is_contained(chosen, p)) {
          StringRef name =
              p < static_cast<int64_t>(layout.params.size())
                  ? StringRef(layout.params[p].name)
                  : StringRef(layout.flags[p - layout.params.size()].name);
          emitError(model.getLoc(), "per-cell-params: '")
              << name << "' is read by the lookup table of '" << t.variable
              << "', which is built once for all cells (compile with "
                 "--no-tables to let it vary per cell)";
          ok = false;
        }
    return success(ok);
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return easyml::initializeCheckedOptions(*this, options, errorHandler);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ModelOp> models(module.getOps<ModelOp>());
    SmallVector<std::string> names(variants.begin(), variants.end());
    if (names.empty())
      names.push_back("baseline");
    std::string problem = checkOptions();
    if (!problem.empty()) {
      module.emitError(problem);
      return signalPassFailure();
    }
    // Variant names are parsed here, once; later stages read the typed
    // attribute.
    SmallVector<VariantAttr> targets;
    for (const std::string &v : names)
      targets.push_back(VariantAttr::get(
          &getContext(), *symbolizeVariantKind(v), vectorWidth.getValue()));
    bool anyCpu =
        llvm::any_of(targets, [](VariantAttr t) { return !t.isGpu(); });
    std::vector<std::string> perCell(perCellParams.begin(),
                                     perCellParams.end());
    for (ModelOp model : models) {
      if (failed(checkPerCellParams(model, perCell)))
        return signalPassFailure();
      bool tablesDone = false;
      for (VariantAttr target : targets) {
        KernelBuilder builder(model, module, target, perCell);
        if (failed(
                builder.build(/*withTables=*/!target.isGpu() && !tablesDone)))
          return signalPassFailure();
        tablesDone |= !target.isGpu();
      }
      // GPU variants alone: a host table builder under the baseline name.
      if (!anyCpu) {
        KernelBuilder builder(
            model, module,
            VariantAttr::get(&getContext(), VariantKind::baseline, 1));
        builder.buildTablesOnly();
      }
      buildDeriveParams(model, module, ModelLayout::get(model));
      model.erase();
    }
  }
};

} // namespace
