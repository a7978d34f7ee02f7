// RUN: easyml-opt %s --split-input-file --verify-diagnostics --easyml-vectorize-cells="max-unmasked-ops=0" | FileCheck %s
// RUN: easyml-opt %s --split-input-file --verify-diagnostics --easyml-vectorize-cells | FileCheck %s --check-prefix=FULL
// RUN: easyml-opt %s --split-input-file --verify-diagnostics --easyml-vectorize-cells="max-unmasked-ops=10" | FileCheck %s --check-prefix=BIG

// A small loop body (at most max-unmasked-ops operations, default 500)
// gets a copy for the vectors whose lanes are all in [lb, ub): no lane
// mask computed, an all-true one in its stores; the first and last
// vectors take the masked body.
// FULL-LABEL: func.func @step(
// FULL: scf.parallel (%[[IV:.*]]) = (%{{.*}}) to (%[[UB:[a-z0-9]+]]) step (%[[W:[a-z0-9_]+]]) {
// FULL: %[[FROM:.*]] = arith.cmpi sge, %[[IV]], %{{.*}} : index
// FULL: %[[END:.*]] = arith.addi %[[IV]], %[[W]] : index
// FULL: %[[TO:.*]] = arith.cmpi sle, %[[END]], %[[UB]] : index
// FULL: %[[ALLIN:.*]] = arith.andi %[[FROM]], %[[TO]] : i1
// FULL: scf.if %[[ALLIN]] {
// FULL: %[[ALL:.*]] = arith.constant dense<true> : vector<4xi1>
// FULL-NOT: arith.constant dense<[0, 1, 2, 3]>
// FULL: llvm.intr.masked.store %{{.*}}, %{{.*}}, %[[ALL]]
// FULL: } else {
// FULL: arith.constant dense<[0, 1, 2, 3]> : vector<4xi64>
// FULL: llvm.intr.masked.store
// FULL: } {easyml.cells}
// A larger one keeps the masked body alone.
// BIG-LABEL: func.func @step(
// BIG-NOT: dense<true>
// BIG: } {easyml.cells}

