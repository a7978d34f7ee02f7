//===- RecordingEmitter.cpp - what a sample records -----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The compute kernel writes samples at output steps into the recording
// buffer (ABI 3 `rec_*`), so output does not cut the runtime's task waves:
// at the start of a sample step, the selected values of the cells in the
// recorded range. The kernel lowering only says what a sample holds, in an
// easyml.record_sample marker: the cell's states, nodal parameters,
// hidden values and externals, and the traces evaluated from them;
// easyml-lower-recording (LowerRecording.cpp) writes when and where.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

void KernelBuilder::loadRecording(Value args) {
  recordArgs = args;
  recordSchedule = b.create<RecordScheduleOp>(loc, i64, i64, i64, args);
}

LogicalResult KernelBuilder::emitRecord(Value s, Value cell,
                                        ArrayRef<Value> states,
                                        ArrayRef<Value> nodal,
                                        ArrayRef<Value> hidden,
                                        ArrayRef<Value> exts, Value dt) {
  auto sample = b.create<RecordSampleOp>(
      loc, recordArgs, s, cell, recordSchedule.getFirst(),
      recordSchedule.getEvery(), recordSchedule.getSamples());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&sample.getBody().emplaceBlock());
  auto put = [&](int64_t v, Value value) {
    b.create<RecordValueOp>(loc, value, b.getI64IntegerAttr(v));
  };
  for (size_t i = 0; i < states.size(); ++i)
    put(i, states[i]);
  for (auto [i, p] : llvm::enumerate(layout.params))
    if (p.nodal)
      put(p.svIndex, nodal[i]);
  // In-place hidden values are read where the sample is taken.
  for (size_t i = 0; i < hidden.size(); ++i)
    put(layout.svSize + i, layout.hiddenInPlace[i]
                               ? loadCell(stepSv, stepCell, layout.svSize + i)
                               : hidden[i]);
  for (size_t j = 0; j < exts.size(); ++j)
    put(layout.svRows + j, exts[j]);
  if (layout.traces.empty())
    return success();
  auto traces = b.create<RecordTracesOp>(loc);
  b.setInsertionPointToStart(&traces.getBody().emplaceBlock());
  Value t =
      b.create<arith::MulFOp>(loc, b.create<arith::SIToFPOp>(loc, f64, s), dt);
  auto eval = emitStep(states, nodal, hidden, exts, t, dt, /*advance=*/false);
  if (failed(eval))
    return failure();
  int64_t base = layout.svRows + static_cast<int64_t>(exts.size());
  for (auto [k, v] : llvm::enumerate(eval->traces))
    put(base + k, v);
  return success();
}
