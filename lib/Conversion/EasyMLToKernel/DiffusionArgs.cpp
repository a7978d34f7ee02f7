//===- DiffusionArgs.cpp - the diffusion argument struct as IR ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "DiffusionArgs.h"

#include "easyml/ABI/ABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <cstddef>

using namespace mlir;
using namespace easyml::kernel;

// The field numbers of DiffusionField are the ABI's field order (every
// field 8 bytes).
#define EASYML_CHECK_FIELD(field, number)                                      \
  static_assert(offsetof(easyml_diffusion_args, field) == 8 * (number),        \
                "DiffusionField " #number                                      \
                " is not easyml_diffusion_args::" #field)
EASYML_CHECK_FIELD(begin, kDiffBegin);
EASYML_CHECK_FIELD(end, kDiffEnd);
EASYML_CHECK_FIELD(sx, kDiffSx);
EASYML_CHECK_FIELD(sy, kDiffSy);
EASYML_CHECK_FIELD(sz, kDiffSz);
EASYML_CHECK_FIELD(cx, kDiffCx);
EASYML_CHECK_FIELD(cy, kDiffCy);
EASYML_CHECK_FIELD(cz, kDiffCz);
EASYML_CHECK_FIELD(v, kDiffV);
EASYML_CHECK_FIELD(out, kDiffOut);
EASYML_CHECK_FIELD(flags, kDiffFlags);
EASYML_CHECK_FIELD(src, kDiffSrc);
EASYML_CHECK_FIELD(prev, kDiffPrev);
EASYML_CHECK_FIELD(lat, kDiffLat);
EASYML_CHECK_FIELD(counts, kDiffCounts);
EASYML_CHECK_FIELD(threshold, kDiffThreshold);
EASYML_CHECK_FIELD(t1, kDiffT1);
EASYML_CHECK_FIELD(dt, kDiffDt);
static_assert(sizeof(easyml_diffusion_args) == 8 * kNumDiffusionFields,
              "easyml_diffusion_args has fields DiffusionField does not know");
#undef EASYML_CHECK_FIELD

Type easyml::kernel::diffusionFieldType(MLIRContext *ctx, int f) {
  switch (f) {
  case kDiffCx:
  case kDiffCy:
  case kDiffCz:
  case kDiffThreshold:
  case kDiffT1:
  case kDiffDt:
    return Float64Type::get(ctx);
  case kDiffV:
  case kDiffOut:
  case kDiffFlags:
  case kDiffSrc:
  case kDiffPrev:
  case kDiffLat:
  case kDiffCounts:
    return LLVM::LLVMPointerType::get(ctx);
  default:
    return IntegerType::get(ctx, 64);
  }
}

Type easyml::kernel::diffusionArgsStructType(MLIRContext *ctx) {
  SmallVector<Type> fields;
  for (int f = 0; f < kNumDiffusionFields; ++f)
    fields.push_back(diffusionFieldType(ctx, f));
  return LLVM::LLVMStructType::getLiteral(ctx, fields);
}
