// RUN: easyml-opt %s --split-input-file --verify-diagnostics --easyml-copy-gpu-kernels-to-host | FileCheck %s

// Each kernel gets a host copy, <kernel>_host(args pointer, params
// pointer): the by-value arguments loaded from the pointers, then the
// kernel's own body, its cell loop left for the host to run in order. The
// kernels stay as they are; non-kernel functions get no copy.
// CHECK-LABEL: gpu.module @easyml_m_cuda_kernels
// CHECK: gpu.func @easyml_m_cuda_compute(
// CHECK: gpu.func @helper(
// CHECK-LABEL: func.func @easyml_m_cuda_compute_host(
// CHECK-SAME: %[[A:.*]]: !llvm.ptr, %[[P:.*]]: !llvm.ptr) {
// CHECK-NEXT: %[[ARGS:.*]] = llvm.load %[[A]] : !llvm.ptr -> !llvm.struct<(i64, i64, ptr)>
// CHECK-NEXT: %[[PARAMS:.*]] = llvm.load %[[P]] : !llvm.ptr -> !llvm.array<2 x f64>
// CHECK-NEXT: %[[G:.*]] = llvm.extractvalue %[[PARAMS]][1]
// CHECK-NEXT: %[[BEGIN:.*]] = llvm.extractvalue %[[ARGS]][0]
// CHECK: scf.parallel
// CHECK: arith.mulf %{{.*}}, %[[G]] : f64
// CHECK: } {easyml.cells}
// CHECK-NEXT: return
// CHECK-NOT: func.func @helper_host
// A kernel taking no parameters by value: the second pointer is unused.
// CHECK-LABEL: func.func @easyml_m_cuda_init_host(
// CHECK-SAME: %[[A2:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr) {
// CHECK-NEXT: llvm.load %[[A2]] : !llvm.ptr -> !llvm.struct<(i64, i64, ptr)>
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  gpu.module @easyml_m_cuda_kernels {
    gpu.func @easyml_m_cuda_compute(%args: !llvm.struct<(i64, i64, ptr)>, %params: !llvm.array<2 x f64>) kernel {
      %g = llvm.extractvalue %params[1] : !llvm.array<2 x f64>
      %begin = llvm.extractvalue %args[0] : !llvm.struct<(i64, i64, ptr)>
      %end = llvm.extractvalue %args[1] : !llvm.struct<(i64, i64, ptr)>
      %raw = llvm.extractvalue %args[2] : !llvm.struct<(i64, i64, ptr)>
      %sv = llvm.addrspacecast %raw : !llvm.ptr to !llvm.ptr<1>
      %lb = arith.index_cast %begin : i64 to index
      %ub = arith.index_cast %end : i64 to index
      %c1 = arith.constant 1 : index
      scf.parallel (%i) = (%lb) to (%ub) step (%c1) {
        %c = arith.index_cast %i : index to i64
        %q = llvm.getelementptr %sv[%c] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f64
        %x = llvm.load %q : !llvm.ptr<1> -> f64
        %y = arith.mulf %x, %g : f64
        llvm.store %y, %q : f64, !llvm.ptr<1>
        scf.reduce
      } {easyml.cells}
      gpu.return
    }
    gpu.func @helper(%x: f64) {
      gpu.return
    }
    gpu.func @easyml_m_cuda_init(%args: !llvm.struct<(i64, i64, ptr)>) kernel {
      gpu.return
    }
  }
}

// -----

// A kernel already mapped to threads cannot run on the host.
module attributes {gpu.container_module} {
  gpu.module @easyml_m_cuda_kernels {
    // expected-error@+1 {{kernel 'easyml_m_cuda_init' uses GPU operations: copy it to the host before easyml-map-cells-to-gpu-threads}}
    gpu.func @easyml_m_cuda_init(%args: !llvm.struct<(i64, i64, ptr)>) kernel {
      %t = gpu.thread_id x
      gpu.return
    }
  }
}
