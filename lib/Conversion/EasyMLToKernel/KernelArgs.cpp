//===- KernelArgs.cpp - the kernel argument struct as IR ------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "KernelArgs.h"

#include "easyml/ABI/ABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <cstddef>

using namespace mlir;
using namespace easyml::kernel;

// The field numbers of ArgField are the ABI's field order (every field 8
// bytes).
#define EASYML_CHECK_FIELD(field, number)                                      \
  static_assert(offsetof(easyml_kernel_args, field) == 8 * (number),           \
                "ArgField " #number " is not easyml_kernel_args::" #field)
EASYML_CHECK_FIELD(begin, kBegin);
EASYML_CHECK_FIELD(end, kEnd);
EASYML_CHECK_FIELD(nsteps, kNSteps);
EASYML_CHECK_FIELD(step0, kStep0);
EASYML_CHECK_FIELD(dt, kDt);
EASYML_CHECK_FIELD(stim, kStim);
EASYML_CHECK_FIELD(integrate_vm, kIntegrateVm);
EASYML_CHECK_FIELD(stride, kStride);
EASYML_CHECK_FIELD(sv, kSv);
EASYML_CHECK_FIELD(ext, kExt);
EASYML_CHECK_FIELD(params, kParams);
EASYML_CHECK_FIELD(tables, kTables);
EASYML_CHECK_FIELD(counters, kCounters);
EASYML_CHECK_FIELD(out, kOut);
EASYML_CHECK_FIELD(param_rows, kParamRows);
EASYML_CHECK_FIELD(rec, kRec);
EASYML_CHECK_FIELD(rec_slot, kRecSlot);
EASYML_CHECK_FIELD(rec_num, kRecNum);
EASYML_CHECK_FIELD(rec_begin, kRecBegin);
EASYML_CHECK_FIELD(rec_end, kRecEnd);
EASYML_CHECK_FIELD(rec_stride, kRecStride);
EASYML_CHECK_FIELD(rec_first, kRecFirst);
EASYML_CHECK_FIELD(rec_every, kRecEvery);
EASYML_CHECK_FIELD(rec_samples, kRecSamples);
EASYML_CHECK_FIELD(rec_traces, kRecTraces);
EASYML_CHECK_FIELD(bio, kBio);
EASYML_CHECK_FIELD(bio_ca, kBioCa);
EASYML_CHECK_FIELD(one_interval, kOneInterval);
EASYML_CHECK_FIELD(vm_before, kVmBefore);
static_assert(sizeof(easyml_kernel_args) == 8 * kNumArgFields,
              "easyml_kernel_args has fields ArgField does not know");
#undef EASYML_CHECK_FIELD

Type easyml::kernel::argFieldType(MLIRContext *ctx, int f) {
  switch (f) {
  case kDt:
  case kStim:
    return Float64Type::get(ctx);
  case kSv:
  case kExt:
  case kParams:
  case kTables:
  case kCounters:
  case kOut:
  case kParamRows:
  case kRec:
  case kRecSlot:
  case kBio:
  case kVmBefore:
    return LLVM::LLVMPointerType::get(ctx);
  default:
    return IntegerType::get(ctx, 64);
  }
}

Type easyml::kernel::argsStructType(MLIRContext *ctx) {
  SmallVector<Type> fields;
  for (int f = 0; f < kNumArgFields; ++f)
    fields.push_back(argFieldType(ctx, f));
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}

Value easyml::kernel::structField(OpBuilder &b, Location loc, Value args, int f,
                                  Type t) {
  if (isa<LLVM::LLVMStructType>(args.getType()))
    return b.create<LLVM::ExtractValueOp>(loc, args, ArrayRef<int64_t>{f});
  // Every field is 8 bytes: field f is the f-th i64 of the struct.
  Value at =
      b.create<LLVM::GEPOp>(loc, args.getType(), b.getI64Type(), args,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(f)});
  return b.create<LLVM::LoadOp>(loc, t, at);
}
