//===- InitEmitter.cpp - the init entry point -----------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// `init` writes the initial record of every cell in [begin, end): nodal
// parameters from their (per-cell) values, hidden values, then what the
// model's init region gives its states and externals.
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
  SmallVector<Value> extViews = externalViews(pointerField(args, kExt));
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
