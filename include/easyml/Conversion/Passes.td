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
    points of the runtime ABI (`abi/include/easyml/ABI/ABI.h`), each
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
      parameters and `dt`;
    - `easyml_<model>_<variant>_diffuse` (ABI 6): the tissue's diffusion
      operator over the points `[begin, end)` of one
      `easyml_diffusion_args` (a pointer on the CPU, by value in a GPU
      kernel), the same for every model, in the summation order `ABI.h`
      documents; its loads of the caller's memory are tagged
      `easyml.masked_load`.

    The loop over the cells is an `scf.parallel` tagged `easyml.cells`
    (iterations are independent; it runs in order on the CPU and
    `easyml-map-cells-to-gpu-threads` maps it to GPU threads), the step loop
    an `scf.for`, the arithmetic stays in `arith`/`math`. Per-cell storage
    (the state vector, the externals, the eval outputs, and the biomarker
    accumulators once `easyml-lower-biomarkers` has run) is read and
    written through memref views built on the
    C ABI's pointers (`memref<?x?xf64, strided<[?, 1]>>`, global memory
    space 1 in GPU kernels: `memref.load`/`memref.store` indexed by row and
    cell), lowered by the upstream memref and vector conversions; what no
    kernel writes while it runs (arguments, parameter rows, tables: the
    invariant loads of the read-only path) and the atomic counters stay
    `llvm.load`/`llvm.atomicrmw` on pointers. The `baseline` variant keeps
    openCARP's layout: one record of `sv_size` doubles per cell
    (`sv[cell][var]`), one cell at a time.

    Every variant's cell loop computes one cell per iteration:
    `easyml-vectorize-cells` turns the `cpu-simd` variant's into one over
    `vector-width` cells, which this pass records on each function
    (`easyml.variant = #easyml.variant<"cpu-simd", width = W, soa>`). Its
    state is structure-of-arrays (`sv[var][cell]` with row stride
    `stride`, `out[trace][cell]`), so neighbouring cells' entries are
    neighbours in memory.

    The GPU variants (`cuda`, `rocm`) put `init`, `compute` and `eval` as
    `gpu.func` kernels into a `gpu.module @easyml_<model>_<variant>_kernels`
    (the module becomes a `gpu.container_module`): the same cell loop,
    one thread per cell once mapped, threads past `end` doing nothing,
    scalar code as `baseline` but with structure-of-arrays
    state so neighbouring threads access neighbouring addresses. A kernel
    takes the kernel arguments by value, then the parameters and flags by
    value where they fit in the launch's parameter space (ABI 4): the GPU
    reads both as constant-bank operands, so they hold no registers across
    the step loop. Only the parameters named by `per-cell-params` may vary
    per cell in GPU kernels (their rows are read once per cell); a whole
    task wave runs in one launch with the cell's state in registers. Tables are built
    on the host (by the first CPU variant, or a `baseline` table builder).
    The module carries its variant as `easyml.variant =
    #easyml.variant<cuda, width = 1, soa>`, which the GPU stage
    (`easyml-gpu-modules-to-binary`) reads.

    What `compute` records and the biomarkers it updates are left as
    markers in the step loop (`easyml.record_schedule`,
    `easyml.record_sample`, `easyml.update_biomarkers`), lowered by
    `easyml-lower-recording` and `easyml-lower-biomarkers`.
  }];
  let options = [
    ListOption<"variants", "variants", "std::string",
               "the variants to generate (baseline, cpu-simd, cuda, rocm); "
               "the first CPU one also provides the table builder">,
    Option<"vectorWidth", "vector-width", "int64_t", "8",
           "cells per vector in the cpu-simd variant">,
    ListOption<"perCellParams", "per-cell-params", "std::string",
               "parameters and flags the GPU variants read per cell (rows "
               "of args.param_rows), or 'all'; the others are shared and "
               "passed by value (CPU variants read any parameter per cell)">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::gpu::GPUDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def LowerRecording : Pass<"easyml-lower-recording"> {
  let summary = "lower the recording markers of compute kernels to stores "
                "into the recording buffer";
  let description = [{
    `easyml-lower-to-kernels` marks what the compute kernels record: an
    `easyml.record_schedule` before the cell loop reads when samples are
    taken, and at the start of each step an `easyml.record_sample` holds
    the cell's values to record (`easyml.record_value`, the traces'
    evaluation in `easyml.record_traces`). This pass lowers them to the
    runtime ABI's recording (`rec_*` in
    `abi/include/easyml/ABI/ABI.h`):

    - the schedule to loads of `rec_first`, `rec_every` (at least 1) and
      `rec_samples` from the kernel arguments;
    - each sample to a branch on the step being sample
      `k = (step - rec_first) / rec_every`, in which the other fields are
      read (kept out of the step loop: GPU kernels would hold them in
      registers) and, for a cell in `[rec_begin, rec_end)`, each value `v`
      whose slot `rec_slot[v]` is at least 0 is stored at
      `rec[(k*rec_num + rec_slot[v])*rec_stride + (cell - rec_begin)]`;
      the traces only when `rec_traces` is non-zero.

    In GPU kernels (`gpu.func`) the buffers are addressed in the global
    address space. Runs before `easyml-vectorize-cells` and the GPU
    mapping, which see the branches and stores.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def LowerBiomarkers : Pass<"easyml-lower-biomarkers"> {
  let summary = "lower the biomarker markers of compute kernels to updates "
                "of the biomarker accumulators";
  let description = [{
    Replaces each `easyml.update_biomarkers`, which
    `easyml-lower-to-kernels` places in the step loop after Vm is
    integrated, by the update of the cell's biomarker accumulators (ABI 3
    `bio`, rows `easyml_bio_row`; docs/biomarkers.md) when the kernel
    arguments have them: resting potential, peak, maximal upstroke
    velocity, 30/50/90% repolarisation times (interpolated between steps),
    trough, early afterdepolarisations, and the minimum and maximum of the
    state in sv row `bio_ca`. Every update is a select (no divergence
    between vector lanes or GPU threads); the accumulators are read and
    written through a `[row][cell]` memref view built inside the branch,
    in GPU kernels from an `easyml.opaque` copy of the stride so its
    address arithmetic is not held in registers through the step loop.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def ConvertMathToVectorLibrary
    : Pass<"easyml-convert-math-to-veclib", "mlir::ModuleOp"> {
  let summary = "lower math on vectors of f64 to a vector math library";
  let description = [{
    Rewrites `math` operations on `vector<N x f64>` so that no vector
    transcendental reaches LLVM's generic lowering (which would either
    scalarise it or, for `expm1`, lose accuracy):

    - with `library=libmvec`, `exp`, `expm1`, `log`, `log10`, `log1p`,
      `log2`, `exp2`, `pow`, `cbrt`, `erf`, the hyperbolic and the
      trigonometric functions become calls to glibc's libmvec (`_ZGV<isa>N<n>v[v]_<fn>`,
      the x86-64 vector function ABI). The native width of the chosen `isa`
      (`avx512`: 8, `avx2`: 4, `sse2`: 2) is used; wider vectors are split,
      narrower or odd ones handled lane by lane;
    - with `library=scalar`, or for an `isa` without libmvec (`none`), every
      lane calls the scalar libm function (results then match the scalar
      baseline bit for bit);
    - `sqrt`, `absf`, `floor`, `ceil`, `trunc`, `round`, `copysign` and
      `fma` on vectors become LLVM vector intrinsics (native instructions).

    Scalar `math` operations are left alone for `convert-math-to-libm`.
  }];
  let options = [
    Option<"library", "library", "::easyml::VectorMath",
           "::easyml::VectorMath::Libmvec",
           "vector math library: libmvec or scalar (per-lane libm calls)",
           "::easyml::vectorMathValues()">,
    Option<"isa", "isa", "::easyml::VectorIsa", "::easyml::VectorIsa::Avx512",
           "instruction set of the libmvec variants: avx512, avx2, sse2 or "
           "none", "::easyml::vectorIsaValues()">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def ConvertMathToDeviceLibrary
    : Pass<"easyml-convert-math-to-device-lib", "mlir::gpu::GPUModuleOp"> {
  let summary = "call the vendor device library for math the GPU lowerings "
                "miss";
  let description = [{
    MLIR's GPU to NVVM and ROCDL conversions map most `math` operations to
    libdevice (`__nv_*`) and the ROCm device libraries (`__ocml_*_f64`), but
    not `acos`, `asin`, `acosh`, `asinh`, `atanh`, `cosh` and `sinh`, which
    ionic models use (e.g. the cubic-root formula of Livshitz-Rudy 2007).
    This pass, run on a `gpu.module` before that conversion, replaces those
    on `f64` by calls to the same libraries, which `gpu-module-to-binary`
    links.
  }];
  let options = [
    Option<"target", "target", "::easyml::Backend", "::easyml::Backend::Cuda",
           "cuda (libdevice) or rocm (ROCm device libraries)",
           "::easyml::gpuBackendValues()">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def CopyGpuKernelsToHost
    : Pass<"easyml-copy-gpu-kernels-to-host", "mlir::ModuleOp"> {
  let summary = "give every GPU kernel a host copy the emulated drivers run";
  let description = [{
    A test aid: for each kernel of a GPU variant's `gpu.module` (as
    `easyml-lower-to-kernels` writes it, before its cell loop is mapped to
    threads), adds a host function `<kernel>_host` taking a pointer to the
    kernel arguments and a pointer to the parameters passed by value (or
    null when the kernel takes none):

    ```mlir
    func.func @easyml_m_cuda_compute_host(%args: !llvm.ptr, %params: !llvm.ptr) {
      %a = llvm.load %args : !llvm.ptr -> !llvm.struct<(...)>
      %p = llvm.load %params : !llvm.ptr -> !llvm.array<N x f64>
      ... the kernel's body, its cell loop run in order ...
    }
    ```

    The copy is the GPU kernel's own code (its layout, argument passing,
    per-cell parameter handling, address spaces), so the test suite's
    emulated CUDA and HIP drivers, which run `<kernel>_host` when
    `EASYML_EMULATED_KERNELS=host`, check it on machines without a GPU;
    only the device back end (NVVM/ROCDL, libdevice/OCML, ptxas) is left
    out. `easyml-compile --emulate-gpu-kernels` adds this pass.
  }];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def LowerOpaque : Pass<"easyml-lower-opaque"> {
  let summary = "lower easyml.opaque to an empty inline-assembly statement";
  let description = [{
    Replaces each `easyml.opaque` by `llvm.inline_asm has_side_effects ""`
    whose result is tied to its operand (constraint `=r,0` on the host,
    `=l,0` for NVPTX, `=v,0` for AMDGPU): no instruction, but the back end
    cannot see that the result equals the operand. Runs on GPU modules
    before their conversion to NVVM or ROCDL, and on the host's kernels
    (the emulation copies of GPU kernels hold some).
  }];
  let options = [
    Option<"target", "target", "::easyml::Backend", "::easyml::Backend::Cpu",
           "whose registers the statement names: host, cuda or rocm",
           [{::llvm::cl::values(
             clEnumValN(::easyml::Backend::Cpu, "host", "the host CPU"),
             clEnumValN(::easyml::Backend::Cuda, "cuda", "NVPTX"),
             clEnumValN(::easyml::Backend::Rocm, "rocm", "AMDGPU"))}]>,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def VectorizeCells : Pass<"easyml-vectorize-cells", "mlir::ModuleOp"> {
  let summary = "compute `width` cells per iteration of cpu-simd's cell loops";
  let description = [{
    `easyml-lower-to-kernels` writes every variant's loop over the cells as
    scalar code for one cell (an `scf.parallel` tagged `easyml.cells`).
    In the functions tagged `#easyml.variant<"cpu-simd", width = W, soa>`
    this pass rewrites that loop to compute `W` cells per iteration, from
    the aligned cell at or below its start:

    - every value of the body is uniform (the same for every cell: stays a
      scalar), unit (the cell index, or an address that moves by one
      element from cell to cell: lane 0's scalar stands for the lanes) or
      varying (a `vector<W x T>`), found by a fixed-point analysis over the
      body's loops;
    - loads of a memref view whose innermost index is the cell (others
      uniform) become `vector.load`s, stores there `vector.maskedstore`s;
      loads through unit `llvm` addresses become vector loads (masked
      loads of the active lanes where the load is tagged
      `easyml.masked_load`, as the diffusion entry's are), through other
      varying addresses (lookup-table rows) gathers; a store anywhere
      else, or a view entry the cell does not select innermost, is an
      error;
    - a branch on a varying condition becomes predication: its stores and
      counters take the lanes where the condition holds (a branch that
      yields values must be written as a select);
    - a counter (an unused `llvm.atomicrmw add` of one value) adds the
      number of active lanes, once per vector;
    - an `scf.while` whose condition varies runs while any active lane
      continues, each lane keeping its values once its own loop is done.

    Lanes outside the loop's range are computed and masked out of every
    store and count, so per-cell storage must be readable up to the next
    multiple of `W` (the runtime pads and aligns it). A loop whose body
    holds at most `max-unmasked-ops` operations gets a second copy of it
    for the vectors whose lanes are all in range (all but the first and
    last), with no mask computed: its masks are all true, which LLVM folds
    into plain loads and stores. Other
    variants' functions are left alone.
  }];
  let options = [
    Option<"maxUnmaskedOps", "max-unmasked-ops", "int64_t",
           /*default=*/"500",
           "cell loops whose body holds at most this many operations get an "
           "unmasked copy for full vectors (0: none)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def KeepInvariantsInLoops
    : Pass<"easyml-keep-invariants-in-loops", "mlir::gpu::GPUModuleOp"> {
  let summary = "ask LLVM not to hoist invariants out of GPU kernels' loops";
  let description = [{
    Marks the back edge of every loop in a GPU module's functions (after
    `convert-scf-to-cf`: a `cf.br` to a block that dominates it) with
    `loop_annotation = #llvm.loop_annotation<licm = #llvm.loop_licm<disable
    = true>>`, which becomes `!llvm.licm.disable`. In a kernel whose state
    stays in registers through the wave, every value LLVM's LICM hoists out
    of the step loop or out of a cvode group's sub-step loop is one more
    register held through it: with what the host precomputes (derived
    values) and the constant bank (parameters), what is left to hoist
    saves little work (a cvode loop runs about once per step) and costs
    spills. Measured with ptxas on the 16 corpus models up to 20 states
    that spilled: 1,440 -> about 840 bytes of spill stores.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def MapCellsToGpuThreads
    : Pass<"easyml-map-cells-to-gpu-threads", "mlir::gpu::GPUModuleOp"> {
  let summary = "give each GPU thread one cell of the kernels' cell loops";
  let description = [{
    `easyml-lower-to-kernels` writes every kernel's loop over the cells
    `[begin, end)` as a one-dimensional `scf.parallel` tagged
    `easyml.cells`, for every variant. On the CPU it runs in order (the
    runtime splits cells between threads by giving each call its own
    range). In a GPU kernel this pass maps it to the threads: the loop
    becomes

    ```mlir
    %i = lb + (gpu.block_id x * gpu.block_dim x + gpu.thread_id x) * step
    scf.if %i < ub { body with %i }
    ```

    so one launch covers the range with one thread per cell and threads
    past the end do nothing. It runs on each `gpu.module` before the
    conversion to NVVM or ROCDL (`easyml-gpu-to-binary`); a tagged loop
    left in a kernel would run every cell in every thread, so one that is
    not one-dimensional is an error.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::gpu::GPUDialect", "mlir::scf::SCFDialect"];
}

#endif // EASYML_CONVERSION_PASSES_TD
