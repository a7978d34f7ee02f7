// RUN: easyml-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(easyml-map-cells-to-gpu-threads))' | FileCheck %s

// The cell loop of a kernel: one thread per cell, threads past the end
// idle; the body moves under the guard with the cell in place of the
// induction variable.
// CHECK-LABEL: gpu.func @step(
// CHECK-SAME: %[[P:.*]]: !llvm.ptr<1>, %[[LB:.*]]: index, %[[UB:.*]]: index
// CHECK: %[[B:.*]] = gpu.block_id x
// CHECK-NEXT: %[[D:.*]] = gpu.block_dim x
// CHECK-NEXT: %[[T:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[BD:.*]] = arith.muli %[[B]], %[[D]] : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[BD]], %[[T]] : index
// CHECK-NEXT: %[[CELL:.*]] = arith.addi %[[LB]], %[[I]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[CELL]], %[[UB]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[C:.*]] = arith.index_cast %[[CELL]] : index to i64
// CHECK-NEXT: %[[Q:.*]] = llvm.getelementptr %[[P]][%[[C]]]
// CHECK: llvm.store %{{.*}}, %[[Q]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// CHECK-NOT: scf.parallel
// A parallel loop that is not a cell loop, and one outside a kernel, stay.
// CHECK-LABEL: gpu.func @other(
// CHECK: scf.parallel
// CHECK-LABEL: func.func @host(
// CHECK: scf.parallel
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @step(%p: !llvm.ptr<1>, %lb: index, %ub: index) kernel {
      %c1 = arith.constant 1 : index
      scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
        %c = arith.index_cast %i : index to i64
        %q = llvm.getelementptr %p[%c] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f64
        %x = llvm.load %q : !llvm.ptr<1> -> f64
        %y = arith.addf %x, %x : f64
        llvm.store %y, %q : f64, !llvm.ptr<1>
        scf.reduce
      } {easyml.cells}
      gpu.return
    }
    gpu.func @other(%lb: index, %ub: index) kernel {
      %c1 = arith.constant 1 : index
      scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
        scf.reduce
      }
      gpu.return
    }
  }
  func.func @host(%lb: index, %ub: index) {
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
      scf.reduce
    } {easyml.cells}
    return
  }
}

// -----

// A step other than 1 scales the thread index.
// CHECK-LABEL: gpu.func @strided(
// CHECK: %[[I:.*]] = arith.addi
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK-NEXT: arith.addi %{{.*}}, %[[S]] : index
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @strided(%lb: index, %ub: index, %s: index) kernel {
      scf.parallel (%i) = (%lb) to (%ub) step (%s) {
        scf.reduce
      } {easyml.cells}
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @two(%lb: index, %ub: index) kernel {
      %c1 = arith.constant 1 : index
      // expected-error @below {{cell loop with 2 dimensions and 0 reductions: easyml-map-cells-to-gpu-threads maps one dimension without reductions}}
      scf.parallel (%i, %j) = (%lb, %lb) to (%ub, %ub) step (%c1, %c1) {
        scf.reduce
      } {easyml.cells}
      gpu.return
    }
  }
}
