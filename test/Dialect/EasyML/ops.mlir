// RUN: easyml-opt %s | FileCheck %s
// RUN: easyml-opt %s | easyml-opt | FileCheck %s
// RUN: easyml-opt %s --mlir-print-op-generic | easyml-opt | FileCheck %s

// CHECK-LABEL: easyml.model @hh
easyml.model @hh attributes {source = "hh.model"} {
  // CHECK: easyml.external @V as "Vm" access <read> {nodal}
  easyml.external @V as "Vm" access <read> {nodal}
  // CHECK: easyml.external @Iion as "Iion" access <write>
  easyml.external @Iion as "Iion" access <write>
  // CHECK: easyml.param @g = 3.000000e-01 {units = "mS/cm^2"}
  easyml.param @g = 0.3 {units = "mS/cm^2"}
  // CHECK: easyml.flag @type = 0.000000e+00 cases ["A", "B"] values [0.000000e+00, 1.000000e+00]
  easyml.flag @type = 0.0 cases ["A", "B"] values [0.0, 1.0]
  // A derived parameter: its definition reads parameters and flags.
  // CHECK: easyml.param @g2 = 3.900000e-01 {formula = "type == 1 ? g * 1.3 : g"} derived {
  // CHECK-NEXT: easyml.get @g : f64
  // CHECK: easyml.yield %{{.*}} : f64
  easyml.param @g2 = 0.39 {formula = "type == 1 ? g * 1.3 : g"} derived {
    %g = easyml.get @g : f64
    %t = easyml.get @type : f64
    %one = arith.constant 1.0 : f64
    %c = arith.cmpf oeq, %t, %one : f64
    %s = arith.constant 1.3 : f64
    %m = arith.mulf %g, %s : f64
    %v = arith.select %c, %m, %g : f64
    easyml.yield %v : f64
  }
  // CHECK: easyml.param @g3 = 7.800000e-01 derived {
  easyml.param @g3 = 0.78 derived {
    %g2 = easyml.get @g2 : f64
    %v = arith.addf %g2, %g2 : f64
    easyml.yield %v : f64
  }
  // CHECK: easyml.state @n kind <alpha_beta> method <rush_larsen> {lb = 0.000000e+00 : f64, ub = 1.000000e+00 : f64}
  easyml.state @n kind <alpha_beta> method <rush_larsen> {lb = 0.0 : f64, ub = 1.0 : f64}
  // CHECK: easyml.state @c kind <diff> method <cvode> {group = 0 : i32}
  easyml.state @c kind <diff> method <cvode> {group = 0 : i32}
  // CHECK: easyml.state @m kind <inf_tau> method <fe>
  easyml.state @m kind <inf_tau> method <fe>
  // CHECK: easyml.state @k kind <store> method <none>
  easyml.state @k kind <store> method <none>
  // CHECK: easyml.table "V" lo -1.000000e+02 hi 1.000000e+02 step 5.000000e-02
  easyml.table "V" lo -100.0 hi 100.0 step 0.05
  // CHECK: easyml.init
  easyml.init {
    %g = easyml.get @g : f64
    %0 = arith.constant 0.3 : f64
    // CHECK: easyml.init_value @n, %{{.*}} : f64
    easyml.init_value @n, %0 : f64
    easyml.init_value @c, %g : f64
    easyml.init_value @m, %0 : f64
    easyml.init_value @k, %0 : f64
    easyml.init_value @V, %0 : f64
  }
  // CHECK: easyml.compute
  easyml.compute {
    // CHECK: easyml.time : f64
    %t = easyml.time : f64
    // CHECK: easyml.dt : f64
    %dt = easyml.dt : f64
    %v = easyml.get @V : f64
    %n = easyml.get @n : f64
    %g = easyml.get @g : f64
    %i = arith.mulf %g, %v : f64
    // CHECK: easyml.output @Iion, %{{.*}} : f64
    easyml.output @Iion, %i : f64
    // CHECK: easyml.gate_alpha_beta @n alpha %{{.*}} beta %{{.*}} : f64, f64
    easyml.gate_alpha_beta @n alpha %v beta %g : f64, f64
    // CHECK: easyml.diff @c, %{{.*}} : f64
    easyml.diff @c, %t : f64
    // CHECK: easyml.gate_inf_tau @m inf %{{.*}} tau %{{.*}} : f64, f64
    easyml.gate_inf_tau @m inf %n tau %dt : f64, f64
    // CHECK: easyml.next @k, %{{.*}} : f64
    easyml.next @k, %n : f64
    // CHECK: easyml.trace "I", %{{.*}} : f64
    easyml.trace "I", %i : f64
  }
}

// CHECK-LABEL: easyml.model @hidden
// CHECK: easyml.hidden @cvode.h.0 init 0.000000e+00 {units = "ms"}
// CHECK: %[[H:.*]] = easyml.get @cvode.h.0 : f64
// CHECK: easyml.next @cvode.h.0, %[[H]] : f64
easyml.model @hidden attributes {easyml.integrators_expanded} {
  easyml.hidden @cvode.h.0 init 0.0 {units = "ms"}
  easyml.init {}
  easyml.compute {
    %h = easyml.get @cvode.h.0 : f64
    easyml.next @cvode.h.0, %h : f64
  }
}

// An in-place hidden value: loaded and stored where the step needs it, at
// any depth, with no easyml.next.
// CHECK-LABEL: easyml.model @hidden_in_place
// CHECK: easyml.hidden @cvode.lu.0.0 init 0.000000e+00 {in_place}
// CHECK: scf.if
// CHECK: %[[L:.*]] = easyml.hidden_load @cvode.lu.0.0 : f64
// CHECK: easyml.hidden_store @cvode.lu.0.0, %[[L]] : f64
easyml.model @hidden_in_place attributes {easyml.integrators_expanded} {
  easyml.hidden @cvode.lu.0.0 init 0.0 {in_place}
  easyml.init {}
  easyml.compute {
    %c = arith.constant true
    scf.if %c {
      %l = easyml.hidden_load @cvode.lu.0.0 : f64
      easyml.hidden_store @cvode.lu.0.0, %l : f64
    }
  }
}

// A kernel-level copy the optimisers cannot see through.
// CHECK-LABEL: func.func @opaque(
// CHECK: %{{.*}} = easyml.opaque %{{.*}} : i64
func.func @opaque(%x: i64) -> i64 {
  %y = easyml.opaque %x : i64
  return %y : i64
}
