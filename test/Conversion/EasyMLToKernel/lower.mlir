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
// CHECK-LABEL: func.func @easyml_m_baseline_compute(%{{.*}}: !llvm.ptr)
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// Inner loop over the steps of the wave, the state carried in registers.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// The clamp of .ub counts its events atomically.
// CHECK: arith.cmpf ogt
// CHECK: scf.if
// CHECK: llvm.atomicrmw add
// CHECK: arith.select
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
