//===- DiffusionEmitter.cpp - the entry `diffuse` -------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The monodomain diffusion operator of ABI 6 (easyml_diffusion_args in
// abi/include/easyml/ABI/ABI.h), written for every variant of
// every model by the same code as its kernels: a cell loop over the points
// [begin, end), which the CPU runs in order (cpu-simd `width` points per
// iteration once easyml-vectorize-cells has run) and a GPU kernel runs one
// point per thread. Every variant does the same IEEE operations in the
// same order (the one ABI.h documents), with no contraction into fused
// multiply-adds, so all of them give the same bits.
//
//===----------------------------------------------------------------------===//

#include "DiffusionArgs.h"
#include "KernelBuilder.h"

#include "easyml/ABI/ABI.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

Value KernelBuilder::loadPoint(Type t, Value base, Value index) {
  Value v = loadReadOnly(t, gep(base, t, index));
  v.getDefiningOp()->setAttr(kMaskedLoadAttr, b.getUnitAttr());
  return v;
}

Value KernelBuilder::neighbourDifference(Value flags, int neighbour, Value v,
                                         Value index, Value center) {
  Type i8 = b.getI8Type();
  Value want = b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(i8, neighbour | EASYML_DIFFUSION_TISSUE));
  Value has =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                              b.create<arith::AndIOp>(loc, flags, want), want);
  auto ifOp = b.create<scf::IfOp>(loc, TypeRange{f64}, has,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value n = loadPoint(f64, v, index);
  b.create<scf::YieldOp>(loc,
                         ValueRange{b.create<arith::SubFOp>(loc, n, center)});
  b.setInsertionPointToStart(ifOp.elseBlock());
  b.create<scf::YieldOp>(loc, ValueRange{cF64(0.0)});
  return ifOp.getResult(0);
}

Value KernelBuilder::laplacian(bool interior, Value flags, Value v, Value i,
                               Value center, ArrayRef<Value> strides,
                               ArrayRef<Value> coefficients) {
  const int minus[] = {EASYML_DIFFUSION_XM, EASYML_DIFFUSION_YM,
                       EASYML_DIFFUSION_ZM};
  const int plus[] = {EASYML_DIFFUSION_XP, EASYML_DIFFUSION_YP,
                      EASYML_DIFFUSION_ZP};
  Value lap;
  for (int a = 0; a < 3; ++a) {
    Value below = b.create<arith::SubIOp>(loc, i, strides[a]);
    Value above = addI(i, strides[a]);
    Value term;
    if (interior) {
      // An axis with a zero coefficient (one the grid does not have)
      // adds c_a * (0 + 0) = +0 on the other side: the same here.
      Value used = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::ONE,
                                           coefficients[a], cF64(0.0));
      auto ifOp = b.create<scf::IfOp>(loc, TypeRange{f64}, used,
                                      /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value dm = b.create<arith::SubFOp>(loc, loadPoint(f64, v, below), center);
      Value dp = b.create<arith::SubFOp>(loc, loadPoint(f64, v, above), center);
      b.create<scf::YieldOp>(
          loc, ValueRange{b.create<arith::MulFOp>(
                   loc, coefficients[a], b.create<arith::AddFOp>(loc, dm, dp))});
      b.setInsertionPointToStart(ifOp.elseBlock());
      b.create<scf::YieldOp>(loc, ValueRange{cF64(0.0)});
      term = ifOp.getResult(0);
    } else {
      Value dm = neighbourDifference(flags, minus[a], v, below, center);
      Value dp = neighbourDifference(flags, plus[a], v, above, center);
      term = b.create<arith::MulFOp>(loc, coefficients[a],
                                     b.create<arith::AddFOp>(loc, dm, dp));
    }
    lap = lap ? b.create<arith::AddFOp>(loc, lap, term).getResult() : term;
  }
  return lap;
}

