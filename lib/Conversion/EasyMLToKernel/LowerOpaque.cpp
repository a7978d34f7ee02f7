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

namespace {
struct LowerOpaquePass
    : public easyml::impl::LowerOpaqueBase<LowerOpaquePass> {
  using LowerOpaqueBase::LowerOpaqueBase;

  std::string checkOptions() const {
    if (target != "host" && target != "cuda" && target != "rocm")
      return "unknown target '" + target.getValue() +
             "' (expected host, cuda or rocm)";
    return "";
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return easyml::initializeCheckedOptions(*this, options, errorHandler);
  }

  void runOnOperation() override {
    // A register of the value's size, the result tied to the operand.
    StringRef constraints = target == "cuda"   ? "=l,0"
                            : target == "rocm" ? "=v,0"
                                               : "=r,0";
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
