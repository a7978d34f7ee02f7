// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-powers))' | FileCheck %s
// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-powers{max-exponent=2}))' | FileCheck %s --check-prefix=MAX2

// Small integer powers become products (binary exponentiation); other
// exponents keep the pow call.

// CHECK-LABEL: easyml.model @powers
easyml.model @powers {
  easyml.external @V as "Vm" access <read>
  easyml.external @Iion as "Iion" access <write>
  easyml.param @p = 1.5
  easyml.init {
  }
  easyml.compute {
    %x = easyml.get @V : f64
    %p = easyml.get @p : f64
    %c2 = arith.constant 2.0 : f64
    %c3 = arith.constant 3.0 : f64
    %c8 = arith.constant 8.0 : f64
    %cm2 = arith.constant -2.0 : f64
    %c15 = arith.constant 1.5 : f64
    %c9 = arith.constant 9.0 : f64
    // x^2 = x*x
    // CHECK: %[[X:.*]] = easyml.get @V
    // CHECK: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f64
    %a = math.powf %x, %c2 : f64
    // x^3 = x * (x*x)
    // CHECK: %[[SQ3:.*]] = arith.mulf %[[X]], %[[X]] : f64
    // CHECK: %[[CU:.*]] = arith.mulf %[[X]], %[[SQ3]] : f64
    %b = math.powf %x, %c3 : f64
    // x^8 = ((x^2)^2)^2
    // CHECK: %[[E2:.*]] = arith.mulf %[[X]], %[[X]] : f64
    // CHECK: %[[E4:.*]] = arith.mulf %[[E2]], %[[E2]] : f64
    // CHECK: %[[E8:.*]] = arith.mulf %[[E4]], %[[E4]] : f64
    %c = math.powf %x, %c8 : f64
    // x^-2 = 1 / (x*x)
    // CHECK: %[[M2:.*]] = arith.mulf %[[X]], %[[X]] : f64
    // CHECK: arith.divf %{{.*}}, %[[M2]] : f64
    %d = math.powf %x, %cm2 : f64
    // Not integers, beyond the limit, or not constant: unchanged.
    // CHECK: math.powf %[[X]], %{{.*}} : f64
    // CHECK: math.powf %[[X]], %{{.*}} : f64
    // CHECK: math.powf %[[X]], %{{.*}} : f64
    %e = math.powf %x, %c15 : f64
    %f = math.powf %x, %c9 : f64
    %g = math.powf %x, %p : f64
    %s1 = arith.addf %a, %b : f64
    %s2 = arith.addf %s1, %c : f64
    %s3 = arith.addf %s2, %d : f64
    %s4 = arith.addf %s3, %e : f64
    %s5 = arith.addf %s4, %f : f64
    %s6 = arith.addf %s5, %g : f64
    easyml.output @Iion, %s6 : f64
  }
}

// MAX2-COUNT-5: math.powf
// MAX2-NOT: math.powf
