//===- ReciprocalDivisors.cpp - x / d as x * (1/d) for uniform d ----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"
#include "easyml/Dialect/EasyML/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace easyml {
#define GEN_PASS_DEF_RECIPROCALDIVISORS
#include "easyml/Dialect/EasyML/Transforms/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {

/// Which values are the same for every cell: constants, shared parameters,
/// flags, dt, and pure arithmetic of those.
class Uniformity {
public:
  explicit Uniformity(ModelOp model) : symbols_(model) {}

  bool uniform(Value v) {
    auto it = known_.find(v);
    if (it != known_.end())
      return it->second;
    bool u = compute(v);
    known_[v] = u;
    return u;
  }

private:
  bool compute(Value v) {
    Operation *op = v.getDefiningOp();
    if (!op)
      return false;
    if (isa<arith::ConstantOp, TimeStepOp>(op))
      return true;
    if (auto get = dyn_cast<GetOp>(op)) {
      Operation *decl = symbols_.lookup(get.getVar());
      if (auto param = dyn_cast_or_null<ParamOp>(decl))
        return !param.getNodal();
      return isa_and_nonnull<FlagOp>(decl);
    }
    if (op->getNumRegions() != 0 || op->getNumResults() != 1 ||
        !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
      return false;
    return llvm::all_of(op->getOperands(),
                        [&](Value o) { return uniform(o); });
  }

  SymbolTable symbols_;
  DenseMap<Value, bool> known_;
};

struct ReciprocalDivisorsPass
    : public easyml::impl::ReciprocalDivisorsBase<ReciprocalDivisorsPass> {
  void runOnOperation() override {
    ModelOp model = getOperation();
    Uniformity uniformity(model);
    SmallVector<arith::DivFOp> divisions;
    model.walk([&](ComputeOp compute) {
      compute.walk([&](arith::DivFOp op) {
        if (uniformity.uniform(op.getRhs()) &&
            !uniformity.uniform(op.getLhs()))
          divisions.push_back(op);
      });
    });
    // One reciprocal per divisor, right after it is computed.
    DenseMap<Value, Value> reciprocal;
    for (arith::DivFOp op : divisions) {
      Value d = op.getRhs();
      Value &r = reciprocal[d];
      if (!r) {
        OpBuilder b(d.getDefiningOp()->getBlock(),
                    std::next(Block::iterator(d.getDefiningOp())));
        Value one = b.create<arith::ConstantOp>(
            op.getLoc(), b.getFloatAttr(d.getType(), 1.0));
        r = b.create<arith::DivFOp>(op.getLoc(), one, d, op.getFastmathAttr());
      }
      OpBuilder b(op);
      Value product = b.create<arith::MulFOp>(op.getLoc(), op.getLhs(), r,
                                              op.getFastmathAttr());
      op.replaceAllUsesWith(product);
      op.erase();
    }
  }
};

} // namespace
