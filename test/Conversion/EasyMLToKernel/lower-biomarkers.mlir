// RUN: easyml-opt %s --split-input-file --easyml-lower-biomarkers | FileCheck %s

// The accumulators are updated only when the kernel arguments have them
// (bio, field 25, not null), through a [row][cell] view of their 13 rows
// (easyml_bio_row) with the cells' stride (field 7) between rows.
// CHECK-LABEL: func.func @compute(
// CHECK-SAME: %[[ARGS:[^:]*]]: !llvm.ptr, %[[S:[^:]*]]: i64, %[[CELL:[^:]*]]: i64, %[[DT:[^:]*]]: f64, %[[V0:[^:]*]]: f64, %[[V1:[^:]*]]: f64, %[[CA:[^:]*]]: f64, %[[X:[^:]*]]: f64)
// CHECK: %[[BIOP:.*]] = llvm.getelementptr %[[ARGS]][25]
// CHECK-NEXT: %[[BIO:.*]] = llvm.load %[[BIOP]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: %[[ON:.*]] = llvm.icmp "ne" %[[BIO]], %[[NULL]] : !llvm.ptr
// CHECK-NEXT: scf.if %[[ON]] {
// CHECK-NEXT: %[[STRIDEP:.*]] = llvm.getelementptr %[[ARGS]][7]
// CHECK-NEXT: %[[STRIDE:.*]] = llvm.load %[[STRIDEP]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[ROWS:.*]] = arith.constant 13 : i64
// CHECK: llvm.insertvalue %[[ROWS]], %{{.*}}[3, 0]
// CHECK-NEXT: llvm.insertvalue %[[STRIDE]], %{{.*}}[4, 0]
// CHECK-NEXT: llvm.insertvalue %[[STRIDE]], %{{.*}}[3, 1]
// CHECK: %[[VIEW:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?x?xf64, strided<[?, 1]>>
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[CELL]] : i64 to index
// The step runs from t = s*dt to t1 = t + dt.
// CHECK-NEXT: %[[SF:.*]] = arith.sitofp %[[S]] : i64 to f64
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[SF]], %[[DT]] : f64
// CHECK-NEXT: %[[T1:.*]] = arith.addf %[[T]], %[[DT]] : f64
// The resting potential is Vm before the beat's first step.
// CHECK: %[[R0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[REST0:.*]] = memref.load %[[VIEW]][%[[R0]], %[[I]]]
// CHECK-NEXT: %[[NEW:.*]] = arith.cmpf uno, %[[REST0]], %[[REST0]] : f64
// CHECK-NEXT: %[[REST:.*]] = arith.select %[[NEW]], %[[V0]], %[[REST0]] : f64
// CHECK-NEXT: %[[R0S:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[REST]], %[[VIEW]][%[[R0S]], %[[I]]]
// A new peak, and its time.
// CHECK: %[[PEAK0:.*]] = memref.load %[[VIEW]][%{{.*}}, %[[I]]]
// CHECK-NEXT: %[[HIGHER:.*]] = arith.cmpf ugt, %[[V1]], %[[PEAK0]] : f64
// CHECK-NEXT: %[[PEAK:.*]] = arith.select %[[HIGHER]], %[[V1]], %[[PEAK0]] : f64
// CHECK: memref.load %[[VIEW]]
// CHECK-NEXT: arith.select %[[HIGHER]], %[[T1]],
// The upstroke velocity.
// CHECK: %[[DV:.*]] = arith.subf %[[V1]], %[[V0]] : f64
// CHECK-NEXT: arith.divf %[[DV]], %[[DT]] : f64
// Calcium is the state in sv row bio_ca (field 26), selected among the new
// states.
// CHECK: %[[CAROWP:.*]] = llvm.getelementptr %[[ARGS]][26]
// CHECK-NEXT: %[[CAROW:.*]] = llvm.load %[[CAROWP]] : !llvm.ptr -> i64
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[IS0:.*]] = arith.cmpi eq, %[[CAROW]], %[[C0]] : i64
// CHECK-NEXT: %[[SEL0:.*]] = arith.select %[[IS0]], %[[CA]], %{{.*}} : f64
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[IS1:.*]] = arith.cmpi eq, %[[CAROW]], %[[C1]] : i64
// CHECK-NEXT: %[[CAV:.*]] = arith.select %[[IS1]], %[[X]], %[[SEL0]] : f64
// CHECK: %[[R10:.*]] = arith.constant 10 : index
// CHECK-NEXT: %[[CAMIN:.*]] = memref.load %[[VIEW]][%[[R10]], %[[I]]]
// CHECK-NEXT: arith.cmpf ult, %[[CAV]], %[[CAMIN]] : f64
// CHECK: %[[R12:.*]] = arith.constant 12 : index
// CHECK: memref.store %{{.*}}, %[[VIEW]][%{{.*}}, %[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @compute(%args: !llvm.ptr, %s: i64, %cell: i64, %dt: f64, %v0: f64,
                   %v1: f64, %ca: f64, %x: f64) {
  easyml.update_biomarkers %args, step %s, cell %cell, dt %dt,
      vm %v0 to %v1, states(%ca, %x) : !llvm.ptr
  return
}

