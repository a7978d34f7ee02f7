//===- EntryStrategy.cpp - CPU functions or GPU kernels -------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "EntryStrategy.h"
#include "KernelArgs.h"
#include "KernelMemory.h"

#include "easyml/ABI/ABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

EntryStrategy::~EntryStrategy() = default;

namespace {

/// Host functions called through the C ABI: a pointer to the kernel
/// arguments, everything read through it.
class CpuEntry : public EntryStrategy {
public:
  CpuEntry(ModuleOp module, VariantAttr target)
      : module(module), target(target) {}

  EntryFunction createFunction(OpBuilder &b, Location loc,
                               StringRef symbol) override {
    b.setInsertionPointToEnd(module.getBody());
    auto fn = b.create<func::FuncOp>(
        loc, symbol,
        b.getFunctionType({LLVM::LLVMPointerType::get(b.getContext())}, {}));
    // What easyml-vectorize-cells reads the vector width from.
    fn->setAttr(VariantAttr::getAttrName(), target);
    Block *entry = fn.addEntryBlock();
    return {entry, entry->getArgument(0), Value()};
  }

  EntryFunction createFunctionTaking(OpBuilder &b, Location loc,
                                     StringRef symbol,
                                     Type argsStruct) override {
    // A host function of the C ABI: a pointer to the struct.
    return createFunction(b, loc, symbol);
  }

  void createReturn(OpBuilder &b, Location loc) override {
    b.create<func::ReturnOp>(loc);
  }

  /// CPU kernels read a row for any parameter the simulation gives one for.
  SmallVector<bool>
  paramsPerCell(const ModelLayout &layout,
                ArrayRef<std::string> perCellParams) const override {
    return SmallVector<bool>(layout.params.size() + layout.flags.size(), true);
  }

private:
  ModuleOp module;
  VariantAttr target;
};

/// Kernels of a GPU variant: one thread per cell, in a gpu.module of their
/// own, taking the kernel arguments by value, then the parameters and
/// flags by value where they fit (ABI 4: both live in the launch's
/// parameter space, which the GPU reads as constant-bank operands instead
/// of holding them in registers). Tables and derived values are built on
/// the host by a CPU variant.
class GpuEntry : public EntryStrategy {
public:
  GpuEntry(ModuleOp module, VariantAttr target, const ModelLayout &layout)
      : module(module), target(target),
        moduleSymbol(layout.symbol(target.getName(), "kernels")),
        numByValue(layout.gpuParamsByValue()) {}

  void prepareModule(OpBuilder &b, Location loc) override {
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    b.setInsertionPointToEnd(module.getBody());
    gpuModule = b.create<gpu::GPUModuleOp>(loc, moduleSymbol);
    gpuModule->setAttr(VariantAttr::getAttrName(), target);
  }

  EntryFunction createFunction(OpBuilder &b, Location loc,
                               StringRef symbol) override {
    b.setInsertionPoint(gpuModule.getBody()->getTerminator());
    SmallVector<Type> inputs{argsStructType(b.getContext())};
    if (numByValue)
      inputs.push_back(LLVM::LLVMArrayType::get(b.getF64Type(), numByValue));
    auto fn =
        b.create<gpu::GPUFuncOp>(loc, symbol, b.getFunctionType(inputs, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    setLaunchBounds(b, fn);
    Block *entry = &fn.getBody().front();
    Value params =
        entry->getNumArguments() > 1 ? entry->getArgument(1) : Value();
    return {entry, entry->getArgument(0), params};
  }

  EntryFunction createFunctionTaking(OpBuilder &b, Location loc,
                                     StringRef symbol,
                                     Type argsStruct) override {
    b.setInsertionPoint(gpuModule.getBody()->getTerminator());
    auto fn = b.create<gpu::GPUFuncOp>(loc, symbol,
                                       b.getFunctionType({argsStruct}, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    setLaunchBounds(b, fn);
    Block *entry = &fn.getBody().front();
    return {entry, entry->getArgument(0), Value()};
  }

  void createReturn(OpBuilder &b, Location loc) override {
    b.create<gpu::ReturnOp>(loc);
  }

  /// Only a value the same for every cell can be a constant-bank operand;
  /// one read per cell is held in a register through the step loop. So
  /// GPU kernels read rows only for the parameters named by
  /// per-cell-params (and those derived from them).
  SmallVector<bool>
  paramsPerCell(const ModelLayout &layout,
                ArrayRef<std::string> perCellParams) const override {
    SmallVector<bool> perCell(layout.params.size() + layout.flags.size(),
                              false);
    for (int64_t i : layout.paramIndices(perCellParams))
      perCell[i] = true;
    return perCell;
  }

  bool takesParamsByValue() const override { return numByValue != 0; }

  /// Host pointers in the global address space (KernelMemory).
  Value hostGiven(OpBuilder &b, Location loc, Value pointer) const override {
    return KernelMemory(/*gpu=*/true).hostGiven(b, loc, pointer);
  }

  Attribute memorySpace(OpBuilder &b) const override {
    return KernelMemory(/*gpu=*/true).memorySpace(b);
  }

  /// Invariant loads go through the read-only data path (NVPTX
  /// ld.global.nc; constant loads on AMDGPU) and may be hoisted or
  /// reordered freely. (Not on the CPU: the same memory changes between
  /// calls, e.g. tables rebuilt for a new dt.)
  bool marksReadOnlyLoadsInvariant() const override { return true; }

  /// What the step loop does not need is kept out of it (KernelMemory).
  Value keepLocal(OpBuilder &b, Location loc, Value v) const override {
    return KernelMemory(/*gpu=*/true).keepLocal(b, loc, v);
  }

  bool recomputesAddressesAfterSteps() const override { return true; }

private:
  /// Launch bound: the runtime never launches more threads per block, and
  /// the register allocators may count on it. On its own, ptxas reads
  /// .maxntid as an occupancy goal and caps registers (128 at 256 threads,
  /// 32 at 128: heavy spills); .minnctapersm 1 asks for one resident block
  /// only, leaving the full 255 registers.
  void setLaunchBounds(OpBuilder &b, gpu::GPUFuncOp fn) const {
    switch (target.getKind()) {
    case VariantKind::cuda:
      fn->setAttr("nvvm.maxntid",
                  b.getDenseI32ArrayAttr({EASYML_GPU_MAX_BLOCK_SIZE, 1, 1}));
      fn->setAttr("nvvm.minctasm", b.getI32IntegerAttr(1));
      return;
    case VariantKind::rocm:
      fn->setAttr(
          "rocdl.flat_work_group_size",
          b.getStringAttr("1," + std::to_string(EASYML_GPU_MAX_BLOCK_SIZE)));
      return;
    case VariantKind::baseline:
    case VariantKind::cpu_simd:
      break;
    }
    llvm_unreachable("not a GPU variant");
  }

  ModuleOp module;
  VariantAttr target;
  std::string moduleSymbol;
  /// How many doubles the kernels take by value after the kernel arguments
  /// (ModelLayout::gpuParamsByValue; 0 when they do not fit).
  int64_t numByValue;
  gpu::GPUModuleOp gpuModule;
};

} // namespace

std::unique_ptr<EntryStrategy>
EntryStrategy::create(ModuleOp module, VariantAttr target,
                      const ModelLayout &layout) {
  if (target.isGpu())
    return std::make_unique<GpuEntry>(module, target, layout);
  return std::make_unique<CpuEntry>(module, target);
}
