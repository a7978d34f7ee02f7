//===- Passes.td - conversions out of the easyml dialect ---*- tablegen -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_CONVERSION_PASSES_TD
#define EASYML_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToKernels : Pass<"easyml-lower-to-kernels", "mlir::ModuleOp"> {
  let summary = "lower an expanded easyml.model to C-ABI kernel functions";
  let description = [{
    Turns each `easyml.model` whose integrators are expanded into the entry
    points of the runtime ABI (`runtime/include/easyml/Runtime/ABI.h`), each
    taking one `easyml_kernel_args*`:

    - `easyml_<model>_<variant>_init`: initial states, nodal parameters and
      externals of cells `[begin, end)`;
    - `easyml_<model>_<variant>_compute`: advances cells `[begin, end)` by
      `nsteps` steps, optionally integrating Vm in the kernel (stimulus
      `Vm += stim*dt` before the model step, `Vm -= Iion*dt` after it) so a
      whole task wave runs in one call; applies `.lb`/`.ub` clamps and counts
      them, interpolates lookup tables and counts out-of-range inputs;
    - `easyml_<model>_<variant>_eval`: outputs (Iion) and traced values from
      the current state, without advancing it;
    - `easyml_<model>_<variant>_tables`: fills the lookup tables from the
      parameters and `dt`.

    The loops are `scf.for`, the arithmetic stays in `arith`/`math`, and
    memory is addressed with `llvm.getelementptr`/`llvm.load`/`llvm.store`
    on the plain pointers of the C ABI. The `baseline` variant keeps
    openCARP's layout: one record of `sv_size` doubles per cell.
  }];
  let options = [
    Option<"variant", "variant", "std::string", "\"baseline\"",
           "the variant to generate (baseline)">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::LLVM::LLVMDialect"];
}

#endif // EASYML_CONVERSION_PASSES_TD