// -----

// In a GPU kernel the stride is an opaque copy, so the rows' addresses are
// computed in the branch, not held in registers through the step loop; the
// accumulators are in the global address space.
!args = !llvm.struct<(i64, i64, i64, i64, f64, f64, i64, i64, ptr, ptr, ptr,
                      ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64,
                      i64, i64, i64, ptr, i64)>
// CHECK-LABEL: gpu.func @compute(
// CHECK-SAME: %[[ARGS:[^:]*]]: !llvm.struct
// CHECK: %[[BIO:.*]] = llvm.extractvalue %[[ARGS]][25]
// CHECK: scf.if
// CHECK-NEXT: %[[STRIDE:.*]] = llvm.extractvalue %[[ARGS]][7]
// CHECK-NEXT: %[[LOCAL:.*]] = easyml.opaque %[[STRIDE]] : i64
// CHECK-NEXT: %[[GLOBAL:.*]] = llvm.addrspacecast %[[BIO]] : !llvm.ptr to !llvm.ptr<1>
// CHECK: llvm.insertvalue %[[GLOBAL]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[LOCAL]], %{{.*}}[4, 0]
// CHECK: builtin.unrealized_conversion_cast %{{.*}} to memref<?x?xf64, strided<[?, 1]>, 1>
// CHECK-NOT: easyml.update_biomarkers
gpu.module @kernels {
  gpu.func @compute(%args: !args, %s: i64, %cell: i64, %dt: f64, %v0: f64,
                    %v1: f64) kernel {
    easyml.update_biomarkers %args, step %s, cell %cell, dt %dt,
        vm %v0 to %v1, states() : !args
    gpu.return
  }
}

// -----

// A model that integrates Vm in its own sub-steps gives Vm's extremes
// within the step: the peak and the upstroke are those where they exceed
// what the step's ends show, at their times from the step's start.
// CHECK-LABEL: func.func @within(
// CHECK-SAME: %[[ARGS:[^:]*]]: !llvm.ptr, %[[S:[^:]*]]: i64, %[[CELL:[^:]*]]: i64, %[[DT:[^:]*]]: f64, %[[V0:[^:]*]]: f64, %[[V1:[^:]*]]: f64, %[[P:[^:]*]]: f64, %[[TP:[^:]*]]: f64, %[[R:[^:]*]]: f64, %[[TR:[^:]*]]: f64)
// CHECK: %[[T:.*]] = arith.mulf %{{.*}}, %[[DT]] : f64
// CHECK: %[[IN:.*]] = arith.cmpf ogt, %[[P]], %[[V1]] : f64
// CHECK-NEXT: %[[TOP:.*]] = arith.select %[[IN]], %[[P]], %[[V1]] : f64
// CHECK-NEXT: %[[TPA:.*]] = arith.addf %[[T]], %[[TP]] : f64
// CHECK-NEXT: arith.select %[[IN]], %[[TPA]], %{{.*}} : f64
// CHECK: arith.cmpf ugt, %[[TOP]], %{{.*}} : f64
// CHECK: %[[FD:.*]] = arith.divf %{{.*}}, %[[DT]] : f64
// CHECK-NEXT: %[[FASTER:.*]] = arith.cmpf ogt, %[[R]], %[[FD]] : f64
// CHECK-NEXT: %[[RATE:.*]] = arith.select %[[FASTER]], %[[R]], %[[FD]] : f64
// CHECK-NEXT: %[[TRA:.*]] = arith.addf %[[T]], %[[TR]] : f64
// CHECK-NEXT: arith.select %[[FASTER]], %[[TRA]], %{{.*}} : f64
// CHECK: arith.cmpf ugt, %[[RATE]], %{{.*}} : f64
func.func @within(%args: !llvm.ptr, %s: i64, %cell: i64, %dt: f64, %v0: f64,
                  %v1: f64, %p: f64, %tp: f64, %r: f64, %tr: f64) {
  easyml.update_biomarkers %args, step %s, cell %cell, dt %dt,
      vm %v0 to %v1 peak %p at %tp rate %r at %tr, states() : !llvm.ptr
  return
}
