//===- LowerBiomarkers.cpp - biomarker accumulators -----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// easyml-lower-biomarkers: each easyml.update_biomarkers of a compute
// kernel to the update of the cell's biomarker accumulators (ABI 3 `bio`)
// after the step; the runtime turns them into one table row per cell at
// each beat. The definitions are in docs/biomarkers.md.
//
// Every update is a select, so vector lanes and GPU threads do not
// diverge. Register pressure matters on GPUs, where the step loop keeps
// every state in registers: the rows' addresses are computed inside the
// branch (on the CPU the stride is loaded there: the stores below may
// alias the arguments, so nothing derived from it is hoisted; on a GPU
// from an easyml.opaque copy of it), and each accumulator is loaded,
// updated and stored before the next is loaded.
//
//===----------------------------------------------------------------------===//

#include "KernelArgs.h"
#include "KernelMemory.h"

#include "easyml/Conversion/Passes.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"
#include "easyml/ABI/ABI.h"

#include <limits>

namespace easyml {
#define GEN_PASS_DEF_LOWERBIOMARKERS
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

namespace {

/// The accumulators of the current cells (a [row][cell] view of `bio`) and
/// the arithmetic their updates are written in.
class Accumulators {
public:
  Accumulators(OpBuilder &b, Location loc, Value rows, Value cellIndex)
      : b(b), loc(loc), rows(rows), cellIndex(cellIndex) {}

  /// Resting potential, peak, upstroke, repolarisation times, trough and
  /// early afterdepolarisations, from the step that took Vm from `v0` to
  /// `v1` between times `t` and `t1` (`tMid` halfway) with step `dt`.
  void updateVm(Value t, Value t1, Value tMid, Value dt, Value v0, Value v1,
                Value nan, UpdateBiomarkersOp update);
  /// Calcium minimum, maximum and the time of the maximum: the new state
  /// in sv row `caRow` (none when -1), at time `t1`.
  void updateCalcium(Value caRow, ArrayRef<Value> states, Value t1, Value nan);

private:
  SmallVector<Value> at(int row) {
    return {b.create<arith::ConstantIndexOp>(loc, row), cellIndex};
  }
  Value ld(int row) { return b.create<memref::LoadOp>(loc, rows, at(row)); }
  void st(int row, Value v) {
    b.create<memref::StoreOp>(loc, v, rows, at(row));
  }
  Value c(double v) {
    return b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(v));
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return b.create<arith::CmpFOp>(loc, p, x, y);
  }
  Value sel(Value cond, Value x, Value y) {
    return b.create<arith::SelectOp>(loc, cond, x, y);
  }
  Value isNaN(Value x) { return cmp(arith::CmpFPredicate::UNO, x, x); }
  Value sub(Value x, Value y) { return b.create<arith::SubFOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<arith::MulFOp>(loc, x, y); }
  Value add(Value x, Value y) { return b.create<arith::AddFOp>(loc, x, y); }
  Value notI(Value x) {
    Value one =
        b.create<arith::ConstantOp>(loc, b.getIntegerAttr(b.getI1Type(), 1));
    return b.create<arith::XOrIOp>(loc, x, one);
  }
  Value andI(Value x, Value y) { return b.create<arith::AndIOp>(loc, x, y); }

  OpBuilder &b;
  Location loc;
  Value rows, cellIndex;
};

} // namespace

