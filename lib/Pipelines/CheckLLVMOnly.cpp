//===- CheckLLVMOnly.cpp - fail on what was not lowered to LLVM -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace easyml {
#define GEN_PASS_DEF_CHECKLLVMONLY
#include "easyml/Pipelines/Passes.h.inc"
} // namespace easyml

using namespace mlir;

namespace {
struct CheckLLVMOnlyPass
    : public easyml::impl::CheckLLVMOnlyBase<CheckLLVMOnlyPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (isa<ModuleOp>(op) || isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      // GPU code objects: embedded by the back end, not translated.
      if (isa<gpu::BinaryOp>(op))
        return WalkResult::skip();
      op->emitError("operation '")
          << op->getName() << "' was not lowered to the LLVM dialect";
      signalPassFailure();
      return WalkResult::interrupt();
    });
  }
};
} // namespace
