// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators),easyml-lower-to-kernels)' | FileCheck %s
// RUN: easyml-opt %s --easyml-baseline-pipeline | FileCheck %s --check-prefix=LLVM

// The four entry points of the runtime ABI, each taking one args pointer.
// CHECK-NOT: easyml.model
// CHECK-LABEL: func.func @easyml_m_baseline_tables(%{{.*}}: !llvm.ptr)
// CHECK-LABEL: func.func @easyml_m_baseline_init(%{{.*}}: !llvm.ptr)
// Loop over cells [begin, end): a parallel loop tagged easyml.cells (run
// in order on the CPU; one thread per cell on a GPU).
// CHECK: scf.parallel (%[[CELL:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: } {easyml.cells}
// CHECK-LABEL: func.func @easyml_m_baseline_compute(
// CHECK-SAME: %[[ARGS:.*]]: !llvm.ptr)
// The recording schedule is read once per call (easyml-lower-recording).
// CHECK: %[[FIRST:.*]], %[[EVERY:.*]], %[[SAMPLES:.*]] = easyml.record_schedule %[[ARGS]] : !llvm.ptr
// ABI 8 vm_before (field 28): where to keep Vm as read, or null.
// CHECK: %[[BEFOREP:.*]] = llvm.getelementptr %[[ARGS]][28]
// CHECK-NEXT: %[[BEFORE:.*]] = llvm.load %[[BEFOREP]] : !llvm.ptr -> !llvm.ptr
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// Vm is stored there as read, before the steps and their stimulus.
// CHECK: %[[VM0:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xf64>
// CHECK: %[[GIVEN:.*]] = llvm.icmp "ne" %[[BEFORE]], %{{.*}} : !llvm.ptr
// CHECK-NEXT: scf.if %[[GIVEN]] {
// CHECK: memref.store %[[VM0]], %{{.*}}[%{{.*}}] : memref<?xf64>
// CHECK-NEXT: }
// Inner loop over the steps of the wave, the state carried in registers.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[X:[^ ]*]] = %{{.*}}, %[[V:[^ ]*]] = %{{.*}}, %[[I:[^ ]*]] = %{{.*}})
// At the start of step s, what a sample records: the state and the
// externals, sv row 0 then the externals from row 1.
// CHECK: %[[S:.*]] = arith.addi
// CHECK-NEXT: easyml.record_sample %[[ARGS]], step %[[S]], cell %[[CC:[^,]*]], schedule %[[FIRST]], %[[EVERY]], %[[SAMPLES]] : !llvm.ptr {
// CHECK-NEXT: easyml.record_value %[[X]] at 0 : f64
// CHECK-NEXT: easyml.record_value %[[V]] at 1 : f64
// CHECK-NEXT: easyml.record_value %[[I]] at 2 : f64
// CHECK-NEXT: }
// The clamp of .ub counts its events atomically.
// CHECK: arith.cmpf ogt
// CHECK: scf.if
// CHECK: llvm.atomicrmw add
// CHECK: %[[XNEW:.*]] = arith.select
// After the step, the biomarkers of Vm before the stimulus and after the
// integration (easyml-lower-biomarkers).
// CHECK: easyml.update_biomarkers %[[ARGS]], step %[[S]], cell %[[CC]], dt %{{.*}}, vm %[[V]] to %{{.*}}, states(%[[XNEW]]) : !llvm.ptr
// CHECK-NEXT: scf.yield
// CHECK-LABEL: func.func @easyml_m_baseline_eval(%{{.*}}: !llvm.ptr)

// LLVM-LABEL: llvm.func @easyml_m_baseline_compute(%{{.*}}: !llvm.ptr)
// LLVM: llvm.call @exp(
// LLVM-NOT: scf.
// LLVM-NOT: arith.
easyml.model @m {
  easyml.external @V as "Vm" access <read>
  easyml.external @Iion as "Iion" access <write>
  easyml.param @g = 2.0
  easyml.state @x kind <diff> method <fe> {ub = 1.0 : f64}
  easyml.init {
    %c = arith.constant 0.5 : f64
    easyml.init_value @x, %c : f64
  }
  easyml.compute {
    %v = easyml.get @V : f64
    %g = easyml.get @g : f64
    %x = easyml.get @x : f64
    %e = math.exp %v : f64
    %f = arith.mulf %e, %x : f64
    %i = arith.mulf %g, %x : f64
    easyml.output @Iion, %i : f64
    easyml.diff @x, %f : f64
  }
}