void Accumulators::updateVm(Value t, Value t1, Value tMid, Value dt, Value v0,
                            Value v1, Value nan, UpdateBiomarkersOp update) {
  Value restOld = ld(EASYML_BIO_V_REST);
  Value rest = sel(isNaN(restOld), v0, restOld);
  st(EASYML_BIO_V_REST, rest);
  // A new peak (always, while the peak is still NaN) restarts
  // repolarisation.
  // The step's highest Vm and largest dVm/dt: at its ends, or within it
  // where the model's sub-steps saw more.
  Value vTop = v1, tTop = t1;
  if (update.getVmPeak()) {
    Value inside = cmp(arith::CmpFPredicate::OGT, update.getVmPeak(), v1);
    vTop = sel(inside, update.getVmPeak(), v1);
    tTop = sel(inside, add(t, update.getTVmPeak()), t1);
  }
  Value peakOld = ld(EASYML_BIO_V_PEAK);
  Value peak = cmp(arith::CmpFPredicate::UGT, vTop, peakOld);
  Value vPeak = sel(peak, vTop, peakOld);
  st(EASYML_BIO_V_PEAK, vPeak);
  st(EASYML_BIO_T_PEAK, sel(peak, tTop, ld(EASYML_BIO_T_PEAK)));
  Value dvdt = b.create<arith::DivFOp>(loc, sub(v1, v0), dt), tRate = tMid;
  if (update.getDvdtMax()) {
    Value faster = cmp(arith::CmpFPredicate::OGT, update.getDvdtMax(), dvdt);
    dvdt = sel(faster, update.getDvdtMax(), dvdt);
    tRate = sel(faster, add(t, update.getTDvdtMax()), tMid);
  }
  Value dvdtOld = ld(EASYML_BIO_DVDT_MAX);
  Value up = cmp(arith::CmpFPredicate::UGT, dvdt, dvdtOld);
  st(EASYML_BIO_DVDT_MAX, sel(up, dvdt, dvdtOld));
  st(EASYML_BIO_T_UPSTROKE, sel(up, tRate, ld(EASYML_BIO_T_UPSTROKE)));

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
    crossed[k] = sel(peak, nan, sel(cross, add(t, mul(dt, w)), old));
    st(row, crossed[k]);
  }
  Value troughOld = ld(EASYML_BIO_V_TROUGH);
  Value lower = cmp(arith::CmpFPredicate::ULT, v1, troughOld);
  Value trough = sel(peak, nan, sel(lower, v1, troughOld));
  st(EASYML_BIO_V_TROUGH, trough);
  // An early afterdepolarisation: Vm rises more than 1 mV above its
  // trough after 50% and before 90% repolarisation.
  Value rising = andI(andI(notI(isNaN(crossed[1])), isNaN(crossed[2])),
                      cmp(arith::CmpFPredicate::OGT, v1, add(trough, c(1.0))));
  Value ead = b.create<arith::OrIOp>(
      loc, cmp(arith::CmpFPredicate::OGT, ld(EASYML_BIO_EAD), c(0.5)), rising);
  st(EASYML_BIO_EAD, sel(peak, c(0.0), sel(ead, c(1.0), c(0.0))));
}

void Accumulators::updateCalcium(Value caRow, ArrayRef<Value> states, Value t1,
                                 Value nan) {
  Value ca = nan;
  for (auto [i, v] : llvm::enumerate(states)) {
    Value is = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq, caRow,
        b.create<arith::ConstantOp>(
            loc, b.getI64IntegerAttr(static_cast<int64_t>(i))));
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

/// Replaces `update` by the update of the accumulators of its cell, when
/// the kernel arguments have them.
static void lowerUpdate(UpdateBiomarkersOp update) {
  OpBuilder b(update);
  Location loc = update.getLoc();
  KernelMemory memory = KernelMemory::of(update);
  Type ptrTy = LLVM::LLVMPointerType::get(b.getContext());
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  Value args = update.getArgs();
  auto field = [&](ArgField f, Type t) { return argField(b, loc, args, f, t); };
  auto cI64 = [&](int64_t v) {
    return b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(v));
  };
  auto cF64 = [&](double v) {
    return b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(v));
  };
  Value raw = field(kBio, ptrTy);
  Value null = b.create<LLVM::ZeroOp>(loc, ptrTy);
  Value on = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, raw, null);
  auto bioIf = b.create<scf::IfOp>(loc, on, /*withElse=*/false);
  b.setInsertionPointToStart(bioIf.thenBlock());
  // On a GPU the arguments are constant-bank values, so the rows'
  // addresses would be hoisted out of the step loop and held in
  // registers through it: an opaque stride keeps them in this branch.
  Value rowStride = memory.keepLocal(b, loc, field(kStride, i64));
  Value bio = memoryView(b, loc, memory.hostGiven(b, loc, raw),
                         {cI64(EASYML_BIO_NUM_ROWS), rowStride}, {rowStride},
                         memory.memorySpace(b));
  Accumulators acc(
      b, loc, bio,
      b.create<arith::IndexCastOp>(loc, b.getIndexType(), update.getCell()));
  Value dt = update.getDt();
  Value t = b.create<arith::MulFOp>(
      loc, b.create<arith::SIToFPOp>(loc, f64, update.getStep()), dt);
  Value t1 = b.create<arith::AddFOp>(loc, t, dt);
  Value tMid = b.create<arith::AddFOp>(
      loc, t, b.create<arith::MulFOp>(loc, dt, cF64(0.5)));
  Value nan = cF64(std::numeric_limits<double>::quiet_NaN());
  acc.updateVm(t, t1, tMid, dt, update.getVmBefore(), update.getVmAfter(), nan,
               update);
  Value caRow = field(kBioCa, i64);
  acc.updateCalcium(caRow, llvm::to_vector(update.getStates()), t1, nan);
  update.erase();
}

namespace {
struct LowerBiomarkersPass
    : public easyml::impl::LowerBiomarkersBase<LowerBiomarkersPass> {
  void runOnOperation() override {
    SmallVector<UpdateBiomarkersOp> updates;
    getOperation()->walk(
        [&](UpdateBiomarkersOp update) { updates.push_back(update); });
    for (UpdateBiomarkersOp update : updates)
      lowerUpdate(update);
  }
};
} // namespace
