//===- ResolveGates.cpp - gates as derivatives where needed ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace easyml {
#define GEN_PASS_DEF_RESOLVEGATES
#include "easyml/Dialect/EasyML/Transforms/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {
struct ResolveGatesPass
    : public easyml::impl::ResolveGatesBase<ResolveGatesPass> {
  void runOnOperation() override {
    ModelOp model = getOperation();
    ComputeOp compute = model.getComputeOp();
    if (!compute)
      return;
    SmallVector<Operation *> gates;
    compute.walk([&](Operation *op) {
      if (isa<GateInfTauOp, GateAlphaBetaOp>(op))
        gates.push_back(op);
    });
    for (Operation *op : gates) {
      auto name = op->getAttrOfType<FlatSymbolRefAttr>("state");
      auto state = dyn_cast_or_null<StateOp>(
          SymbolTable::lookupSymbolIn(model, name.getAttr()));
      if (!state) {
        op->emitOpError("updates unknown state ") << name;
        return signalPassFailure();
      }
      if (state.getMethod() == Method::rush_larsen ||
          state.getMethod() == Method::sundnes)
        continue;
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value x = b.create<GetOp>(loc, b.getF64Type(), name);
      Value rate;
      if (auto g = dyn_cast<GateInfTauOp>(op)) {
        // (inf - X) / tau
        rate = b.create<arith::DivFOp>(
            loc, b.create<arith::SubFOp>(loc, g.getInf(), x), g.getTau());
      } else {
        auto ab = cast<GateAlphaBetaOp>(op);
        // alpha * (1 - X) - beta * X
        Value one = b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(1.0));
        rate = b.create<arith::SubFOp>(
            loc,
            b.create<arith::MulFOp>(loc, ab.getAlpha(),
                                    b.create<arith::SubFOp>(loc, one, x)),
            b.create<arith::MulFOp>(loc, ab.getBeta(), x));
      }
      b.create<DiffOp>(loc, name, rate);
      op->erase();
      state.setKind(StateKind::diff);
    }
  }
};
} // namespace
