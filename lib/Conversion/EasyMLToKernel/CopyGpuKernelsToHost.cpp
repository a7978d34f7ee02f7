//===- CopyGpuKernelsToHost.cpp - host copies of GPU kernels --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"

namespace easyml {
#define GEN_PASS_DEF_COPYGPUKERNELSTOHOST
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;

namespace {
/// Adds `<kernel>_host` after `module`'s last operation (see the pass
/// description).
LogicalResult copyToHost(gpu::GPUFuncOp kernel, ModuleOp module) {
  // Only what easyml-lower-to-kernels writes can run on the host: the cell
  // loop not yet mapped to threads.
  WalkResult mapped = kernel.getBody().walk([](Operation *op) {
    if (isa<gpu::GPUDialect>(op->getDialect()) && !isa<gpu::ReturnOp>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (mapped.wasInterrupted())
    return emitError(kernel.getLoc(), "kernel '")
           << kernel.getName()
           << "' uses GPU operations: copy it to the host before "
              "easyml-map-cells-to-gpu-threads";
  Location loc = kernel.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(kernel.getContext());
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  auto host = b.create<func::FuncOp>(loc, (kernel.getName() + "_host").str(),
                                     b.getFunctionType({ptr, ptr}, {}));
  Block *entry = host.addEntryBlock();
  b.setInsertionPointToStart(entry);
  IRMapping mapping;
  for (auto [i, arg] : llvm::enumerate(kernel.getArguments()))
    mapping.map(arg, b.create<LLVM::LoadOp>(loc, arg.getType(),
                                            entry->getArgument(i)));
  Region &body = kernel.getBody();
  if (!body.hasOneBlock())
    return emitError(kernel.getLoc(), "kernel '")
           << kernel.getName() << "' has more than one block";
  for (Operation &op : body.front()) {
    if (isa<gpu::ReturnOp>(op))
      b.create<func::ReturnOp>(op.getLoc());
    else
      b.clone(op, mapping);
  }
  return success();
}

struct CopyGpuKernelsToHostPass
    : public easyml::impl::CopyGpuKernelsToHostBase<CopyGpuKernelsToHostPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUFuncOp> kernels;
    for (auto gm : module.getOps<gpu::GPUModuleOp>())
      for (auto fn : gm.getOps<gpu::GPUFuncOp>())
        if (fn.isKernel())
          kernels.push_back(fn);
    for (gpu::GPUFuncOp kernel : kernels)
      if (failed(copyToHost(kernel, module)))
        return signalPassFailure();
  }
};
} // namespace
