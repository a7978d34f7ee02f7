// RUN: easyml-opt %s --pass-pipeline='builtin.module(gpu.module(easyml-convert-math-to-device-lib))' | FileCheck %s
// RUN: easyml-opt %s --pass-pipeline='builtin.module(gpu.module(easyml-convert-math-to-device-lib{target=rocm}))' | FileCheck %s --check-prefix=ROCM
// RUN: not easyml-opt %s --pass-pipeline='builtin.module(gpu.module(easyml-convert-math-to-device-lib{target=metal}))' 2>&1 | FileCheck %s --check-prefix=BAD

// Math the upstream GPU lowerings miss becomes device library calls; the
// rest is left to them.
// CHECK-DAG: llvm.func @__nv_acos(f64) -> f64
// CHECK-DAG: llvm.func @__nv_sinh(f64) -> f64
// CHECK: llvm.call @__nv_acos(
// CHECK: llvm.call @__nv_sinh(
// CHECK: math.exp
// ROCM: llvm.call @__ocml_acos_f64(
// ROCM: llvm.call @__ocml_sinh_f64(
// BAD: unknown target 'metal' (expected cuda or rocm)

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%x: f64) -> f64 {
      %a = math.acos %x : f64
      %s = math.sinh %a : f64
      %e = math.exp %s : f64
      gpu.return %e : f64
    }
  }
}
