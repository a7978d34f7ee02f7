//===- Pipelines.cpp - the compilation pipelines --------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Pipelines/Pipelines.h"

#include "easyml/Conversion/Passes.h"
#include "easyml/Dialect/EasyML/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace easyml;

namespace {
/// Fails when anything but the LLVM dialect remains: the last step of every
/// pipeline that ends in LLVM IR.
struct CheckLLVMOnlyPass
    : public PassWrapper<CheckLLVMOnlyPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckLLVMOnlyPass)
  StringRef getArgument() const override { return "easyml-check-llvm-only"; }
  StringRef getDescription() const override {
    return "fail if an operation outside the LLVM dialect remains";
  }
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (isa<ModuleOp>(op) || isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError("operation '")
          << op->getName() << "' was not lowered to the LLVM dialect";
      signalPassFailure();
      return WalkResult::interrupt();
    });
  }
};
} // namespace

void easyml::buildPreparePipeline(OpPassManager &pm,
                                  const PipelineOptions &options) {
  OpPassManager &model = pm.nest<ModelOp>();
  model.addPass(createResolveGates());
  model.addPass(createExpandPowers());
  ExpandIntegratorsOptions expand;
  expand.cvodeRelTol = options.cvodeRelTol;
  expand.cvodeAbsTol = options.cvodeAbsTol;
  expand.cvodeMaxSubsteps = options.cvodeMaxSubsteps;
  model.addPass(createExpandIntegrators(expand));
  model.addPass(createCanonicalizerPass());
  model.addPass(createCSEPass());
  if (options.tables)
    model.addPass(createExtractTables());
}

void easyml::buildLowerToLLVMPipeline(OpPassManager &pm,
                                      const PipelineOptions &options) {
  std::vector<std::string> variants(options.variants.begin(),
                                    options.variants.end());
  LowerToKernelsOptions lower;
  lower.variants = variants; // copied by createLowerToKernels
  lower.vectorWidth = options.vectorWidth;
  pm.addPass(createLowerToKernels(lower));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  ConvertMathToVectorLibraryOptions vecMath;
  vecMath.library = options.vectorMath;
  vecMath.isa = options.vectorIsa;
  pm.addPass(createConvertMathToVectorLibrary(vecMath));
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(std::make_unique<CheckLLVMOnlyPass>());
}

void easyml::buildCompilePipeline(OpPassManager &pm,
                                  const PipelineOptions &options) {
  buildPreparePipeline(pm, options);
  buildLowerToLLVMPipeline(pm, options);
}

void easyml::registerCheckPasses() { PassRegistration<CheckLLVMOnlyPass>(); }

void easyml::registerPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "easyml-prepare",
      "resolve gates, expand integrators and extract lookup tables",
      buildPreparePipeline);
  PassPipelineRegistration<PipelineOptions>(
      "easyml-lower-to-llvm",
      "lower prepared easyml IR to kernels in the LLVM dialect",
      buildLowerToLLVMPipeline);
  PassPipelineRegistration<PipelineOptions>(
      "easyml-compile-pipeline",
      "easyml IR to the kernels of the requested variants in the LLVM "
      "dialect",
      buildCompilePipeline);
  PassPipelineRegistration<PipelineOptions>(
      "easyml-baseline-pipeline",
      "easyml IR to the baseline variant's kernels in the LLVM dialect",
      buildCompilePipeline);
}
