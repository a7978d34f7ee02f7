//===- KernelMarkers.cpp - the step loop's recording and biomarker markers ===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Verifiers of the markers easyml-lower-to-kernels leaves in compute
// kernels for easyml-lower-recording and easyml-lower-biomarkers.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace easyml;

/// Checks that `args` is what entry points take the kernel arguments as: a
/// pointer to them (CPU) or the struct itself (GPU).
static LogicalResult verifyKernelArgs(Operation *op, Value args) {
  if (isa<LLVM::LLVMPointerType, LLVM::LLVMStructType>(args.getType()))
    return success();
  return op->emitOpError("expects the kernel arguments (an !llvm.ptr, or "
                         "the !llvm.struct a GPU kernel takes), got ")
         << args.getType();
}

LogicalResult RecordScheduleOp::verify() {
  return verifyKernelArgs(*this, getArgs());
}

LogicalResult RecordSampleOp::verify() {
  if (failed(verifyKernelArgs(*this, getArgs())))
    return failure();
  auto traces = getBody().front().getOps<RecordTracesOp>();
  if (int64_t n = std::distance(traces.begin(), traces.end()); n > 1)
    return emitOpError("expects at most one 'easyml.record_traces', found ")
           << n;
  return success();
}

LogicalResult RecordValueOp::verify() {
  if (int64_t entry = getEntryAttr().getInt(); entry < 0)
    return emitOpError("expects a recordable entry of at least 0, got ")
           << entry;
  return success();
}

LogicalResult UpdateBiomarkersOp::verify() {
  int given = !!getVmPeak() + !!getTVmPeak() + !!getDvdtMax() + !!getTDvdtMax();
  if (given != 0 && given != 4)
    return emitOpError("needs all four of Vm's extremes within the step "
                       "(peak, its time, rate, its time) or none, got ")
           << given;
  return verifyKernelArgs(*this, getArgs());
}
