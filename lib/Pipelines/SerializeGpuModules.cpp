//===- SerializeGpuModules.cpp - gpu-module-to-binary, easyml settings ----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Pipelines/Pipelines.h"
#include "easyml/Target/DeviceCodegen.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace easyml {
#define GEN_PASS_DEF_SERIALIZEGPUMODULES
#include "easyml/Pipelines/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

namespace {
struct SerializeGpuModulesPass
    : public easyml::impl::SerializeGpuModulesBase<SerializeGpuModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // LLVM's defaults serve AMDGPU; the settings are for NVPTX.
    bool nvvm = false, any = false;
    for (gpu::GPUModuleOp gm : module.getOps<gpu::GPUModuleOp>()) {
      any = true;
      if (ArrayAttr targets = gm.getTargetsAttr())
        nvvm |= llvm::any_of(targets, llvm::IsaPred<NVVM::NVVMTargetAttr>);
    }
    if (!any)
      return;
    GpuModuleToBinaryPassOptions binary;
    binary.toolkitPath = toolkit;
    binary.compilationTarget = format;
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createGpuModuleToBinaryPass(binary));
    DeviceCodegenSettings settings;
    settings.machineSink = machineSink || !nvvm;
    DeviceCodegenScope scope(settings);
    if (llvm::Error e = scope.status())
      module.emitWarning(llvm::toString(std::move(e)));
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};
} // namespace
