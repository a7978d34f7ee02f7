// RUN: easyml-opt %s --easyml-kernels-to-llvm | FileCheck %s
// RUN: easyml-opt %s --easyml-kernels-to-llvm="vector-math=scalar" | FileCheck %s --check-prefix=SCALAR

// The Lower stage of easyml-compile-pipeline from hand-written kernels:
// host kernels (scf, arith, math, vector over llvm.ptr memory) to the LLVM
// dialect; the GPU variants' code objects stay as they are.

// CHECK-LABEL: llvm.func @easyml_m_cpu_simd_compute(%{{.*}}: !llvm.ptr)
// CHECK: llvm.cond_br
// CHECK: llvm.call @_ZGVeN8v_exp(%{{.*}}) : (vector<8xf64>) -> vector<8xf64>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<8xf64>, !llvm.ptr
// CHECK: gpu.binary @easyml_m_cuda_kernels {easyml.variant = #easyml.variant<cuda, width = 1, soa>} [#gpu.object<#nvvm.target<chip = "sm_90">, "fatbin bytes">]
// CHECK-NOT: scf.
// CHECK-NOT: arith.
// CHECK-NOT: math.

// libm per lane instead of libmvec.
// SCALAR: llvm.call @exp(%{{.*}}) : (f64) -> f64
// SCALAR-NOT: _ZGV
module attributes {gpu.container_module} {
  func.func @easyml_m_cpu_simd_compute(%sv: !llvm.ptr) {
    %c0 = arith.constant 0 : i64
    %c8 = arith.constant 8 : i64
    %n = arith.constant 64 : i64
    scf.for %i = %c0 to %n step %c8 : i64 {
      %p = llvm.getelementptr %sv[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f64
      %x = llvm.load %p {alignment = 8 : i64} : !llvm.ptr -> vector<8xf64>
      %e = math.exp %x : vector<8xf64>
      llvm.store %e, %p {alignment = 8 : i64} : vector<8xf64>, !llvm.ptr
    }
    return
  }
  gpu.binary @easyml_m_cuda_kernels {easyml.variant = #easyml.variant<cuda, width = 1, soa>} [#gpu.object<#nvvm.target<chip = "sm_90">, "fatbin bytes">]
}
