// Bad options of the registered pipelines, and of the pass that serialises
// GPU modules, are reported when the pipeline is parsed: every problem at
// once, naming the option, and no pass runs (no IR is dumped).

// RUN: not easyml-opt %s --easyml-compile-pipeline="variants=bogus,cuda vector-width=100 vector-isa=neon vector-math=svml cvode-atol=nan cvode-max-substeps=0 cuda-chips=sm_12x,sm_90,sm_100 rocm-chips=gfx9421,gfx90a gpu-format=elf" 2>&1 | FileCheck %s --check-prefix=COMPILE
// COMPILE: error: bad options of easyml-compile-pipeline:
// COMPILE-NEXT: variants: unknown variant 'bogus' (baseline, cpu-simd, cuda, rocm)
// COMPILE-NEXT: vector-width must be between 1 and 64, got 100
// COMPILE-NEXT: vector-isa: unknown 'neon' (avx512, avx2, sse2 or none)
// COMPILE-NEXT: vector-math: unknown 'svml' (libmvec or scalar)
// COMPILE-NEXT: cvode-atol must be a positive number, got nan
// COMPILE-NEXT: cvode-max-substeps must be at least 1, got 0
// A chip LLVM knows, or any sm_<number> (ptxas decides), is accepted.
// COMPILE-NEXT: cuda-chips: unknown cuda chip 'sm_12x'; expected sm_<number> with an optional 'a' or 'f' (sm_80, sm_90a)
// COMPILE-NEXT: gpu-format: unknown code object format 'elf' (fatbin, bin, isa or llvm)
// COMPILE-NEXT: rocm-chips: unknown rocm chip 'gfx9421' (did you mean 'gfx941' or 'gfx942'?); LLVM 19 lists the chips it knows with: llc -march=amdgcn -mcpu=help
// COMPILE-NOT: see current operation
// COMPILE-NOT: easyml.model

// RUN: not easyml-opt %s --easyml-prepare="cvode-rtol=0" 2>&1 | FileCheck %s --check-prefix=PREPARE
// PREPARE: error: bad options of easyml-prepare:
// PREPARE-NEXT: cvode-rtol must be a positive number, got 0

// RUN: not easyml-opt %s --easyml-gpu-to-binary="target=metal" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: bad options of easyml-gpu-to-binary:
// TARGET-NEXT: target: unknown 'metal' (cuda or rocm)

// RUN: not easyml-opt %s --easyml-gpu-to-binary="target=rocm chips=sm_90 format=cubin O=4" 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: error: bad options of easyml-gpu-to-binary:
// GPU-NEXT: chips: unknown rocm chip 'sm_90'
// GPU-NEXT: format: unknown code object format 'cubin' (fatbin, bin, isa or llvm)
// GPU-NEXT: O must be 0 to 3, got 4

// RUN: not easyml-opt %s --easyml-gpu-modules-to-binary="cuda-chips=sm_1x rocm-chips=gfx90a,gfx1200,gfx9000 format=elf" 2>&1 | FileCheck %s --check-prefix=SERIALIZE
// SERIALIZE: error: bad options of easyml-gpu-modules-to-binary:
// SERIALIZE-NEXT: cuda-chips: unknown cuda chip 'sm_1x'
// SERIALIZE-NEXT: format: unknown code object format 'elf'
// SERIALIZE-NEXT: rocm-chips: unknown rocm chip 'gfx9000' (did you mean 'gfx900'?)

// Good options leave the IR to the pipeline.
// RUN: easyml-opt %s --easyml-prepare="cvode-rtol=1e-5 cvode-jacobian-age=3" | FileCheck %s --check-prefix=GOOD
// GOOD: easyml.model @m attributes {easyml.integrators_expanded

easyml.model @m {
  easyml.state @x kind <diff> method <fe>
  easyml.init {
    %0 = arith.constant 1.0 : f64
    easyml.init_value @x, %0 : f64
  }
  easyml.compute {
    %x = easyml.get @x : f64
    %r = arith.negf %x : f64
    easyml.diff @x, %r : f64
  }
}
