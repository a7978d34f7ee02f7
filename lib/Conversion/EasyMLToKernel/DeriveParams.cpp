//===- DeriveParams.cpp - host code for derived parameters ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/EasyMLToKernel/DeriveParams.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace easyml;

void easyml::buildDeriveParams(ModelOp model, ModuleOp module,
                               const ModelLayout &layout) {
  if (layout.derivedParams.empty())
    return;
  OpBuilder b(model.getContext());
  Location loc = model.getLoc();
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  b.setInsertionPointToEnd(module.getBody());
  auto fn = b.create<func::FuncOp>(loc, layout.deriveParamsSymbol(),
                                   b.getFunctionType({ptr, ptr}, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Value params = entry->getArgument(0), keep = entry->getArgument(1);
  auto slot = [&](Value base, Type elem, int64_t index) -> Value {
    return b.create<LLVM::GEPOp>(
        loc, ptr, elem, base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
  };
  // The canonicalizer hoists constants to the model's body.
  IRMapping constants;
  for (Operation &op : model.getBody().front())
    if (op.hasTrait<OpTrait::ConstantLike>())
      b.clone(op, constants);
  Value zero = b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(0));
  llvm::DenseMap<int64_t, ParamOp> byIndex;
  for (ParamOp p : model.getBody().front().getOps<ParamOp>())
    byIndex[layout.paramIndex(p.getSymName())] = p;
  for (const ModelLayout::DerivedParam &d : layout.derivedParams) {
    ParamOp param = byIndex.lookup(d.index);
    IRMapping mapping = constants;
    // Reads see the values stored so far: a derived parameter read here
    // was written above (dependency order).
    for (Operation &op : param.getDefinition().front().without_terminator()) {
      if (auto get = dyn_cast<GetOp>(op)) {
        Value at = slot(params, f64, layout.paramIndex(get.getVar()));
        mapping.map(get.getResult(), b.create<LLVM::LoadOp>(loc, f64, at));
        continue;
      }
      b.clone(op, mapping);
    }
    Value computed = mapping.lookup(param.getDefinedValue());
    Value at = slot(params, f64, d.index);
    Value kept = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ne,
        b.create<LLVM::LoadOp>(loc, i64, slot(keep, i64, d.index)), zero);
    Value value = b.create<arith::SelectOp>(
        loc, kept, b.create<LLVM::LoadOp>(loc, f64, at), computed);
    b.create<LLVM::StoreOp>(loc, value, at);
  }
  b.create<func::ReturnOp>(loc);
}
