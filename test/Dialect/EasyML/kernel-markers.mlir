// RUN: easyml-opt %s | easyml-opt | FileCheck %s

// The markers of a compute kernel's step loop print as they parse.
// CHECK-LABEL: func.func @step(
// CHECK: %[[FIRST:.*]], %[[EVERY:.*]], %[[SAMPLES:.*]] = easyml.record_schedule %{{.*}} : !llvm.ptr
// CHECK: easyml.record_sample %{{.*}}, step %{{.*}}, cell %{{.*}}, schedule %[[FIRST]], %[[EVERY]], %[[SAMPLES]] : !llvm.ptr {
// CHECK-NEXT: easyml.record_value %{{.*}} at 0 : f64
// CHECK-NEXT: easyml.record_traces {
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: easyml.record_value %{{.*}} at 4 : f64
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: easyml.update_biomarkers %{{.*}}, step %{{.*}}, cell %{{.*}}, dt %{{.*}}, vm %{{.*}} to %{{.*}}, states(%{{.*}}, %{{.*}}) : !llvm.ptr
func.func @step(%args: !llvm.ptr, %s: i64, %cell: i64, %dt: f64, %v0: f64,
                %v1: f64, %x: f64) {
  %first, %every, %samples = easyml.record_schedule %args : !llvm.ptr
  easyml.record_sample %args, step %s, cell %cell,
      schedule %first, %every, %samples : !llvm.ptr {
    easyml.record_value %v0 at 0 : f64
    easyml.record_traces {
      %t = arith.mulf %v0, %x : f64
      easyml.record_value %t at 4 : f64
    }
  }
  easyml.update_biomarkers %args, step %s, cell %cell, dt %dt,
      vm %v0 to %v1, states(%v1, %x) : !llvm.ptr
  return
}
