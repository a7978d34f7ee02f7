//===- MapCellsToGpuThreads.cpp - one GPU thread per cell ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace easyml {
#define GEN_PASS_DEF_MAPCELLSTOGPUTHREADS
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;

namespace {
/// Replaces `loop` by one cell per thread (see the pass description).
void mapToThreads(scf::ParallelOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value block = b.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
  Value dim = b.create<gpu::BlockDimOp>(loc, gpu::Dimension::x);
  Value thread = b.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  Value index = b.create<arith::AddIOp>(
      loc, b.create<arith::MulIOp>(loc, block, dim), thread);
  Value step = loop.getStep()[0];
  if (!matchPattern(step, m_One()))
    index = b.create<arith::MulIOp>(loc, index, step);
  Value cell = b.create<arith::AddIOp>(loc, loop.getLowerBound()[0], index);
  auto inside = b.create<scf::IfOp>(
      loc,
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, cell,
                              loop.getUpperBound()[0]),
      /*withElseRegion=*/false);
  // The body moves into the scf.if, the induction variable replaced.
  Block &body = *loop.getBody();
  body.getArgument(0).replaceAllUsesWith(cell);
  Block &then = *inside.thenBlock();
  then.getOperations().splice(then.begin(), body.getOperations(),
                              body.begin(), std::prev(body.end()));
  loop.erase();
}

struct MapCellsToGpuThreadsPass
    : public easyml::impl::MapCellsToGpuThreadsBase<MapCellsToGpuThreadsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop->hasAttr(easyml::kCellLoopAttr) &&
          loop->getParentOfType<gpu::GPUFuncOp>())
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops) {
      if (loop.getNumLoops() != 1 || loop.getNumReductions() != 0) {
        loop.emitError("cell loop with ")
            << loop.getNumLoops() << " dimensions and "
            << loop.getNumReductions()
            << " reductions: easyml-map-cells-to-gpu-threads maps one "
               "dimension without reductions";
        return signalPassFailure();
      }
      mapToThreads(loop);
    }
  }
};
} // namespace
