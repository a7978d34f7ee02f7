//===- InitEmitter.cpp - the init entry point -----------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

LogicalResult KernelBuilder::buildInit() {
  Value args = startFunction("init");
  loadParams(args);
  Value begin = field(args, kBegin, i64), end = field(args, kEnd, i64);
  stride = field(args, kStride, i64);
  Value sv = svView(pointerField(args, kSv), stride);
  Value ext = pointerField(args, kExt);
  SmallVector<Value> extViews;
  for (size_t j = 0; j < layout.externals.size(); ++j)
    extViews.push_back(cellsView(hostGiven(load(ptrTy, gep(ext, ptrTy, j)))));
  SmallVector<bool> used = paramsReadBy(model.getInitOp().getBody());
  // Nodal parameters start from their (per-cell) parameter value.
  for (const ModelLayout::Param &p : layout.params)
    if (p.nodal)
      used[layout.paramIndex(p.name)] = true;
  Value cell = openCellLoop(begin, end);
  loadCellParams(cell, used);
  for (const ModelLayout::Param &p : layout.params)
    if (p.nodal)
      storeCell(cellParamValue(p.name), sv, cell, p.svIndex);
  for (auto [i, init] : llvm::enumerate(layout.hiddenInit))
    storeCell(cF64(init), sv, cell, layout.svSize + i);
  IRMapping mapping = modelConstants;
  for (Operation &op : model.getInitOp().getBody().front()) {
    if (auto get = dyn_cast<GetOp>(op)) {
      mapping.map(get.getResult(), cellParamValue(get.getVar()));
    } else if (auto iv = dyn_cast<InitValueOp>(op)) {
      Value v = mapping.lookup(iv.getValue());
      int s = layout.stateIndex(iv.getVar());
      if (s >= 0)
        storeCell(v, sv, cell, s);
      else if (int e = layout.externalIndex(iv.getVar()); e >= 0)
        storeOne(v, extViews[e], cell);
    } else {
      b.clone(op, mapping);
    }
  }
  finishFunction();
  return success();
}
