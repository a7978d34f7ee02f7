// RUN: easyml-opt %s --split-input-file --verify-diagnostics

// expected-error @below {{variant 'cpu-simd' has width 0 (expected 1 to 64)}}
module attributes {test.v = #easyml.variant<"cpu-simd", width = 0, soa>} {
}

// -----

// expected-error @below {{variant 'cuda' computes one cell at a time, not 4}}
module attributes {test.v = #easyml.variant<cuda, width = 4, soa>} {
}

// -----

// expected-error @below {{variant 'baseline' keeps its cells in aos layout, not soa}}
module attributes {test.v = #easyml.variant<baseline, width = 1, soa>} {
}

// -----

// expected-error @below {{variant 'rocm' keeps its cells in soa layout, not aos}}
module attributes {test.v = #easyml.variant<rocm, width = 1, aos>} {
}

// -----

// expected-error @below {{unknown variant 'opencl' (expected baseline, "cpu-simd", cuda or rocm)}}
module attributes {test.v = #easyml.variant<opencl, width = 1, soa>} {
}

// -----

// expected-error @below {{unknown cell layout 'rows' (expected aos or soa)}}
module attributes {test.v = #easyml.variant<cuda, width = 1, rows>} {
}
