// RUN: easyml-opt %s --easyml-lower-to-kernels="variants=baseline" | FileCheck %s
// RUN: easyml-opt %s --easyml-lower-to-kernels="variants=cuda" --easyml-lower-recording --easyml-lower-biomarkers | FileCheck %s --check-prefix=GPU
// RUN: easyml-opt %s --easyml-lower-to-kernels="variants=cpu-simd vector-width=4" --easyml-lower-recording --easyml-lower-biomarkers --easyml-vectorize-cells | FileCheck %s --check-prefix=SIMD

// An in-place hidden value (row 2 of the per-cell record: after the state
// and the carried hidden value) is accessed in the cell's record where the
// step uses it: neither loaded before the step loop nor carried by it nor
// stored after it. The carried one (row 1) is.
// CHECK-LABEL: func.func @easyml_m_baseline_compute(
// CHECK: %[[SV:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?x?xf64, strided<[?, 1]>>
// CHECK: scf.parallel
// CHECK: %[[X0:.*]] = memref.load %[[SV]][%{{.*}}, %c0]
// CHECK: %[[K0:.*]] = memref.load %[[SV]][%{{.*}}, %c1
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: %[[R:.*]]:2 = scf.for %{{.*}} iter_args(%[[X:.*]] = %[[X0]], %{{.*}} = %[[K0]]) -> (f64, f64)
// A recorded sample reads the in-place value from the record too.
// CHECK: easyml.record_sample
// CHECK: %[[C2R:.*]] = arith.constant 2 : index
// CHECK: %[[H:.*]] = memref.load %[[SV]][%{{.*}}, %[[C2R]]]
// CHECK-NEXT: easyml.record_value %[[H]] at 2 : f64
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (f64) {
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[CELL:.*]] = arith.index_cast
// CHECK-NEXT: %[[L:.*]] = memref.load %[[SV]][%[[CELL]], %[[C2]]]
// CHECK-NEXT: scf.yield %[[L]] : f64
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]]
// CHECK-NEXT: %[[C2S:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[CELLS:.*]] = arith.index_cast
// CHECK-NEXT: memref.store %[[E]], %[[SV]][%[[CELLS]], %[[C2S]]]
// CHECK-NEXT: scf.yield %[[E]] : f64
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[V]], %[[V]] : f64, f64
// CHECK-NEXT: }
// CHECK: memref.store %[[R]]#0, %[[SV]][%{{.*}}, %c0
// CHECK: memref.store %[[R]]#1, %[[SV]][%{{.*}}, %c1
// CHECK-NOT: memref.store
// CHECK: scf.reduce

// In the GPU kernel (structure of arrays: [row][cell]) likewise.
// GPU-LABEL: gpu.func @easyml_m_cuda_compute(
// GPU: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f64, f64)
// GPU: scf.if %{{.*}} -> (f64) {
// GPU-NEXT: %[[C2:.*]] = arith.constant 2 : index
// GPU-NEXT: %[[CELL:.*]] = arith.index_cast
// GPU-NEXT: memref.load %{{.*}}[%[[C2]], %[[CELL]]]
// GPU: } else {
// GPU: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}]
// GPU: }

// cpu-simd: the branch on cell values loads 4 cells' entries when one of
// the active lanes takes it, and stores the others' under their mask.
// SIMD-LABEL: func.func @easyml_m_cpu_simd_compute(
// SIMD: scf.for
// SIMD: vector.reduction <or>
// SIMD: scf.if %{{.*}} -> (vector<4xf64>) {
// SIMD: vector.load
// SIMD: } else {
// SIMD: vector.reduction <or>
// SIMD: scf.if %{{.*}} -> (vector<4xf64>) {
// SIMD: math.exp
// SIMD: vector.maskedstore
// SIMD: arith.select %{{.*}} : vector<4xi1>, vector<4xf64>

// An evaluation (eval entry) runs no branch of the step and stores nothing
// of the record.
// CHECK-LABEL: func.func @easyml_m_baseline_eval(
// CHECK-NOT: math.exp
// CHECK: return

easyml.model @m attributes {easyml.integrators_expanded} {
  easyml.state @x kind <store> method <none>
  easyml.hidden @kept init 0.0
  easyml.hidden @scratch init 0.0 {in_place}
  easyml.init {
    %0 = arith.constant 1.0 : f64
    easyml.init_value @x, %0 : f64
  }
  easyml.compute {
    %x = easyml.get @x : f64
    %k = easyml.get @kept : f64
    %zero = arith.constant 0.0 : f64
    %pos = arith.cmpf ogt, %x, %zero : f64
    %v = scf.if %pos -> (f64) {
      %l = easyml.hidden_load @scratch : f64
      scf.yield %l : f64
    } else {
      %e = math.exp %x : f64
      easyml.hidden_store @scratch, %e : f64
      scf.yield %e : f64
    }
    easyml.next @x, %v : f64
    easyml.next @kept, %v : f64
  }
}
