//===- Passes.td - passes serialising GPU code objects -----*- tablegen -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The last steps of a GPU variant's compilation, after its kernels are
// lowered to NVVM or ROCDL: the device back ends and the vendor's
// assembler, with the settings easyml's kernels need. The GPU pipelines
// (lib/Pipelines) run them per chip.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TARGET_PASSES_TD
#define EASYML_TARGET_PASSES_TD

include "mlir/Pass/PassBase.td"

def SerializeGpuModules
    : Pass<"easyml-serialize-gpu-modules", "mlir::ModuleOp"> {
  let summary = "gpu-module-to-binary with the back-end settings of easyml's "
                "kernels";
  let description = [{
    Runs upstream `gpu-module-to-binary` on the module, with LLVM's device
    back ends set up for the kernels of `easyml-lower-to-kernels`, then
    restored (see `easyml/Target/DeviceCodegen.h`; LLVM 19 takes these
    settings only as process-wide options, which the host code compiled
    later must not see).

    The one setting today: for NVVM targets, LLVM's MachineSink is off
    unless `machine-sink` is given. It moves a value computed before a
    loop to the loop's exit when only the exit uses it; in a kernel the
    loop is a stiff group's sub-step loop and the value a product in a
    state update, whose operands then stay live through the loop in its
    place. With it off, `ptxas -v` (CUDA 13, sm_90) finds no spill in any
    corpus kernel with at most 20 states (courtemanche-1998: 72 bytes
    before) and a third fewer spill stores over the corpus. ROCDL targets
    keep LLVM's default: on gfx90a it changed VGPR spills by +3% over the
    corpus. A module holding both vendors' targets is serialised with the
    NVVM setting.
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", /*default=*/"",
           "toolkit path (gpu-module-to-binary's toolkit)">,
    Option<"format", "format", "::easyml::GpuFormat",
           /*default=*/"::easyml::GpuFormat::Fatbin",
           "gpu-module-to-binary's format: fatbin, bin, isa (assembly) or "
           "llvm (offload)",
           [{::llvm::cl::values(
             clEnumValN(::easyml::GpuFormat::Fatbin, "fatbin", "fatbin"),
             clEnumValN(::easyml::GpuFormat::Bin, "bin", "binary"),
             clEnumValN(::easyml::GpuFormat::Isa, "isa", "assembly"),
             clEnumValN(::easyml::GpuFormat::Llvm, "llvm", "offload"))}]>,
    Option<"machineSink", "machine-sink", "bool", /*default=*/"false",
           "keep LLVM's MachineSink on for NVVM targets">,
  ];
}

def AssemblePtx : Pass<"easyml-assemble-ptx", "mlir::ModuleOp"> {
  let summary = "assemble the PTX objects of gpu.binary ops with ptxas";
  let description = [{
    The last step of the cuda variant's serialisation. `gpu-module-to-
    binary` writes PTX (`format=isa`); this pass hands each PTX object of
    every `gpu.binary` to the toolkit's `ptxas` for its chip (and
    `fatbinary`, which bundles the cubin with the PTX), replacing it with
    the cubin or fatbin, or leaves it PTX with `format=isa`.

    Before that, with `smem-spilling` and a `ptxas` from CUDA 12.8 or
    later, every kernel gets `.pragma "enable_smem_spilling";` (PTX ISA
    8.7, which LLVM 19 does not write: the module's `.version` is raised
    to 8.7 where lower). `ptxas` then spills registers to shared memory,
    sized for the kernel's launch bound, instead of local memory; `ptxas
    -v` reports it as `smem` rather than spill stores. Kernels that do not
    run out of registers are unchanged. Other objects (ROCm, LLVM IR,
    binaries) are left alone.

    With `register-caps`, a kernel that spills nothing and would reach a
    higher theoretical occupancy with fewer registers (within its launch
    bound, at the best block size of 64, 128 or 256 threads) is assembled
    again with `.maxnreg` at the most registers that occupancy allows; the
    cap is kept only if the kernel still spills nothing (neither local nor
    shared memory). Kernels already spilling are left as they are. With
    `format=isa` ptxas still runs to choose the caps, so the PTX written
    is the PTX a fatbin would carry.
  }];
  let options = [
    Option<"cudaPath", "cuda-path", "std::string", /*default=*/"",
           "CUDA toolkit (default: found as easyml-compile finds it)">,
    Option<"format", "format", "::easyml::GpuFormat",
           /*default=*/"::easyml::GpuFormat::Fatbin",
           "fatbin (cubin + PTX), bin (cubin) or isa (PTX)",
           [{::llvm::cl::values(
             clEnumValN(::easyml::GpuFormat::Fatbin, "fatbin", "cubin + PTX"),
             clEnumValN(::easyml::GpuFormat::Bin, "bin", "cubin"),
             clEnumValN(::easyml::GpuFormat::Isa, "isa", "PTX"))}]>,
    Option<"optLevel", "O", "unsigned", /*default=*/"3", "ptxas -O level">,
    Option<"smemSpilling", "smem-spilling", "bool", /*default=*/"true",
           "spill registers to shared memory where ptxas can">,
    Option<"registerCaps", "register-caps", "bool", /*default=*/"true",
           "cap the registers of kernels that spill nothing where that "
           "raises their occupancy without spilling">,
  ];
}

#endif // EASYML_TARGET_PASSES_TD
