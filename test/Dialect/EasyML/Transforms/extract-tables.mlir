// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-extract-tables))' | FileCheck %s

// What depends only on V (and parameters) moves into the table; the state-
// dependent product stays inline and reads the interpolated column.

// CHECK-LABEL: easyml.model @tab
// CHECK: easyml.table "V" lo -1.000000e+02 hi 1.000000e+02 step 1.000000e-01 {names = ["a"]} columns {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64):
// CHECK: %[[G:.*]] = easyml.get @g
// CHECK: %[[E:.*]] = math.exp %[[X]]
// CHECK: %[[A:.*]] = arith.mulf %[[G]], %[[E]]
// CHECK: easyml.yield %[[A]] : f64
// CHECK: easyml.compute
// CHECK: %[[V:.*]] = easyml.get @V
// CHECK-NEXT: %[[L:.*]] = easyml.lookup "V"(%[[V]]) : (f64) -> f64
// CHECK-NOT: math.exp
// CHECK: arith.mulf %[[L]], %{{.*}}
easyml.model @tab {
  easyml.external @V as "Vm" access <read>
  easyml.external @Iion as "Iion" access <write>
  easyml.param @g = 2.0
  easyml.state @x kind <store> method <none>
  easyml.table "V" lo -100.0 hi 100.0 step 0.1
  easyml.init {
    %c = arith.constant 1.0 : f64
    easyml.init_value @x, %c : f64
  }
  easyml.compute {
    %v = easyml.get @V : f64
    %g = easyml.get @g : f64
    %e = math.exp %v : f64
    %a = arith.mulf %g, %e : f64 loc("a")
    %x = easyml.get @x : f64
    %i = arith.mulf %a, %x : f64
    easyml.output @Iion, %i : f64
    easyml.next @x, %x : f64
  }
}