// A cpu-simd cell loop, written for one cell, becomes one over vectors of
// four cells: from the aligned cell below the start, lanes outside the
// range masked.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[SV:[a-z0-9]+]]: !llvm.ptr, %[[TAB:[a-z0-9]+]]: !llvm.ptr, %[[CNT:[a-z0-9]+]]: !llvm.ptr, %[[LB:[a-z0-9]+]]: index, %[[UB:[a-z0-9]+]]: index, %[[STRIDE:[a-z0-9]+]]: i64, %[[G:[a-z0-9]+]]: f64
// CHECK: %[[W:.*]] = arith.constant 4 : index
// CHECK: %[[Q:.*]] = arith.divsi %[[LB]], %[[W]] : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[Q]], %[[W]] : index
// CHECK: scf.parallel (%[[IV:.*]]) = (%[[FIRST]]) to (%[[UB]]) step (%[[W]]) {
// The lanes inside [lb, ub).
// CHECK: %[[C0:.*]] = arith.index_cast %[[IV]] : index to i64
// CHECK: %[[IOTA:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xi64>
// CHECK: %[[LANES:.*]] = arith.addi %{{.*}}, %[[IOTA]] : vector<4xi64>
// CHECK: %[[MASK:.*]] = arith.andi
// The cell index stays lane 0's scalar; its row entry is a vector load.
// CHECK: %[[CELL:.*]] = arith.index_cast %[[IV]] : index to i64
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[SV]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK: %[[X:.*]] = llvm.load %[[AT]] {alignment = 8 : i64} : !llvm.ptr -> vector<4xf64>
// A shared value meets per-cell ones as a broadcast.
// CHECK: %[[GV:.*]] = vector.broadcast %[[G]] : f64 to vector<4xf64>
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[GV]] : vector<4xf64>
// Unrelated addresses (a table row per lane): a gather.
// CHECK: %[[ROWS:.*]] = llvm.getelementptr %[[TAB]][%{{.*}}] : (!llvm.ptr, vector<4xi64>) -> !llvm.vec<4 x ptr>, f64
// CHECK: llvm.intr.masked.gather %[[ROWS]]
// A counter under a per-cell condition: the count of the active lanes
// where it holds, added once.
// CHECK: %[[HOLDS:.*]] = arith.andi %[[MASK]], %{{.*}} : vector<4xi1>
// CHECK: %[[ONES:.*]] = arith.extui %[[HOLDS]] : vector<4xi1> to vector<4xi64>
// CHECK: %[[N:.*]] = vector.reduction <add>, %[[ONES]] : vector<4xi64> into i64
// CHECK: %[[ANY:.*]] = arith.cmpi ne, %[[N]], %{{.*}} : i64
// CHECK: scf.if %[[ANY]] {
// CHECK-NEXT: llvm.atomicrmw add %[[CNT]], %[[N]] monotonic : !llvm.ptr, i64
// The cell's own entry: a masked store.
// CHECK: llvm.intr.masked.store %{{.*}}, %[[AT]], %[[MASK]] {alignment = 8 : i32} : vector<4xf64>, vector<4xi1> into !llvm.ptr
// CHECK: } {easyml.cells}
module {
  func.func @step(%sv: !llvm.ptr, %tab: !llvm.ptr, %cnt: !llvm.ptr, %lb: index, %ub: index, %stride: i64, %g: f64) attributes {easyml.variant = #easyml.variant<"cpu-simd", width = 4, soa>} {
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
      %cell = arith.index_cast %i : index to i64
      %c2 = arith.constant 2 : i64
      %row = arith.muli %c2, %stride : i64
      %idx = arith.addi %row, %cell : i64
      %at = llvm.getelementptr %sv[%idx] : (!llvm.ptr, i64) -> !llvm.ptr, f64
      %x = llvm.load %at : !llvm.ptr -> f64
      %y = arith.mulf %x, %g : f64
      %k = arith.fptosi %y : f64 to i64
      %e = llvm.getelementptr %tab[%k] : (!llvm.ptr, i64) -> !llvm.ptr, f64
      %t = llvm.load %e : !llvm.ptr -> f64
      %z = arith.addf %y, %t : f64
      %zero = arith.constant 0.0 : f64
      %neg = arith.cmpf olt, %z, %zero : f64
      scf.if %neg {
        %one = arith.constant 1 : i64
        %r = llvm.atomicrmw add %cnt, %one monotonic : !llvm.ptr, i64
      }
      llvm.store %z, %at : f64, !llvm.ptr
      scf.reduce
    } {easyml.cells}
    return
  }
}

// -----

// A loop whose condition varies (cvode's sub-steps) runs while any active
// lane continues; a lane whose condition fails keeps its values. A loop
// carrying a per-cell value over the wave's steps keeps it as a vector.
// CHECK-LABEL: func.func @loops(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %{{.*}}) -> (vector<4xf64>)
// CHECK: %[[R:.*]]:2 = scf.while (%[[A:.*]] = %{{.*}}) : (vector<4xf64>) -> (vector<4xf64>, vector<4xi1>) {
// CHECK: %[[C:.*]] = arith.cmpf olt, %[[A]], %{{.*}} : vector<4xf64>
// CHECK: %[[LANES:.*]] = arith.andi %[[C]], %{{.*}} : vector<4xi1>
// CHECK: %[[GO:.*]] = vector.reduction <or>, %[[LANES]] : vector<4xi1> into i1
// CHECK: scf.condition(%[[GO]]) %[[A]], %[[LANES]] : vector<4xf64>, vector<4xi1>
// CHECK: } do {
// CHECK: ^bb0(%[[B:.*]]: vector<4xf64>, %[[ACTIVE:.*]]: vector<4xi1>):
// CHECK: %[[NEXT:.*]] = arith.addf %[[B]], %{{.*}} : vector<4xf64>
// CHECK: %[[KEEP:.*]] = arith.select %[[ACTIVE]], %[[NEXT]], %[[B]] : vector<4xi1>, vector<4xf64>
// CHECK: scf.yield %[[KEEP]] : vector<4xf64>
// CHECK: scf.yield %[[R]]#0 : vector<4xf64>
// Storage shared by every cell is read as a scalar.
// CHECK: %[[P:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f64
module {
  func.func @loops(%sv: !llvm.ptr, %shared: !llvm.ptr, %lb: index, %ub: index, %n: i64) attributes {easyml.variant = #easyml.variant<"cpu-simd", width = 4, soa>} {
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
      %cell = arith.index_cast %i : index to i64
      %at = llvm.getelementptr %sv[%cell] : (!llvm.ptr, i64) -> !llvm.ptr, f64
      %x = llvm.load %at : !llvm.ptr -> f64
      %z0 = arith.constant 0 : i64
      %s1 = arith.constant 1 : i64
      %end = scf.for %k = %z0 to %n step %s1 iter_args(%s = %x) -> (f64) : i64 {
        %limit = arith.constant 10.0 : f64
        %r = scf.while (%a = %s) : (f64) -> f64 {
          %c = arith.cmpf olt, %a, %limit : f64
          scf.condition(%c) %a : f64
        } do {
        ^bb0(%b: f64):
          %half = arith.constant 0.5 : f64
          %next = arith.addf %b, %half : f64
          scf.yield %next : f64
        }
        scf.yield %r : f64
      }
      %p = llvm.load %shared : !llvm.ptr -> f64
      %out = arith.addf %end, %p : f64
      llvm.store %out, %at : f64, !llvm.ptr
      scf.reduce
    } {easyml.cells}
    return
  }
}

