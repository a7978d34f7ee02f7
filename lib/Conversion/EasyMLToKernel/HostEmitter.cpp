//===- HostEmitter.cpp - the host entries tables and derived --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The host entry points of a CPU variant, called by the runtime when the
// shared parameters or dt change: `tables` fills every lookup table,
// `derived` computes the values GPU kernels take by value (ABI 4).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

void KernelBuilder::buildTables() {
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

void KernelBuilder::buildDerived() {
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
