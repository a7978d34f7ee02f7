//===- KeepInvariantsInLoops.cpp - no LICM in GPU kernels' loops ----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Dominance.h"

namespace easyml {
#define GEN_PASS_DEF_KEEPINVARIANTSINLOOPS
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;

namespace {
struct KeepInvariantsInLoopsPass
    : public easyml::impl::KeepInvariantsInLoopsBase<
          KeepInvariantsInLoopsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto noLicm = LLVM::LoopAnnotationAttr::get(
        ctx, /*disableNonforced=*/{}, /*vectorize=*/{}, /*interleave=*/{},
        /*unroll=*/{}, /*unrollAndJam=*/{},
        LLVM::LoopLICMAttr::get(ctx, BoolAttr::get(ctx, true),
                                /*versioningDisable=*/{}),
        /*distribute=*/{}, /*pipeline=*/{}, /*peeled=*/{}, /*unswitch=*/{},
        /*mustProgress=*/{}, /*isVectorized=*/{}, /*startLoc=*/{},
        /*endLoc=*/{}, /*parallelAccesses=*/{});
    getOperation()->walk([&](FunctionOpInterface fn) {
      if (fn.isExternal())
        return;
      DominanceInfo dominance(fn);
      fn->walk([&](cf::BranchOp br) {
        // A back edge: its target dominates the branch.
        if (dominance.dominates(br.getDest(), br->getBlock()))
          br->setAttr("loop_annotation", noLicm);
      });
    });
  }
};
} // namespace
