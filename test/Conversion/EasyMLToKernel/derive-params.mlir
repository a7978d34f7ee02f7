// RUN: easyml-opt %s --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators),easyml-lower-to-kernels)' | FileCheck %s

// Derived parameters become one host function per model,
// derive_params(params, keep): each one, after what it reads (here g2 is
// declared after g3, which reads it), computed from the values in params
// and stored unless keep marks it (set by the user).
// CHECK: func.func @easyml_m_derive_params(%[[P:.*]]: !llvm.ptr, %[[K:.*]]: !llvm.ptr)
// g2 = type == 1 ? g * 1.3 : g   (params: g 0, g3 1, g2 2, then type 3)
// CHECK: %[[GA:.*]] = llvm.getelementptr %[[P]][0]
// CHECK: %[[G:.*]] = llvm.load %[[GA]] : !llvm.ptr -> f64
// CHECK: %[[TA:.*]] = llvm.getelementptr %[[P]][3]
// CHECK: llvm.load %[[TA]] : !llvm.ptr -> f64
// CHECK: %[[V2:.*]] = arith.select
// CHECK: %[[S2:.*]] = llvm.getelementptr %[[P]][2]
// CHECK: %[[K2:.*]] = llvm.getelementptr %[[K]][2]
// CHECK: %[[KEEP2:.*]] = llvm.load %[[K2]] : !llvm.ptr -> i64
// CHECK: %[[KEPT2:.*]] = arith.cmpi ne, %[[KEEP2]]
// CHECK: %[[OLD2:.*]] = llvm.load %[[S2]] : !llvm.ptr -> f64
// CHECK: %[[NEW2:.*]] = arith.select %[[KEPT2]], %[[OLD2]], %[[V2]] : f64
// CHECK: llvm.store %[[NEW2]], %[[S2]] : f64, !llvm.ptr
// g3 = g2 + g2 reads the value just stored.
// CHECK: %[[G2A:.*]] = llvm.getelementptr %[[P]][2]
// CHECK: %[[G2:.*]] = llvm.load %[[G2A]] : !llvm.ptr -> f64
// CHECK: %[[V3:.*]] = arith.addf %[[G2]], %[[G2]] : f64
// CHECK: llvm.getelementptr %[[P]][1]
// CHECK: llvm.getelementptr %[[K]][1]
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[V3]] : f64
// CHECK: llvm.store
// CHECK-NEXT: return
easyml.model @m {
  easyml.external @V as "Vm" access <read>
  easyml.external @Iion as "Iion" access <write>
  easyml.param @g = 2.0
  easyml.param @g3 = 5.2 derived {
    %g2 = easyml.get @g2 : f64
    %v = arith.addf %g2, %g2 : f64
    easyml.yield %v : f64
  }
  easyml.param @g2 = 2.6 {formula = "type == 1 ? g * 1.3 : g"} derived {
    %g = easyml.get @g : f64
    %t = easyml.get @type : f64
    %one = arith.constant 1.0 : f64
    %c = arith.cmpf oeq, %t, %one : f64
    %s = arith.constant 1.3 : f64
    %m = arith.mulf %g, %s : f64
    %v = arith.select %c, %m, %g : f64
    easyml.yield %v : f64
  }
  easyml.flag @type = 1.0 cases ["A", "B"] values [0.0, 1.0]
  easyml.state @x kind <diff> method <fe>
  easyml.init {
    %c = arith.constant 0.5 : f64
    easyml.init_value @x, %c : f64
  }
  easyml.compute {
    %v = easyml.get @V : f64
    %g3 = easyml.get @g3 : f64
    %x = easyml.get @x : f64
    %i = arith.mulf %g3, %v : f64
    easyml.output @Iion, %i : f64
    easyml.diff @x, %x : f64
  }
}
