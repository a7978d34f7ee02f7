// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-resolve-gates))' | FileCheck %s

// Gates integrated by Rush-Larsen keep their gate form; others become the
// derivative they stand for, and the state becomes a `diff` state.

// CHECK-LABEL: easyml.model @gates
// CHECK: easyml.state @a kind <inf_tau> method <rush_larsen>
// CHECK: easyml.state @b kind <diff> method <fe>
// CHECK: easyml.state @c kind <diff> method <rk4>
easyml.model @gates {
  easyml.external @V as "Vm" access <read>
  easyml.state @a kind <inf_tau> method <rush_larsen>
  easyml.state @b kind <inf_tau> method <fe>
  easyml.state @c kind <alpha_beta> method <rk4>
  easyml.init {
    %c = arith.constant 0.5 : f64
    easyml.init_value @a, %c : f64
    easyml.init_value @b, %c : f64
    easyml.init_value @c, %c : f64
  }
  easyml.compute {
    %v = easyml.get @V : f64
    %two = arith.constant 2.0 : f64
    // CHECK: easyml.gate_inf_tau @a inf %[[V:.*]] tau %[[TWO:.*]] :
    easyml.gate_inf_tau @a inf %v tau %two : f64, f64
    // (inf - b) / tau
    // CHECK: %[[B:.*]] = easyml.get @b
    // CHECK: %[[D:.*]] = arith.subf %[[V]], %[[B]]
    // CHECK: %[[R:.*]] = arith.divf %[[D]], %[[TWO]]
    // CHECK: easyml.diff @b, %[[R]]
    easyml.gate_inf_tau @b inf %v tau %two : f64, f64
    // alpha (1 - c) - beta c
    // CHECK: %[[C:.*]] = easyml.get @c
    // CHECK: %[[ONE:.*]] = arith.constant 1.0
    // CHECK: %[[OMC:.*]] = arith.subf %[[ONE]], %[[C]]
    // CHECK: %[[AT:.*]] = arith.mulf %[[V]], %[[OMC]]
    // CHECK: %[[BT:.*]] = arith.mulf %[[TWO]], %[[C]]
    // CHECK: %[[RC:.*]] = arith.subf %[[AT]], %[[BT]]
    // CHECK: easyml.diff @c, %[[RC]]
    easyml.gate_alpha_beta @c alpha %v beta %two : f64, f64
  }
}
