// RUN: easyml-opt %s --easyml-gpu-modules-to-binary="cuda-chips=sm_80,sm_90 rocm-chips=gfx90a format=isa" | FileCheck %s
// RUN: easyml-opt %s --verify-diagnostics --easyml-gpu-modules-to-binary="cuda-path=%t/none rocm-path=%t/none"
// REQUIRES: cuda-toolkit, rocm-device-libs

// The GPU stage of easyml-compile-pipeline from hand-written kernels: each
// gpu.module becomes a gpu.binary in its place, one object per chip in the
// order asked for, its variant kept.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: llvm.func @before
// CHECK: gpu.binary @k_cuda {easyml.variant = #easyml.variant<cuda, width = 1, soa>} [#gpu.object<#nvvm.target<O = 3, chip = "sm_80">, {{.*}}assembly = "{{.*}}.target sm_80{{.*}}.visible .entry scale({{.*}}>, #gpu.object<#nvvm.target<O = 3, chip = "sm_90">, {{.*}}.target sm_90{{.*}}.visible .entry scale(
// CHECK-NEXT: gpu.binary @k_rocm {easyml.variant = #easyml.variant<rocm, width = 1, soa>} [#gpu.object<#rocdl.target<O = 3, chip = "gfx90a">, {{.*}}assembly = "{{.*}}.amdgcn_target \22amdgcn-amd-amdhsa--gfx90a
// CHECK-NEXT: llvm.func @after
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  llvm.func @before() {
    llvm.return
  }
  // expected-error @below {{the cuda variant needs the CUDA toolkit (bin/ptxas, nvvm/libdevice/libdevice.10.bc); not found in}}
  gpu.module @k_cuda attributes {easyml.variant = #easyml.variant<cuda, width = 1, soa>} {
    gpu.func @scale(%p: !llvm.ptr<1>, %a: f64) kernel {
      %t = gpu.thread_id x
      %i = arith.index_cast %t : index to i64
      %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f64
      %x = llvm.load %q : !llvm.ptr<1> -> f64
      %y = arith.mulf %x, %a : f64
      %z = math.exp %y : f64
      llvm.store %z, %q : f64, !llvm.ptr<1>
      gpu.return
    }
  }
  // expected-error @below {{the rocm variant needs the ROCm device libraries and ld.lld}}
  gpu.module @k_rocm attributes {easyml.variant = #easyml.variant<rocm, width = 1, soa>} {
    gpu.func @scale(%p: !llvm.ptr<1>, %a: f64) kernel {
      %t = gpu.thread_id x
      %i = arith.index_cast %t : index to i64
      %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f64
      %x = llvm.load %q : !llvm.ptr<1> -> f64
      %y = arith.mulf %x, %a : f64
      %z = math.exp %y : f64
      llvm.store %z, %q : f64, !llvm.ptr<1>
      gpu.return
    }
  }
  llvm.func @after() {
    llvm.return
  }
}

