//===- LowerRecording.cpp - samples into the recording buffer -------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// easyml-lower-recording: the recording markers of the compute kernels
// (easyml.record_schedule, easyml.record_sample and what it holds) to the
// reads of the recording fields of the kernel arguments (ABI 3 `rec_*`)
// and the stores into the recording buffer:
//
//   rec[(k*rec_num + rec_slot[v])*rec_stride + (cell - rec_begin)]
//
// for sample k = (step - rec_first) / rec_every of value v. Only the
// schedule is read before the cell loop; the other fields are read in the
// sample branch itself: held across the step loop they would cost GPU
// kernels a dozen registers for a branch taken rarely.
//
//===----------------------------------------------------------------------===//

#include "KernelArgs.h"
#include "KernelMemory.h"

#include "easyml/Conversion/Passes.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"

namespace easyml {
#define GEN_PASS_DEF_LOWERRECORDING
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

namespace {

/// Writes the samples of one easyml.record_sample.
class SampleWriter {
public:
  SampleWriter(RecordSampleOp sample)
      : sample(sample), b(sample), loc(sample.getLoc()),
        memory(KernelMemory::of(sample)) {
    i64 = b.getI64Type();
    f64 = b.getF64Type();
  }

  /// Replaces the marker by its branches, its body inside them.
  void lower();

private:
  Value cI64(int64_t v) {
    return b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(v));
  }
  Value field(ArgField f, Type t) {
    return argField(b, loc, sample.getArgs(), f, t);
  }
  Value pointerField(ArgField f) {
    return memory.hostGiven(
        b, loc, field(f, LLVM::LLVMPointerType::get(b.getContext())));
  }
  Value mulI(Value x, Value y) { return b.create<arith::MulIOp>(loc, x, y); }
  Value addI(Value x, Value y) { return b.create<arith::AddIOp>(loc, x, y); }
  /// Whether the step is a sample step; sets `k`, the sample's number.
  Value isSampleStep();
  /// Reads where samples go (in the sample branch).
  void loadTargets();
  /// Replaces `put` by the store of its value into its slot, if it has one.
  void lowerValue(RecordValueOp put);
  /// Replaces `traces` by a branch taken when a trace is recorded.
  void lowerTraces(RecordTracesOp traces);

  RecordSampleOp sample;
  OpBuilder b;
  Location loc;
  KernelMemory memory;
  Type i64, f64;
  /// The sample's number, and where it goes.
  Value k, rec, slots, num, begin, end, stride, traces, sampleBase, offset;
};

} // namespace

Value SampleWriter::isSampleStep() {
  Value every = sample.getEvery();
  Value rel = b.create<arith::SubIOp>(loc, sample.getStep(), sample.getFirst());
  k = b.create<arith::DivSIOp>(loc, rel, every);
  return b.create<arith::AndIOp>(
      loc,
      b.create<arith::AndIOp>(
          loc,
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, rel, cI64(0)),
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, mulI(k, every),
                                  rel)),
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, k,
                              sample.getSamples()));
}

void SampleWriter::loadTargets() {
  rec = pointerField(kRec);
  slots = pointerField(kRecSlot);
  num = field(kRecNum, i64);
  begin = field(kRecBegin, i64);
  end = field(kRecEnd, i64);
  stride = field(kRecStride, i64);
  traces = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                   field(kRecTraces, i64), cI64(0));
}

void SampleWriter::lower() {
  // No division by the interval unless the wave records at all: the
  // division would cost every cell of every step of the usual run.
  auto recordingIf = b.create<scf::IfOp>(
      loc,
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt,
                              sample.getSamples(), cI64(0)),
      /*withElse=*/false);
  b.setInsertionPointToStart(recordingIf.thenBlock());
  auto sampleIf = b.create<scf::IfOp>(loc, isSampleStep(), /*withElse=*/false);
  b.setInsertionPointToStart(sampleIf.thenBlock());
  loadTargets();
  // The cells inside the recorded range.
  Value cell = sample.getCell();
  Value inside = b.create<arith::AndIOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, cell, begin),
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, cell, end));
  auto cellIf = b.create<scf::IfOp>(loc, inside, /*withElse=*/false);
  b.setInsertionPointToStart(cellIf.thenBlock());
  sampleBase = mulI(k, num);
  offset = b.create<arith::SubIOp>(loc, cell, begin);
  Block *then = cellIf.thenBlock();
  then->getOperations().splice(then->getTerminator()->getIterator(),
                               sample.getBody().front().getOperations());
  SmallVector<Operation *> markers;
  for (Operation &op : *then)
    if (isa<RecordValueOp, RecordTracesOp>(op))
      markers.push_back(&op);
  for (Operation *op : markers) {
    if (auto put = dyn_cast<RecordValueOp>(op))
      lowerValue(put);
    else
      lowerTraces(cast<RecordTracesOp>(op));
  }
  sample.erase();
}

void SampleWriter::lowerValue(RecordValueOp put) {
  b.setInsertionPoint(put);
  Value slotPtr = b.create<LLVM::GEPOp>(
      loc, slots.getType(), i64, slots,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(put.getEntry())});
  Value slot = b.create<LLVM::LoadOp>(loc, i64, slotPtr);
  Value wanted =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, slot, cI64(0));
  auto ifOp = b.create<scf::IfOp>(loc, wanted, /*withElse=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value index = addI(mulI(addI(sampleBase, slot), stride), offset);
  Value at = b.create<LLVM::GEPOp>(loc, rec.getType(), f64, rec,
                                   ArrayRef<LLVM::GEPArg>{index});
  b.create<LLVM::StoreOp>(loc, put.getValue(), at);
  put.erase();
}

void SampleWriter::lowerTraces(RecordTracesOp tracesOp) {
  b.setInsertionPoint(tracesOp);
  auto tracesIf = b.create<scf::IfOp>(loc, traces, /*withElse=*/false);
  Block *then = tracesIf.thenBlock();
  then->getOperations().splice(then->getTerminator()->getIterator(),
                               tracesOp.getBody().front().getOperations());
  tracesOp.erase();
  SmallVector<RecordValueOp> puts(then->getOps<RecordValueOp>());
  for (RecordValueOp put : puts)
    lowerValue(put);
}

/// Replaces `schedule` by the reads of the recording schedule.
static void lowerSchedule(RecordScheduleOp schedule) {
  OpBuilder b(schedule);
  Location loc = schedule.getLoc();
  Type i64 = b.getI64Type();
  auto field = [&](ArgField f) {
    return argField(b, loc, schedule.getArgs(), f, i64);
  };
  Value first = field(kRecFirst);
  // A zero interval would divide by zero (a trap on x86).
  Value every = b.create<arith::MaxSIOp>(
      loc, field(kRecEvery),
      b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(1)));
  Value samples = field(kRecSamples);
  schedule.replaceAllUsesWith(ValueRange{first, every, samples});
  schedule.erase();
}

namespace {
struct LowerRecordingPass
    : public easyml::impl::LowerRecordingBase<LowerRecordingPass> {
  void runOnOperation() override {
    SmallVector<RecordScheduleOp> schedules;
    SmallVector<RecordSampleOp> samples;
    getOperation()->walk([&](Operation *op) {
      if (auto schedule = dyn_cast<RecordScheduleOp>(op))
        schedules.push_back(schedule);
      else if (auto sample = dyn_cast<RecordSampleOp>(op))
        samples.push_back(sample);
    });
    for (RecordScheduleOp schedule : schedules)
      lowerSchedule(schedule);
    for (RecordSampleOp sample : samples)
      SampleWriter(sample).lower();
  }
};
} // namespace
