// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-reciprocal-divisors))' | FileCheck %s

// A division by a value that is the same for every cell (shared
// parameters, flags, constants, dt and arithmetic of those) becomes a
// product with its reciprocal, one reciprocal per divisor right after it;
// divisions by a cell's own values, by nodal parameters, and of uniform
// values by uniform values stay.

// CHECK-LABEL: easyml.model @divisions
easyml.model @divisions {
  easyml.external @V as "Vm" access <read>
  easyml.external @Iion as "Iion" access <write>
  easyml.param @tau = 12.9
  easyml.param @cm = 1.0
  easyml.param @g = 0.5 {nodal}
  easyml.state @x kind <diff> method <fe>
  easyml.init {
    %z = arith.constant 0.0 : f64
    easyml.init_value @x, %z : f64
  }
  easyml.compute {
    // CHECK: %[[V:.*]] = easyml.get @V
    // CHECK: %[[X:.*]] = easyml.get @x
    %v = easyml.get @V : f64
    %x = easyml.get @x : f64
    // CHECK: %[[TAU:.*]] = easyml.get @tau
    // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
    // CHECK-NEXT: %[[RTAU:.*]] = arith.divf %[[ONE]], %[[TAU]] : f64
    %tau = easyml.get @tau : f64
    %cm = easyml.get @cm : f64
    %g = easyml.get @g : f64
    %dt = easyml.dt : f64
    // CHECK: %[[A:.*]] = arith.mulf %[[V]], %[[RTAU]] : f64
    %a = arith.divf %v, %tau : f64
    // The same divisor: the same reciprocal.
    // CHECK: %[[B:.*]] = arith.mulf %[[A]], %[[RTAU]] : f64
    %b = arith.divf %a, %tau : f64
    // An expression of parameters and dt.
    // CHECK: %[[TDT:.*]] = arith.mulf %[[TAU]], %{{.*}} : f64
    // CHECK-NEXT: arith.constant 1.000000e+00 : f64
    // CHECK-NEXT: %[[RTDT:.*]] = arith.divf %{{.*}}, %[[TDT]] : f64
    %taudt = arith.mulf %tau, %dt : f64
    // CHECK: arith.mulf %[[X]], %[[RTDT]] : f64
    %c = arith.divf %x, %taudt : f64
    // A uniform quotient, a nodal divisor and a varying one stay.
    // CHECK: arith.divf %[[TAU]], %{{.*}} : f64
    %d = arith.divf %tau, %cm : f64
    // CHECK: arith.divf %[[V]], %{{.*}} : f64
    %e = arith.divf %v, %g : f64
    // CHECK: arith.divf %{{.*}}, %[[V]] : f64
    %f = arith.divf %x, %v : f64
    %s1 = arith.addf %b, %c : f64
    %s2 = arith.addf %s1, %d : f64
    %s3 = arith.addf %s2, %e : f64
    %s4 = arith.addf %s3, %f : f64
    easyml.output @Iion, %s4 : f64
    easyml.diff @x, %a : f64
  }
}
