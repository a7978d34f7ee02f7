// RUN: easyml-opt %s | FileCheck %s
// RUN: easyml-opt %s | easyml-opt | FileCheck %s
// RUN: easyml-opt %s --mlir-print-op-generic | easyml-opt | FileCheck %s

// What a variant's kernels are generated for, as one typed attribute.
// CHECK: module attributes {test.variants = [#easyml.variant<baseline, width = 1, aos>, #easyml.variant<"cpu-simd", width = 8, soa>, #easyml.variant<"cpu-simd", width = 1, soa>, #easyml.variant<cuda, width = 1, soa>, #easyml.variant<rocm, width = 1, soa>]}
module attributes {test.variants = [
    #easyml.variant<baseline, width = 1, aos>,
    #easyml.variant<"cpu-simd", width = 8, soa>,
    #easyml.variant<"cpu-simd", width = 1, soa>,
    #easyml.variant<cuda, width = 1, soa>,
    #easyml.variant<rocm, width = 1, soa>]} {
}
