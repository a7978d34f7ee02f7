//===- KernelMemory.cpp - how kernels address host-given memory -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "KernelMemory.h"

#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

/// The address space of device memory in both GPU targets' LLVM back ends
/// (NVPTX and AMDGPU).
static constexpr unsigned kGlobalAddressSpace = 1;

KernelMemory KernelMemory::of(Operation *op) {
  return KernelMemory(op->getParentOfType<gpu::GPUFuncOp>() != nullptr);
}

/// On a GPU every pointer the host passes is device memory
/// (cuMemAlloc/hipMalloc), so it is cast to the global address space:
/// global instead of generic (flat) loads, stores and atomics.
Value KernelMemory::hostGiven(OpBuilder &b, Location loc, Value pointer) const {
  if (!gpu)
    return pointer;
  return b.create<LLVM::AddrSpaceCastOp>(
      loc, LLVM::LLVMPointerType::get(b.getContext(), kGlobalAddressSpace),
      pointer);
}

Attribute KernelMemory::memorySpace(OpBuilder &b) const {
  if (!gpu)
    return {};
  return b.getI64IntegerAttr(kGlobalAddressSpace);
}

/// The step loop of a GPU kernel keeps every state in registers: what it
/// does not need is kept out of it with an easyml.opaque copy.
Value KernelMemory::keepLocal(OpBuilder &b, Location loc, Value v) const {
  if (!gpu)
    return v;
  return b.create<OpaqueOp>(loc, v.getType(), v);
}

Value kernel::memoryView(OpBuilder &b, Location loc, Value ptr,
                         ArrayRef<Value> sizes, ArrayRef<Value> strides,
                         Attribute space) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  auto cI64 = [&](int64_t v) {
    return b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(v));
  };
  int64_t rank = static_cast<int64_t>(sizes.size());
  assert(strides.size() + 1 == sizes.size() && "leading strides only");
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  SmallVector<int64_t> layoutStrides(rank - 1, ShapedType::kDynamic);
  layoutStrides.push_back(1);
  MemRefLayoutAttrInterface layoutAttr;
  if (rank > 1)
    layoutAttr = StridedLayoutAttr::get(ctx, 0, layoutStrides);
  auto type = MemRefType::get(shape, b.getF64Type(), layoutAttr, space);
  // The descriptor the memref-to-LLVM type converter expects.
  auto sizesTy = LLVM::LLVMArrayType::get(i64, rank);
  auto descTy = LLVM::LLVMStructType::getLiteral(
      ctx, {ptr.getType(), ptr.getType(), i64, sizesTy, sizesTy});
  Value d = b.create<LLVM::UndefOp>(loc, descTy);
  auto insert = [&](Value v, ArrayRef<int64_t> pos) {
    d = b.create<LLVM::InsertValueOp>(loc, d, v, pos);
  };
  insert(ptr, {0});
  insert(ptr, {1});
  insert(cI64(0), {2});
  for (int64_t r = 0; r < rank; ++r) {
    insert(sizes[r], {3, r});
    insert(r + 1 < rank ? strides[r] : cI64(1), {4, r});
  }
  return b.create<UnrealizedConversionCastOp>(loc, type, d).getResult(0);
}
