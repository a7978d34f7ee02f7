// RUN: easyml-opt %s --easyml-convert-math-to-veclib | FileCheck %s
// RUN: easyml-opt %s --easyml-convert-math-to-veclib="isa=avx2" | FileCheck %s --check-prefix=AVX2
// RUN: easyml-opt %s --easyml-convert-math-to-veclib="library=scalar" | FileCheck %s --check-prefix=SCALAR
// RUN: not easyml-opt %s --easyml-convert-math-to-veclib="isa=neon" 2>&1 | FileCheck %s --check-prefix=BADISA
// RUN: not easyml-opt %s --easyml-convert-math-to-veclib="library=svml" 2>&1 | FileCheck %s --check-prefix=BADLIB

// Library functions are pure: no memory effects, no unwinding, always return.
// CHECK-DAG: llvm.func @_ZGVeN8v_exp(vector<8xf64>) -> vector<8xf64> attributes {memory = #llvm.memory_effects<other = none, argMem = none, inaccessibleMem = none>, no_unwind, will_return}
// CHECK-DAG: llvm.func @_ZGVeN8v_expm1(vector<8xf64>) -> vector<8xf64> attributes {memory = #llvm.memory_effects<other = none, argMem = none, inaccessibleMem = none>, no_unwind, will_return}
// CHECK-DAG: llvm.func @_ZGVeN8vv_pow(vector<8xf64>, vector<8xf64>) -> vector<8xf64> attributes {memory = #llvm.memory_effects<other = none, argMem = none, inaccessibleMem = none>, no_unwind, will_return}
// CHECK-LABEL: func.func @kernel
// CHECK: llvm.call @_ZGVeN8v_exp(
// CHECK: llvm.call @_ZGVeN8v_expm1(
// CHECK: llvm.call @_ZGVeN8vv_pow(
// CHECK: llvm.intr.sqrt
// CHECK: llvm.intr.fabs
// Scalars are left to convert-math-to-libm.
// CHECK: math.exp %{{.*}} : f64
// An odd width has no library flavour: one scalar operation per lane.
// CHECK-COUNT-3: math.log %{{.*}} : f64

// AVX2 flavours take 4 lanes: an 8-lane vector is split in two.
// AVX2-LABEL: func.func @kernel
// AVX2: vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [4], strides = [1]}
// AVX2: llvm.call @_ZGVdN4v_exp(
// AVX2: vector.extract_strided_slice %{{.*}} {offsets = [4], sizes = [4], strides = [1]}
// AVX2: llvm.call @_ZGVdN4v_exp(

// SCALAR-NOT: _ZGV
// SCALAR-COUNT-8: math.exp %{{.*}} : f64

// BADISA: unknown isa 'neon' (expected avx512, avx2, sse2 or none)
// BADLIB: unknown vector math library 'svml' (expected libmvec or scalar)

func.func @kernel(%x: vector<8xf64>, %y: vector<8xf64>, %s: f64,
                  %z: vector<3xf64>) -> (vector<8xf64>, vector<8xf64>,
                                         vector<8xf64>, vector<8xf64>,
                                         vector<8xf64>, f64, vector<3xf64>) {
  %0 = math.exp %x : vector<8xf64>
  %1 = math.expm1 %x : vector<8xf64>
  %2 = math.powf %x, %y : vector<8xf64>
  %3 = math.sqrt %x : vector<8xf64>
  %4 = math.absf %x : vector<8xf64>
  %5 = math.exp %s : f64
  %6 = math.log %z : vector<3xf64>
  return %0, %1, %2, %3, %4, %5, %6 : vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, vector<8xf64>, f64, vector<3xf64>
}
