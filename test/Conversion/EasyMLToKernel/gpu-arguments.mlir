// RUN: easyml-opt %s --split-input-file --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators),easyml-lower-to-kernels{variants=cuda})' | FileCheck %s
// RUN: easyml-opt %s --split-input-file --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators),easyml-lower-to-kernels{variants=cuda per-cell-params=gk})' | FileCheck %s --check-prefix=ROW
// RUN: easyml-opt %s --split-input-file --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators),easyml-lower-to-kernels{variants=baseline,cuda})' | FileCheck %s --check-prefix=CPU
// RUN: easyml-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators),easyml-lower-to-kernels{variants=cuda per-cell-params=gk,nope})'

// ABI 4: a GPU kernel takes the kernel arguments by value (a struct of
// 8-byte fields in easyml_kernel_args order), then the parameters and flags
// by value: the launch's parameter space, read as constant-bank operands.
// CHECK-LABEL: gpu.func @easyml_m_cuda_compute(
// CHECK-SAME: %[[ARGS:[a-z0-9]+]]: !llvm.struct<(i64, i64, i64, i64, f64, f64, i64, i64, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64, i64, i64, i64, ptr, i64)>,
// CHECK-SAME: %[[PARAMS:[a-z0-9]+]]: !llvm.array<3 x f64>) kernel
// Fields are members of the struct, not loads: dt is field 4.
// CHECK-DAG: llvm.extractvalue %[[ARGS]][4]
// Parameters are members of the array (gk is params[1], the flag params[2]).
// CHECK-DAG: %[[GK:.*]] = llvm.extractvalue %[[PARAMS]][1] : !llvm.array<3 x f64>
// Without --per-cell-params no parameter row is read: the per-cell parameter
// table (field 14) is not even looked at.
// CHECK-NOT: llvm.extractvalue %[[ARGS]][14]
// CHECK: scf.for
// CHECK: arith.mulf %[[GK]],
// The biomarker rows are addressed inside their branch, from an opaque
// copy of the stride, so their addresses are not hoisted out of the loop.
// CHECK: %[[BIO:.*]] = llvm.extractvalue %[[ARGS]][25]
// CHECK: scf.if
// CHECK-NEXT: %[[ROWSTRIDE:.*]] = llvm.extractvalue %[[ARGS]][7]
// CHECK-NEXT: easyml.opaque %[[ROWSTRIDE]] : i64
// After the step loop the cell's rows are addressed from opaque copies of
// the cell and the stride: recomputed there, not held through the loop.
// CHECK: %[[CELL2:.*]] = easyml.opaque %{{.*}} : i64
// CHECK-NEXT: %[[STRIDE2:.*]] = easyml.opaque %{{.*}} : i64
// CHECK: arith.muli %{{.*}}, %[[STRIDE2]] : i64
// CHECK-NEXT: arith.addi %{{.*}}, %[[CELL2]] : i64
// CHECK-LABEL: gpu.func @easyml_m_cuda_eval(
// CHECK-SAME: !llvm.array<3 x f64>) kernel

// With per-cell-params=gk, gk's row is read once per cell (when the table
// and its row are given, else the shared value), the others stay shared.
// ROW-LABEL: gpu.func @easyml_m_cuda_compute(
// ROW: llvm.extractvalue %{{.*}}[14]
// ROW: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// ROW: %[[ROWS:.*]]:3 = scf.if
// ROW: %[[ROW:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> !llvm.ptr
// ROW: scf.yield %[[NULL]], %[[ROW]], %[[NULL]]
// ROW: scf.parallel
// ROW: %[[HAS:.*]] = llvm.icmp "ne" %[[ROWS]]#1
// ROW: %[[VALUE:.*]] = scf.if %[[HAS]] -> (f64)
// ROW: scf.for
// ROW: arith.mulf %[[VALUE]],

// CPU variants read a row for any parameter, as before.
// CPU-LABEL: func.func @easyml_m_baseline_compute(%{{.*}}: !llvm.ptr)
// CPU: scf.yield %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr, !llvm.ptr, !llvm.ptr
// CPU-LABEL: gpu.func @easyml_m_cuda_compute(

// expected-error@+1 {{per-cell-params: model 'm' has no parameter or flag 'nope'}}
easyml.model @m {
  easyml.external @V as "Vm" access <read>
  easyml.external @Iion as "Iion" access <write>
  easyml.param @g = 2.0
  easyml.param @gk = 0.5
  easyml.flag @mode = 0.0 cases ["A", "B"] values [0.0, 1.0]
  easyml.state @x kind <diff> method <fe>
  easyml.init {
    %c = arith.constant 0.5 : f64
    easyml.init_value @x, %c : f64
  }
  easyml.compute {
    %v = easyml.get @V : f64
    %g = easyml.get @g : f64
    %gk = easyml.get @gk : f64
    %mode = easyml.get @mode : f64
    %x = easyml.get @x : f64
    %e = math.exp %v : f64
    %f = arith.mulf %gk, %x : f64
    %h = arith.addf %f, %mode : f64
    %i = arith.mulf %g, %x : f64
    easyml.output @Iion, %i : f64
    easyml.diff @x, %h : f64
  }
}
