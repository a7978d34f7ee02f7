// RUN: easyml-opt %s --split-input-file --pass-pipeline='builtin.module(easyml.model(easyml-whole-cell))' | FileCheck %s

// Vm becomes a state whose derivative is (stimulus - Iion) * vm_free, read
// wherever the model read the external; every state with a derivative or
// a gate joins cvode group 0; a `.store()` state keeps its update.

// CHECK-LABEL: easyml.model @cell
// CHECK-SAME: easyml.whole_cell_vm = @Vm.cell.1
// CHECK: easyml.state @m kind <inf_tau> method <cvode> {group = 0 : i32}
// CHECK: easyml.state @c kind <diff> method <cvode> {group = 0 : i32}
// CHECK: easyml.state @k kind <store> method <none>
// CHECK-NOT: group
// CHECK: easyml.state @Vm.cell.1 kind <diff> method <cvode> {group = 0 : i32, units = "mV"}
// CHECK: easyml.init
// CHECK: %[[V0:.*]] = arith.constant -8.0{{0*}}e+01
// CHECK: easyml.init_value @V, %[[V0]]
// CHECK: easyml.init_value @Vm.cell.1, %[[V0]]
// CHECK: easyml.compute
// CHECK: %[[V:.*]] = easyml.get @Vm.cell.1
// CHECK: %[[I:.*]] = arith.mulf %[[V]]
// CHECK: easyml.output @Iion, %[[I]]
// CHECK: %[[S:.*]] = easyml.stimulus : f64
// CHECK: %[[F:.*]] = easyml.vm_free : f64
// CHECK: %[[D:.*]] = arith.subf %[[S]], %[[I]]
// CHECK: %[[R:.*]] = arith.mulf %[[D]], %[[F]]
// CHECK: easyml.diff @Vm.cell.1, %[[R]]
easyml.model @cell {
  easyml.external @V as "Vm" access <read> {units = "mV"}
  easyml.external @Iion as "Iion" access <write>
  // A name the new state must not take.
  easyml.param @Vm.cell = 1.0
  easyml.state @m kind <inf_tau> method <rush_larsen>
  easyml.state @c kind <diff> method <markov_be> {group = 3 : i32}
  easyml.state @k kind <store> method <none>
  easyml.init {
    %v = arith.constant -80.0 : f64
    %h = arith.constant 0.5 : f64
    easyml.init_value @V, %v : f64
    easyml.init_value @m, %h : f64
    easyml.init_value @c, %h : f64
    easyml.init_value @k, %h : f64
  }
  easyml.compute {
    %v = easyml.get @V : f64
    %m = easyml.get @m : f64
    %c = easyml.get @c : f64
    %g = arith.constant 0.1 : f64
    %i = arith.mulf %v, %g : f64
    easyml.output @Iion, %i : f64
    easyml.gate_inf_tau @m inf %c tau %g : f64, f64
    easyml.diff @c, %m : f64
    easyml.next @k, %c : f64
  }
}

// -----

// Without an initial value of Vm, the state starts at 0 (the kernels load
// it from the simulator's Vm before every step).

// CHECK-LABEL: easyml.model @noinit
// CHECK: easyml.state @Vm.cell kind <diff> method <cvode> {group = 0 : i32}
// CHECK: %[[Z:.*]] = arith.constant 0.0{{0*}}e+00
// CHECK: easyml.init_value @Vm.cell, %[[Z]]
easyml.model @noinit {
  easyml.external @V as "Vm" access <read>
  easyml.external @Iion as "Iion" access <write>
  easyml.init {
  }
  easyml.compute {
    %v = easyml.get @V : f64
    easyml.output @Iion, %v : f64
  }
}
