// RUN: easyml-opt %s --pass-pipeline='builtin.module(gpu.module(easyml-keep-invariants-in-loops))' | FileCheck %s

// Back edges of a GPU kernel's loops (a branch to a block that dominates
// it) ask LLVM not to hoist invariants out of the loop; other branches are
// left alone.
// CHECK: #[[$LICM:.*]] = #llvm.loop_licm<disable = true>
// CHECK: #[[$NOLICM:.*]] = #llvm.loop_annotation<licm = #[[$LICM]]>
// CHECK-LABEL: gpu.func @k(
// CHECK: cf.br ^[[HEAD:bb[0-9]+]](%{{.*}} : i64){{$}}
// CHECK: ^[[HEAD]](%{{.*}}: i64):
// CHECK: cf.cond_br
// CHECK: cf.br ^[[HEAD]](%{{.*}} : i64) {loop_annotation = #[[$NOLICM]]}
// CHECK: cf.br ^{{bb[0-9]+}}{{$}}
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%n: i64, %x: f64, %p: !llvm.ptr<1>) kernel {
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      cf.br ^head(%c0 : i64)
    ^head(%i: i64):
      %go = arith.cmpi slt, %i, %n : i64
      cf.cond_br %go, ^body, ^exit
    ^body:
      %y = arith.mulf %x, %x : f64
      llvm.store %y, %p : f64, !llvm.ptr<1>
      %next = arith.addi %i, %c1 : i64
      cf.br ^head(%next : i64)
    ^exit:
      cf.br ^done
    ^done:
      gpu.return
    }
  }
}
