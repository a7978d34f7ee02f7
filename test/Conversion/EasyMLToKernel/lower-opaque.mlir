// RUN: easyml-opt %s --easyml-lower-opaque | FileCheck %s --check-prefix=HOST
// RUN: easyml-opt %s --easyml-lower-opaque=target=cuda | FileCheck %s --check-prefix=CUDA
// RUN: easyml-opt %s --easyml-lower-opaque=target=rocm | FileCheck %s --check-prefix=ROCM
// RUN: not easyml-opt %s --easyml-lower-opaque=target=x86 2>&1 | FileCheck %s --check-prefix=BAD

// An empty statement whose result is tied to its operand, in a register of
// the target's: no instruction, but the optimisers cannot tell that the
// result is the operand.
// HOST-LABEL: func.func @f(
// HOST-SAME: %[[X:.*]]: i64
// HOST: %[[Y:.*]] = llvm.inline_asm has_side_effects "", "=r,0" %[[X]] : (i64) -> i64
// HOST: arith.muli %[[Y]], %[[X]]
// HOST-NOT: easyml.opaque
// CUDA: llvm.inline_asm has_side_effects "", "=l,0" %{{.*}} : (i64) -> i64
// ROCM: llvm.inline_asm has_side_effects "", "=v,0" %{{.*}} : (i64) -> i64
// BAD: unknown target 'x86' (expected host, cuda or rocm)
func.func @f(%x: i64) -> i64 {
  %y = easyml.opaque %x : i64
  %z = arith.muli %y, %x : i64
  return %z : i64
}