void KernelBuilder::buildDiffuse() {
  MLIRContext *ctx = b.getContext();
  EntryFunction fn = entry->createFunctionTaking(
      b, loc, layout.symbol(variant, "diffuse"), diffusionArgsStructType(ctx));
  functionEntry = fn.block;
  b.setInsertionPointToStart(fn.block);
  auto arg = [&](DiffusionField f) {
    return structField(b, loc, fn.args, f, diffusionFieldType(ctx, f));
  };
  Value begin = arg(kDiffBegin), end = arg(kDiffEnd);
  Value strides[] = {arg(kDiffSx), arg(kDiffSy), arg(kDiffSz)};
  Value coefficients[] = {arg(kDiffCx), arg(kDiffCy), arg(kDiffCz)};
  Value v = hostGiven(arg(kDiffV)), out = hostGiven(arg(kDiffOut));
  Value flagsPtr = hostGiven(arg(kDiffFlags));
  Value srcGiven = arg(kDiffSrc);
  Value hasSrc = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, srcGiven,
                                        b.create<LLVM::ZeroOp>(loc, ptrTy));
  Value src = hostGiven(srcGiven);

  Value i = openCellLoop(begin, end);
  Value flags = loadPoint(b.getI8Type(), flagsPtr, i);
  Value center = loadPoint(f64, v, i);
  // lap = (cx*dx + cy*dy) + cz*dz, d_a = (minus side) + (plus side). A
  // point of tissue with both neighbours along every axis the operator
  // uses (nearly all of them) takes a side without a test per neighbour;
  // both sides compute the same bits.
  Type i8 = b.getI8Type();
  Value need = b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(i8, EASYML_DIFFUSION_TISSUE));
  const int both[] = {EASYML_DIFFUSION_XM | EASYML_DIFFUSION_XP,
                      EASYML_DIFFUSION_YM | EASYML_DIFFUSION_YP,
                      EASYML_DIFFUSION_ZM | EASYML_DIFFUSION_ZP};
  for (int a = 0; a < 3; ++a) {
    Value used = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::ONE,
                                         coefficients[a], cF64(0.0));
    need = b.create<arith::OrIOp>(
        loc, need,
        b.create<arith::SelectOp>(
            loc, used,
            b.create<arith::ConstantOp>(loc, b.getIntegerAttr(i8, both[a])),
            b.create<arith::ConstantOp>(loc, b.getIntegerAttr(i8, 0))));
  }
  Value interior = b.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::eq, b.create<arith::AndIOp>(loc, flags, need),
      need);
  auto sides = b.create<scf::IfOp>(loc, TypeRange{f64}, interior,
                                   /*withElseRegion=*/true);
  for (bool inside : {true, false}) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(inside ? sides.thenBlock() : sides.elseBlock());
    b.create<scf::YieldOp>(loc, ValueRange{laplacian(inside, flags, v, i,
                                                     center, strides,
                                                     coefficients)});
  }
  Value lap = sides.getResult(0);
  Value next = b.create<arith::AddFOp>(loc, center, lap);
  // The source term, where the caller gives one (the same for every point).
  auto withSrc = b.create<scf::IfOp>(loc, TypeRange{f64}, hasSrc,
                                     /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(withSrc.thenBlock());
    Value added = b.create<arith::AddFOp>(loc, next, loadPoint(f64, src, i));
    b.create<scf::YieldOp>(loc, ValueRange{added});
    b.setInsertionPointToStart(withSrc.elseBlock());
    b.create<scf::YieldOp>(loc, ValueRange{next});
  }
  // Points outside the tissue keep their value.
  Value tissueBit = b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(b.getI8Type(), EASYML_DIFFUSION_TISSUE));
  Value tissue = b.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::ne,
      b.create<arith::AndIOp>(loc, flags, tissueBit),
      b.create<arith::ConstantOp>(loc, b.getIntegerAttr(b.getI8Type(), 0)));
  Value result =
      b.create<arith::SelectOp>(loc, tissue, withSrc.getResult(0), center);
  store(result, gep(out, f64, i));
  // The activation pass, where the caller asks for it (the same for every
  // point).
  Value prevGiven = arg(kDiffPrev);
  Value hasPrev =
      b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, prevGiven,
                             b.create<LLVM::ZeroOp>(loc, ptrTy));
  onlyIf(hasPrev, [&] {
    ActivationArgs a;
    a.prev = hostGiven(prevGiven);
    a.lat = hostGiven(arg(kDiffLat));
    a.counts = hostGiven(arg(kDiffCounts));
    a.threshold = arg(kDiffThreshold);
    a.t1 = arg(kDiffT1);
    a.dt = arg(kDiffDt);
    activationPass(a, i, result, tissue);
  });
  finishFunction();
}

Value KernelBuilder::loadWritten(Type t, Value base, Value index) {
  Value v = load(t, gep(base, t, index));
  v.getDefiningOp()->setAttr(kMaskedLoadAttr, b.getUnitAttr());
  return v;
}

void KernelBuilder::activationPass(const ActivationArgs &a, Value i, Value x,
                                   Value tissue) {
  onlyIf(tissue, [&] { activatePoint(a, i, x); });
}

void KernelBuilder::activatePoint(const ActivationArgs &a, Value i, Value x) {
  // prev and lat are written here: plain loads, not the read-only path.
  Value before = loadWritten(f64, a.prev, i);
  Value lat = loadWritten(f64, a.lat, i);
  auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) {
    return b.create<arith::CmpFOp>(loc, p, l, r).getResult();
  };
  auto both = [&](Value l, Value r) {
    return b.create<arith::AndIOp>(loc, l, r).getResult();
  };
  Value up = both(cmp(arith::CmpFPredicate::OLT, before, a.threshold),
                  both(cmp(arith::CmpFPredicate::OGE, x, a.threshold),
                       cmp(arith::CmpFPredicate::UNO, lat, lat)));
  onlyIf(up, [&] {
    Value rise = b.create<arith::SubFOp>(loc, x, a.threshold);
    Value span = b.create<arith::SubFOp>(loc, x, before);
    Value back = b.create<arith::DivFOp>(
        loc, b.create<arith::MulFOp>(loc, a.dt, rise), span);
    store(b.create<arith::SubFOp>(loc, a.t1, back), gep(a.lat, f64, i));
    addOne(a.counts, 0);
  });
  // |x| >= inf, or unordered (NaN).
  Value bad = cmp(arith::CmpFPredicate::UGE, b.create<math::AbsFOp>(loc, x),
                  cF64(std::numeric_limits<double>::infinity()));
  onlyIf(bad, [&] { addOne(a.counts, 1); });
  store(x, gep(a.prev, f64, i));
}

void KernelBuilder::onlyIf(Value cond, llvm::function_ref<void()> body) {
  auto ifOp = b.create<scf::IfOp>(loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

void KernelBuilder::addOne(Value counts, int64_t index) {
  Type i64 = b.getI64Type();
  b.create<LLVM::AtomicRMWOp>(loc, LLVM::AtomicBinOp::add,
                              gep(counts, i64, index), cI64(1),
                              LLVM::AtomicOrdering::monotonic);
}
