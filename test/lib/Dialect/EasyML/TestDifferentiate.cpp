//===- TestDifferentiate.cpp - test pass for the derivative rules ---------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// test-easyml-differentiate: in every func.func, returns after the
// function's results their derivatives with respect to each f64 argument
// (d result0/d arg0, d result0/d arg1, ..., d result1/d arg0, ...), built by
// easyml::differentiate from the DifferentiableOpInterface rules, so lit
// tests check each rule on hand-written IR.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
struct TestDifferentiatePass
    : public PassWrapper<TestDifferentiatePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestDifferentiatePass)

  StringRef getArgument() const final { return "test-easyml-differentiate"; }
  StringRef getDescription() const final {
    return "Return the derivatives of each function's results with respect "
           "to its f64 arguments (tests the derivative rules)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, math::MathDialect>();
    easyml::registerDifferentiableOpInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
    if (!ret)
      return;
    SmallVector<Value> seeds;
    for (BlockArgument arg : body.getArguments())
      if (arg.getType().isF64())
        seeds.push_back(arg);
    SmallVector<Value> outputs(ret.getOperands());
    OpBuilder builder(ret);
    FailureOr<std::vector<easyml::Tangent>> tangents =
        easyml::differentiate(builder, func.getLoc(), outputs, seeds);
    if (failed(tangents))
      return signalPassFailure();
    builder.setInsertionPoint(ret);
    SmallVector<Value> results(outputs);
    Value zero;
    for (const easyml::Tangent &t : *tangents)
      for (Value d : t) {
        if (!d) {
          if (!zero)
            zero = builder.create<arith::ConstantOp>(
                func.getLoc(), builder.getF64FloatAttr(0.0));
          d = zero;
        }
        results.push_back(d);
      }
    builder.create<func::ReturnOp>(ret.getLoc(), results);
    ret.erase();
    func.setFunctionType(builder.getFunctionType(
        body.getArgumentTypes(), ValueRange(results).getTypes()));
  }
};
} // namespace

namespace easyml::test {
void registerTestDifferentiatePass() {
  PassRegistration<TestDifferentiatePass>();
}
} // namespace easyml::test
