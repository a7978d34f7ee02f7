//===- RecordingEmitter.cpp - samples during the step loop ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The compute kernel writes samples at output steps into the recording
// buffer (ABI 3 `rec_*`), so output does not cut the runtime's task waves:
// at the start of a sample step, the selected values of the cells in the
// recorded range.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

void KernelBuilder::loadRecording(Value args) {
  Recording &r = recording;
  r.args = args;
  r.first = field(args, kRecFirst, i64);
  // A zero interval would divide by zero (a trap on x86).
  r.every = b.create<arith::MaxSIOp>(loc, field(args, kRecEvery, i64), cI64(1));
  r.samples = field(args, kRecSamples, i64);
}

void KernelBuilder::loadRecordingTargets() {
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

LogicalResult KernelBuilder::emitRecord(Value s, Value cell,
                                        ArrayRef<Value> states,
                                        ArrayRef<Value> nodal,
                                        ArrayRef<Value> hidden,
                                        ArrayRef<Value> exts, Value dt) {
  Recording &r = recording;
  Value rel = b.create<arith::SubIOp>(loc, s, r.first);
  Value k = b.create<arith::DivSIOp>(loc, rel, r.every);
  Value isSample = b.create<arith::AndIOp>(
      loc,
      b.create<arith::AndIOp>(
          loc,
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, rel, cI64(0)),
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
    Value wanted =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, slot, cI64(0));
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
    auto eval = emitStep(states, nodal, hidden, exts, t, dt, /*advance=*/false);
    if (failed(eval))
      return failure();
    int64_t base = layout.svRows + static_cast<int64_t>(exts.size());
    for (auto [k2, v] : llvm::enumerate(eval->traces))
      put(base + k2, v);
  }
  return success();
}
