// RUN: easyml-opt %s --easyml-serialize-gpu-modules=format=isa | FileCheck %s --check-prefix=OFF
// RUN: easyml-opt %s --easyml-serialize-gpu-modules="format=isa machine-sink=true" | FileCheck %s --check-prefix=ON

// gpu-module-to-binary with LLVM's MachineSink off for NVVM targets. The
// kernel has the shape of a fused step loop around a stiff group's
// sub-step loop: %next, the state's new value, is computed before the
// sub-steps and only carried to the next step. MachineSink would move its
// product %vv below the sub-step loop (into the latch, where the step
// loop's phi is copied), keeping %v live through the loop in its place.

// OFF-LABEL: gpu.binary @k
// The latch (laid out first) adds up two products, one made in the step:
// OFF-SAME: $L__BB0_7:\0A\09mul.rn.f64 {{[^;]*}};\0A\09add.rn.f64
// at the top of the step, before the sub-steps.
// OFF-SAME: $L__BB0_1:\0A\09mul.rn.f64

// ON-LABEL: gpu.binary @k
// Both products in the latch, none in the step.
// ON-SAME: $L__BB0_7:\0A\09mul.rn.f64 {{[^;]*}};\0A\09mul.rn.f64 {{[^;]*}};\0A\09add.rn.f64
// ON-SAME: $L__BB0_1:\0A\09mov.f64

module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90">] {
    llvm.func @k(%p: !llvm.ptr<1>, %n: i32, %m: i32) attributes {nvvm.kernel} {
      %c0 = llvm.mlir.constant(0 : i32) : i32
      %c1 = llvm.mlir.constant(1 : i32) : i32
      %q = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f64
      %x = llvm.load %p : !llvm.ptr<1> -> f64
      %y = llvm.load %q : !llvm.ptr<1> -> f64
      llvm.br ^step(%c0, %x : i32, f64)
    ^step(%s: i32, %v: f64):
      %vy = llvm.fmul %v, %y : f64
      %vv = llvm.fmul %v, %v : f64
      %next = llvm.fadd %vy, %vv : f64
      llvm.br ^sub(%c0, %y : i32, f64)
    ^sub(%i: i32, %acc: f64):
      %acc1 = llvm.fdiv %acc, %y : f64
      %i1 = llvm.add %i, %c1 : i32
      %more = llvm.icmp "slt" %i1, %n : i32
      llvm.cond_br %more, ^sub(%i1, %acc1 : i32, f64), ^latch
    ^latch:
      llvm.store %acc1, %q : f64, !llvm.ptr<1>
      %s1 = llvm.add %s, %c1 : i32
      %again = llvm.icmp "slt" %s1, %m : i32
      llvm.cond_br %again, ^step(%s1, %next : i32, f64), ^done
    ^done:
      llvm.store %next, %p : f64, !llvm.ptr<1>
      llvm.return
    }
  }
}