// -----

// Baseline and GPU kernels keep their one-cell loops.
// CHECK-LABEL: func.func @scalar(
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NOT: vector<
// CHECK: } {easyml.cells}
module {
  func.func @scalar(%sv: !llvm.ptr, %lb: index, %ub: index) attributes {easyml.variant = #easyml.variant<baseline, width = 1, aos>} {
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
      %cell = arith.index_cast %i : index to i64
      %at = llvm.getelementptr %sv[%cell] : (!llvm.ptr, i64) -> !llvm.ptr, f64
      %x = llvm.load %at : !llvm.ptr -> f64
      llvm.store %x, %at : f64, !llvm.ptr
      scf.reduce
    } {easyml.cells}
    return
  }
}

// -----

// A store to storage shared by every cell has no vector form.
module {
  func.func @shared_store(%p: !llvm.ptr, %lb: index, %ub: index) attributes {easyml.variant = #easyml.variant<"cpu-simd", width = 4, soa>} {
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
      %cell = arith.index_cast %i : index to i64
      %v = arith.sitofp %cell : i64 to f64
      // expected-error@+1 {{easyml-vectorize-cells: a store that is not to the cell's own entry}}
      llvm.store %v, %p : f64, !llvm.ptr
      scf.reduce
    } {easyml.cells}
    return
  }
}

// -----

// Per-cell storage as a memref view (what easyml-lower-to-kernels writes):
// an entry whose innermost index is the cell is a vector load of
// consecutive cells, stored back under the mask; an entry every cell
// shares stays a scalar load.
// CHECK-LABEL: func.func @views(
// CHECK-SAME: %[[SV:[a-z0-9]+]]: memref<?x?xf64, strided<[?, 1]>>, %[[G:[a-z0-9]+]]: memref<?xf64>
// CHECK: scf.parallel (%[[IV:.*]]) =
// CHECK: %[[MASK:.*]] = arith.andi
// CHECK: %[[ROW:.*]] = arith.constant 2 : index
// CHECK: %[[X:.*]] = vector.load %[[SV]][%[[ROW]], %[[IV]]] : memref<?x?xf64, strided<[?, 1]>>, vector<4xf64>
// CHECK: %[[S:.*]] = memref.load %[[G]][%{{.*}}] : memref<?xf64>
// CHECK: %[[SV4:.*]] = vector.broadcast %[[S]] : f64 to vector<4xf64>
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[SV4]] : vector<4xf64>
// CHECK: vector.maskedstore %[[SV]][%[[ROW]], %[[IV]]], %[[MASK]], %[[Y]] : memref<?x?xf64, strided<[?, 1]>>, vector<4xi1>, vector<4xf64>
module {
  func.func @views(%sv: memref<?x?xf64, strided<[?, 1]>>, %g: memref<?xf64>, %lb: index, %ub: index) attributes {easyml.variant = #easyml.variant<"cpu-simd", width = 4, soa>} {
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
      %row = arith.constant 2 : index
      %x = memref.load %sv[%row, %i] : memref<?x?xf64, strided<[?, 1]>>
      %c0 = arith.constant 0 : index
      %s = memref.load %g[%c0] : memref<?xf64>
      %y = arith.mulf %x, %s : f64
      memref.store %y, %sv[%row, %i] : memref<?x?xf64, strided<[?, 1]>>
      scf.reduce
    } {easyml.cells}
    return
  }
}

