//===- LowerOpaque.cpp - easyml.opaque to inline assembly -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/Passes.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace easyml {
#define GEN_PASS_DEF_LOWEROPAQUE
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

/// A register of the value's size on `target`, the result tied to the
/// operand.
static StringRef tiedRegisterConstraints(Backend target) {
  switch (target) {
  case Backend::Cpu:
    return "=r,0";
  case Backend::Cuda:
    return "=l,0";
  case Backend::Rocm:
    return "=v,0";
  }
  llvm_unreachable("unknown backend");
}

namespace {
struct LowerOpaquePass
    : public easyml::impl::LowerOpaqueBase<LowerOpaquePass> {
  using LowerOpaqueBase::LowerOpaqueBase;

  std::string checkOptions() const {
    if (const std::optional<std::string> &bad = unknownValue(target))
      return "unknown target '" + *bad + "' (expected host, cuda or rocm)";
    return "";
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return easyml::initializeCheckedOptions(*this, options, errorHandler);
  }

  void runOnOperation() override {
    StringRef constraints = tiedRegisterConstraints(target);
    getOperation()->walk([&](easyml::OpaqueOp op) {
      OpBuilder b(op);
      auto asmOp = b.create<LLVM::InlineAsmOp>(
          op.getLoc(), op.getType(), ValueRange{op.getInput()},
          /*asm_string=*/"", constraints, /*has_side_effects=*/true,
          /*is_align_stack=*/false, /*asm_dialect=*/nullptr,
          /*operand_attrs=*/ArrayAttr());
      op.replaceAllUsesWith(asmOp.getResult(0));
      op.erase();
    });
  }
};
} // namespace
