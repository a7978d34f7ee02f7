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
