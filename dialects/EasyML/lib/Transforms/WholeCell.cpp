//===- WholeCell.cpp - the whole cell as one adaptive system --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Vm becomes a state with dVm/dt = (stimulus - Iion) * vm_free, and every
// state with a derivative or a gate joins one `cvode` group, which
// easyml-expand-integrators integrates with per-cell adaptive sub-steps.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace easyml {
#define GEN_PASS_DEF_WHOLECELL
#include "easyml/Dialect/EasyML/Transforms/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {

/// The external the simulator calls `name`, or null.
ExternalOp findExternal(ModelOp model, StringRef name) {
  for (Operation &op : model.getBody().front())
    if (auto e = dyn_cast<ExternalOp>(op); e && e.getExtName() == name)
      return e;
  return nullptr;
}

/// The first free symbol name among `base`, `base.1`, `base.2`, ...
std::string freeName(ModelOp model, StringRef base) {
  std::string name = base.str();
  for (int k = 1; SymbolTable::lookupSymbolIn(model, name); ++k)
    name = (base + "." + Twine(k)).str();
  return name;
}

struct WholeCellPass : public easyml::impl::WholeCellBase<WholeCellPass> {
  void runOnOperation() override {
    ModelOp model = getOperation();
    if (model.getWholeCellVm() || model.isExpanded())
      return;
    ComputeOp compute = model.getComputeOp();
    InitOp init = model.getInitOp();
    if (!compute || !init)
      return;
    ExternalOp vm = findExternal(model, "Vm");
    ExternalOp iion = findExternal(model, "Iion");
    if (!vm || vm.getAccess() != Access::read) {
      model.emitError("easyml-whole-cell: model '")
          << model.getSymName()
          << (vm ? "' writes Vm itself" : "' has no Vm external")
          << ": the whole-cell integrator needs a Vm that the model reads";
      return signalPassFailure();
    }
    OutputOp iionOut;
    compute.walk([&](OutputOp out) {
      if (iion && out.getVar() == iion.getSymName())
        iionOut = out;
    });
    if (!iionOut) {
      model.emitError("easyml-whole-cell: model '")
          << model.getSymName()
          << "' computes no Iion: Vm's derivative is the stimulus minus Iion";
      return signalPassFailure();
    }
    joinOneGroup(model);
    std::string name = freeName(model, "Vm.cell");
    declareState(model, vm, name);
    initialValue(init, vm, name);
    derivative(compute, vm, iionOut, name);
    model->setAttr(ModelOp::getWholeCellAttrName(),
                   FlatSymbolRefAttr::get(&getContext(), name));
  }

  /// Every state integrated by a method (not `.store()`) into group 0 of
  /// `cvode`.
  void joinOneGroup(ModelOp model) {
    Builder b(&getContext());
    for (Operation &op : model.getBody().front()) {
      auto s = dyn_cast<StateOp>(op);
      if (!s || s.getKind() == StateKind::store)
        continue;
      s.setMethod(Method::cvode);
      s.setGroupAttr(b.getI32IntegerAttr(0));
    }
  }

  /// The Vm state, after the model's last state.
  void declareState(ModelOp model, ExternalOp vm, StringRef name) {
    Block &body = model.getBody().front();
    Operation *after = vm;
    for (Operation &op : body)
      if (isa<StateOp>(op))
        after = &op;
    OpBuilder b(model.getContext());
    b.setInsertionPointAfter(after);
    auto s = b.create<StateOp>(vm.getLoc(), name, StateKind::diff,
                               Method::cvode, FloatAttr(), FloatAttr(),
                               vm.getUnitsAttr(), b.getI32IntegerAttr(0),
                               /*trace=*/false, /*default_init=*/false);
    (void)s;
  }

  /// The state starts where the external does (the kernels load Vm from
  /// the simulator at every step, so this only fills the state's slot).
  void initialValue(InitOp init, ExternalOp vm, StringRef name) {
    Block &block = init.getBody().front();
    Value start;
    for (Operation &op : block)
      if (auto iv = dyn_cast<InitValueOp>(op);
          iv && iv.getVar() == vm.getSymName())
        start = iv.getValue();
    OpBuilder b = OpBuilder::atBlockEnd(&block);
    if (!start)
      start = b.create<arith::ConstantOp>(vm.getLoc(), b.getF64FloatAttr(0.0));
    b.create<InitValueOp>(vm.getLoc(), name, start);
  }

  /// Reads of Vm read the state; its derivative ends the step.
  void derivative(ComputeOp compute, ExternalOp vm, OutputOp iionOut,
                  StringRef name) {
    Block &block = compute.getBody().front();
    compute.walk([&](GetOp get) {
      if (get.getVar() == vm.getSymName())
        get.setVarAttr(FlatSymbolRefAttr::get(get.getContext(), name));
    });
    OpBuilder b = OpBuilder::atBlockEnd(&block);
    Location loc = iionOut.getLoc();
    Value stim = b.create<StimulusOp>(loc, b.getF64Type());
    Value free = b.create<VmFreeOp>(loc, b.getF64Type());
    Value rate = b.create<arith::MulFOp>(
        loc, b.create<arith::SubFOp>(loc, stim, iionOut.getValue()), free);
    b.create<DiffOp>(loc, name, rate);
  }
};

} // namespace
