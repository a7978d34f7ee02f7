//===- EasyMLToKernel.cpp - easyml.model to C-ABI kernels -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The pass easyml-lower-to-kernels: checks its options, then has a
// KernelBuilder (KernelBuilder.h) write every requested variant's entry
// points for each model, a host table builder where only GPU variants are
// requested, and the model's derive_params host function.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "easyml/Conversion/EasyMLToKernel/DeriveParams.h"
#include "easyml/Conversion/EasyMLToKernel/ModelLayout.h"
#include "easyml/Conversion/Passes.h"

namespace easyml {
#define GEN_PASS_DEF_LOWERTOKERNELS
#include "easyml/Conversion/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;
using namespace easyml::kernel;

namespace {

struct LowerToKernelsPass
    : public easyml::impl::LowerToKernelsBase<LowerToKernelsPass> {
  using LowerToKernelsBase::LowerToKernelsBase;

  /// Checks the options; returns the problem, or an empty string.
  std::string checkOptions() const {
    int64_t width = vectorWidth;
    if (width < 1 || width > 64)
      return "vector width " + std::to_string(width) +
             " is out of range (expected 1 to 64)";
    for (const std::string &v : variants)
      if (!symbolizeVariantKind(v))
        return "unknown variant '" + v +
               "' (this pass generates: baseline, cpu-simd, cuda, rocm)";
    return "";
  }

  /// Every name in per-cell-params is a parameter or flag of `model` that
  /// no lookup table reads (tables are built once for all cells).
  static LogicalResult checkPerCellParams(ModelOp model,
                                          ArrayRef<std::string> names) {
    ModelLayout layout = ModelLayout::get(model);
    std::vector<std::string> unknown;
    std::vector<int64_t> chosen = layout.paramIndices(names, &unknown);
    bool ok = true;
    for (const std::string &name : unknown) {
      emitError(model.getLoc(), "per-cell-params: model '")
          << model.getSymName() << "' has no parameter or flag '" << name
          << "'";
      ok = false;
    }
    bool all = llvm::is_contained(names, "all");
    for (const ModelLayout::Table &t : layout.tables)
      for (int64_t p : t.paramsRead)
        if (!all && llvm::is_contained(chosen, p)) {
          StringRef name =
              p < static_cast<int64_t>(layout.params.size())
                  ? StringRef(layout.params[p].name)
                  : StringRef(layout.flags[p - layout.params.size()].name);
          emitError(model.getLoc(), "per-cell-params: '")
              << name << "' is read by the lookup table of '" << t.variable
              << "', which is built once for all cells (compile with "
                 "--no-tables to let it vary per cell)";
          ok = false;
        }
    return success(ok);
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return easyml::initializeCheckedOptions(*this, options, errorHandler);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ModelOp> models(module.getOps<ModelOp>());
    SmallVector<std::string> names(variants.begin(), variants.end());
    if (names.empty())
      names.push_back("baseline");
    std::string problem = checkOptions();
    if (!problem.empty()) {
      module.emitError(problem);
      return signalPassFailure();
    }
    // Variant names are parsed here, once; later stages read the typed
    // attribute.
    SmallVector<VariantAttr> targets;
    for (const std::string &v : names)
      targets.push_back(VariantAttr::get(
          &getContext(), *symbolizeVariantKind(v), vectorWidth.getValue()));
    bool anyCpu =
        llvm::any_of(targets, [](VariantAttr t) { return !t.isGpu(); });
    std::vector<std::string> perCell(perCellParams.begin(),
                                     perCellParams.end());
    for (ModelOp model : models) {
      if (failed(checkPerCellParams(model, perCell)))
        return signalPassFailure();
      bool tablesDone = false;
      for (VariantAttr target : targets) {
        KernelBuilder builder(model, module, target, perCell);
        if (failed(
                builder.build(/*withTables=*/!target.isGpu() && !tablesDone)))
          return signalPassFailure();
        tablesDone |= !target.isGpu();
      }
      // GPU variants alone: a host table builder under the baseline name.
      if (!anyCpu) {
        KernelBuilder builder(
            model, module,
            VariantAttr::get(&getContext(), VariantKind::baseline, 1));
        builder.buildTablesOnly();
      }
      buildDeriveParams(model, module, ModelLayout::get(model));
      model.erase();
    }
  }
};

} // namespace
