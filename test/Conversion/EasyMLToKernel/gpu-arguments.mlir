// RUN: easyml-opt %s --split-input-file --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators),easyml-lower-to-kernels{variants=cuda},easyml-lower-recording,easyml-lower-biomarkers)' | FileCheck %s
// RUN: easyml-opt %s --split-input-file --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators),easyml-lower-to-kernels{variants=cuda per-cell-params=gk},easyml-lower-recording,easyml-lower-biomarkers)' | FileCheck %s --check-prefix=ROW
// RUN: easyml-opt %s --split-input-file --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators),easyml-lower-to-kernels{variants=baseline,cuda},easyml-lower-recording,easyml-lower-biomarkers)' | FileCheck %s --check-prefix=CPU
// RUN: easyml-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators),easyml-lower-to-kernels{variants=cuda per-cell-params=gk,nope})'

// ABI 4: a GPU kernel takes the kernel arguments by value (a struct of
// 8-byte fields in easyml_kernel_args order), then the parameters and flags
// and the model's derived values by value: the launch's parameter space,
// read as constant-bank operands.
// CHECK-LABEL: gpu.func @easyml_m_cuda_compute(
// CHECK-SAME: %[[ARGS:[a-z0-9]+]]: !llvm.struct<(i64, i64, i64, i64, f64, f64, i64, i64, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, i64, i64, i64, i64, i64, i64, i64, i64, ptr, i64, i64, ptr)>,
// CHECK-SAME: %[[PARAMS:[a-z0-9]+]]: !llvm.array<5 x f64>) kernel
// Fields are members of the struct, not loads: dt is field 4.
// CHECK-DAG: llvm.extractvalue %[[ARGS]][4]
// Parameters are members of the array (the flag is params[2]), then the
// derived values in order: sqrt(gk) [3] and g*g [4].
// CHECK-DAG: %[[MODE:.*]] = llvm.extractvalue %[[PARAMS]][2] : !llvm.array<5 x f64>
// CHECK-DAG: %[[SQRTGK:.*]] = llvm.extractvalue %[[PARAMS]][3] : !llvm.array<5 x f64>
// CHECK-DAG: %[[GG:.*]] = llvm.extractvalue %[[PARAMS]][4] : !llvm.array<5 x f64>
// Without --per-cell-params no parameter row is read: the per-cell parameter
// table (field 14) is not even looked at.
// CHECK-NOT: llvm.extractvalue %[[ARGS]][14]
// The cell's rows are a memref view of the state vector (global memory):
// [row][cell] with the stride as the leading stride.
// CHECK: %[[SV:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?x?xf64, strided<[?, 1]>, 1>
// CHECK: memref.load %[[SV]][%{{.*}}, %{{.*}}] : memref<?x?xf64, strided<[?, 1]>, 1>
// CHECK: scf.for
// The derived values are operands, not computations.
// CHECK-NOT: math.sqrt
// CHECK: arith.mulf %[[SQRTGK]],
// CHECK: arith.addf %{{.*}}, %[[MODE]]
// CHECK: arith.mulf %[[GG]],
// The biomarker rows are addressed inside their branch, from an opaque
// copy of the stride, so their addresses are not hoisted out of the loop.
// CHECK: %[[BIO:.*]] = llvm.extractvalue %[[ARGS]][25]
// CHECK: scf.if
// CHECK-NEXT: %[[ROWSTRIDE:.*]] = llvm.extractvalue %[[ARGS]][7]
// CHECK-NEXT: easyml.opaque %[[ROWSTRIDE]] : i64
// After the step loop the cell's rows are addressed from opaque copies of
// the cell and the stride, through a view rebuilt from them: recomputed
// there, not held through the loop.
// CHECK: %[[CELL2:.*]] = easyml.opaque %{{.*}} : i64
// CHECK-NEXT: %[[STRIDE2:.*]] = easyml.opaque %{{.*}} : i64
// CHECK: llvm.insertvalue %[[STRIDE2]], %{{.*}}[4, 0]
// CHECK: %[[SV2:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?x?xf64, strided<[?, 1]>, 1>
// CHECK: %[[CELLIX:.*]] = arith.index_cast %[[CELL2]] : i64 to index
// CHECK-NEXT: memref.store %{{.*}}, %[[SV2]][%{{.*}}, %[[CELLIX]]]
// CHECK-LABEL: gpu.func @easyml_m_cuda_eval(
// CHECK-SAME: !llvm.array<5 x f64>) kernel
// The host computes the derived values (a baseline-named host function
// when only GPU variants are built), in the kernels' order.
// CHECK-LABEL: func.func @easyml_m_baseline_derived(
// CHECK: %[[S:.*]] = math.sqrt
// CHECK-NEXT: %[[P:.*]] = arith.mulf
// CHECK-NEXT: %[[AT0:.*]] = llvm.getelementptr %{{.*}}[0]
// CHECK-NEXT: llvm.store %[[S]], %[[AT0]]
// CHECK-NEXT: %[[AT1:.*]] = llvm.getelementptr %{{.*}}[1]
// CHECK-NEXT: llvm.store %[[P]], %[[AT1]]

// With per-cell-params=gk, gk's row is read once per cell (when the table
// and its row are given, else the shared value), the others stay shared;
// a derived value of gk is computed per cell, the others still passed.
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
// ROW: %[[ROOT:.*]] = math.sqrt %[[VALUE]] : f64
// ROW: arith.mulf %[[ROOT]],

// CPU variants read a row for any parameter, as before, and compute the
// derived values themselves.
// CPU-LABEL: func.func @easyml_m_baseline_derived(
// CPU-LABEL: func.func @easyml_m_baseline_compute(%{{.*}}: !llvm.ptr)
// CPU: scf.yield %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr, !llvm.ptr, !llvm.ptr
// CPU: math.sqrt
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
    %sqrtgk = math.sqrt %gk : f64
    %f = arith.mulf %sqrtgk, %x : f64
    %h = arith.addf %f, %mode : f64
    %gg = arith.mulf %g, %g : f64
    %i = arith.mulf %gg, %x : f64
    easyml.output @Iion, %i : f64
    easyml.diff @x, %h : f64
  }
}
