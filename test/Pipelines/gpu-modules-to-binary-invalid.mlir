// RUN: easyml-opt %s --split-input-file --verify-diagnostics --easyml-gpu-modules-to-binary

// A gpu.module not made by easyml-lower-to-kernels names no variant; every
// such module is reported before anything is compiled.
module attributes {gpu.container_module} {
  // expected-error @below {{gpu.module 'k' has no GPU variant (easyml.variant = #easyml.variant<cuda, ...> or <rocm, ...>)}}
  gpu.module @k {
  }
  // expected-error @below {{gpu.module 'l' has no GPU variant}}
  gpu.module @l attributes {easyml.variant = #easyml.variant<"cpu-simd", width = 8, soa>} {
  }
  // A name instead of the typed attribute is not a variant either.
  // expected-error @below {{gpu.module 'm' has no GPU variant}}
  gpu.module @m attributes {easyml.variant = "cuda"} {
  }
}

// -----

// Without gpu.modules the pass changes nothing.
// CHECK-NOT: gpu.binary
module {
  llvm.func @f() {
    llvm.return
  }
}
