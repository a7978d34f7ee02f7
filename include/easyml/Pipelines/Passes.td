//===- Passes.td - passes of the compile pipeline ----------*- tablegen -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_PIPELINES_PASSES_TD
#define EASYML_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

def GpuModulesToBinary
    : Pass<"easyml-gpu-modules-to-binary", "mlir::ModuleOp"> {
  let summary = "compile every GPU variant's gpu.module to code objects";
  let description = [{
    The GPU stage of `easyml-compile-pipeline`. Each `gpu.module` made by
    `easyml-lower-to-kernels` carries its variant (`easyml.variant`); the
    pass finds that variant's toolkit, lowers the module's kernels to NVVM
    (libdevice math) or ROCDL (ROCm device libraries), attaches a target per
    chip and serialises, leaving in its place one `gpu.binary` with an
    object per chip, in the order of the chips asked for. The chips of all
    variants are serialised side by side on the context's threads (the
    device back ends and `ptxas` are the slow part of a GPU build).

    Toolkits are looked for as `easyml-compile` does: `cuda-path` or
    `$CUDA_PATH`, `$CUDA_HOME`, `/usr/local/cuda`; `rocm-path` or
    `$ROCM_PATH`, `/opt/rocm`, else Debian's `rocm-device-libs` with
    `ld.lld-19`. A missing toolkit is an error on the module that needs it.
  }];
  let options = [
    ListOption<"cudaChips", "cuda-chips", "std::string",
               "NVIDIA chips of the cuda variant (default: sm_80,sm_90)">,
    ListOption<"rocmChips", "rocm-chips", "std::string",
               "AMD chips of the rocm variant (default: gfx90a,gfx942)">,
    Option<"cudaPath", "cuda-path", "std::string", /*default=*/"",
           "CUDA toolkit (default: found as easyml-compile finds it)">,
    Option<"rocmPath", "rocm-path", "std::string", /*default=*/"",
           "ROCm root (default: found as easyml-compile finds it)">,
    Option<"format", "format", "::easyml::GpuFormat",
           /*default=*/"::easyml::GpuFormat::Default",
           "code objects: fatbin (cuda: cubin + PTX), bin (cubin / hsaco), "
           "isa (PTX / GCN assembly) or llvm (default: fatbin for cuda, bin "
           "for rocm)", "::easyml::gpuFormatValues()">,
    Option<"optLevel", "O", "unsigned", /*default=*/"3",
           "device code optimisation level">,
    Option<"cudaSmemSpilling", "cuda-smem-spilling", "bool",
           /*default=*/"true",
           "let ptxas spill registers to shared memory (CUDA 12.8 and "
           "later; see easyml-assemble-ptx)">,
    Option<"cudaRegisterCaps", "cuda-register-caps", "bool",
           /*default=*/"true",
           "cap the registers of spill-free kernels for occupancy (see "
           "easyml-assemble-ptx)">,
    Option<"cudaMachineSink", "cuda-machine-sink", "bool",
           /*default=*/"false",
           "keep LLVM's MachineSink on in the NVPTX back end (see "
           "easyml-serialize-gpu-modules)">,
  ];
}

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

def CheckLLVMOnly : Pass<"easyml-check-llvm-only", "mlir::ModuleOp"> {
  let summary = "fail if an operation outside the LLVM dialect remains";
  let description = [{
    The last step of every pipeline that ends in LLVM IR: any operation
    left outside the LLVM dialect is an error naming it. `gpu.binary` (the
    code objects of the GPU variants, embedded by the back end) is the one
    exception.
  }];
}

#endif // EASYML_PIPELINES_PASSES_TD