// -----

// A view entry that is not the cell's own (here: the cell picks the row)
// has no vector form.
module {
  func.func @view_rows(%sv: memref<?x?xf64, strided<[?, 1]>>, %lb: index, %ub: index) attributes {easyml.variant = #easyml.variant<"cpu-simd", width = 4, soa>} {
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
      %c0 = arith.constant 0 : index
      // expected-error@+1 {{easyml-vectorize-cells: a load that is not of the cells' own entries}}
      %x = memref.load %sv[%i, %c0] : memref<?x?xf64, strided<[?, 1]>>
      memref.store %x, %sv[%c0, %i] : memref<?x?xf64, strided<[?, 1]>>
      scf.reduce
    } {easyml.cells}
    return
  }
}

// -----

// A branch on cell values that yields values: each side runs under the
// mask of its lanes, only when one of the active lanes takes it, and each
// lane selects its side's result.
// CHECK-LABEL: func.func @branch_values(
// CHECK: %[[X:.*]] = vector.load
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : vector<4xf64>
// CHECK: %[[TLANES:.*]] = arith.andi %[[MASK:.*]], %[[POS]] : vector<4xi1>
// CHECK: %[[ANYT:.*]] = vector.reduction <or>, %[[TLANES]] : vector<4xi1> into i1
// CHECK: %[[T:.*]] = scf.if %[[ANYT]] -> (vector<4xf64>) {
// CHECK-NEXT: scf.yield %[[X]] : vector<4xf64>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4xf64>
// CHECK-NEXT: scf.yield %[[Z]] : vector<4xf64>
// CHECK: %[[NEG:.*]] = arith.xori %[[POS]], %{{.*}} : vector<4xi1>
// CHECK: %[[ELANES:.*]] = arith.andi %[[MASK]], %[[NEG]] : vector<4xi1>
// CHECK: %[[ANYE:.*]] = vector.reduction <or>, %[[ELANES]] : vector<4xi1> into i1
// CHECK: %[[E:.*]] = scf.if %[[ANYE]] -> (vector<4xf64>) {
// CHECK: %[[EXP:.*]] = math.exp %[[X]] : vector<4xf64>
// CHECK-NEXT: scf.yield %[[EXP]] : vector<4xf64>
// CHECK: %[[R:.*]] = arith.select %[[POS]], %[[T]], %[[E]] : vector<4xi1>, vector<4xf64>
// CHECK: vector.maskedstore %{{.*}}, %[[MASK]], %[[R]]
module {
  func.func @branch_values(%sv: memref<?x?xf64, strided<[?, 1]>>, %lb: index, %ub: index) attributes {easyml.variant = #easyml.variant<"cpu-simd", width = 4, soa>} {
    %c1 = arith.constant 1 : index
    scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
      %row = arith.constant 0 : index
      %x = memref.load %sv[%row, %i] : memref<?x?xf64, strided<[?, 1]>>
      %zero = arith.constant 0.0 : f64
      %pos = arith.cmpf ogt, %x, %zero : f64
      %r = scf.if %pos -> (f64) {
        scf.yield %x : f64
      } else {
        %e = math.exp %x : f64
        scf.yield %e : f64
      }
      memref.store %r, %sv[%row, %i] : memref<?x?xf64, strided<[?, 1]>>
      scf.reduce
    } {easyml.cells}
    return
  }
}
