// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators{cvode-method=rodas3}))' | FileCheck %s
// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators{cvode-method=rodas3 cvode-jacobian-age=5}))' 2>&1 | FileCheck %s --check-prefix=AGE
// RUN: not easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators{cvode-method=ros3}))' 2>&1 | FileCheck %s --check-prefix=BAD

// RODAS3 on a cvode group: one Jacobian and factorisation of I - h/2*J per
// sub-step (gamma = 1/2), four solves, the rates at the start and twice at
// the end of the sub-step (stage 2 reuses the first), and a step-size
// factor 0.9 * err^(-1/3) (a second-order error estimate). The factors
// stay live with the states and three stages (4 + 4 * 2 values).
// CHECK-LABEL: easyml.model @cvode_pair
// CHECK: easyml.hidden @cvode.h.3
// CHECK-NOT: easyml.hidden @cvode.lu
// CHECK: scf.while
// CHECK: arith.constant 5.000000e-01 : f64
// CHECK: arith.constant -2.6666666666666665 : f64
// CHECK: %[[THIRD:.*]] = arith.constant -0.33333333333333331 : f64
// CHECK: %[[P:.*]] = math.powf %{{.*}}, %[[THIRD]] : f64
// CHECK: arith.mulf %[[P]], %{{.*}} : f64
// CHECK: easyml.stiff_cost = {jacobian_nonzeros = 2 : i64, live_across_stage2 = 12 : i64, lu_nonzeros = 4 : i64, states = 2 : i64}
// CHECK: easyml.next @cvode.h.3

// The kept factors are for W-methods, which RODAS3 is not.
// AGE: warning: easyml-expand-integrators: cvode-jacobian-age is ignored with cvode-method=rodas3
// AGE-NOT: easyml.hidden @cvode.lu

// BAD: error: bad options of easyml-expand-integrators:
// BAD-NEXT: cvode-method must be ros2 or rodas3, got 'ros3'
easyml.model @cvode_pair {
  easyml.state @a kind <diff> method <cvode> {group = 3 : i32}
  easyml.state @b kind <diff> method <cvode> {group = 3 : i32}
  easyml.init {
    %one = arith.constant 1.0 : f64
    easyml.init_value @a, %one : f64
    easyml.init_value @b, %one : f64
  }
  easyml.compute {
    %a = easyml.get @a : f64
    %b = easyml.get @b : f64
    %k = arith.constant -1000.0 : f64
    %fa = arith.mulf %k, %b : f64
    %fb = arith.mulf %k, %a : f64
    easyml.diff @a, %fa : f64
    easyml.diff @b, %fb : f64
  }
}
