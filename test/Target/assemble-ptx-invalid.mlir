// RUN: easyml-opt %s --verify-diagnostics --easyml-assemble-ptx=format=bin
// RUN: not easyml-opt %s --easyml-assemble-ptx="cuda-path=%t/none" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not easyml-opt %s --easyml-assemble-ptx=format=cubin 2>&1 | FileCheck %s --check-prefix=FORMAT
// REQUIRES: cuda-toolkit

// What ptxas rejects is reported on the binary, with the chip and ptxas's
// own message; a missing toolkit or an unknown format is an error too.
// TOOLKIT: error: the cuda variant needs the CUDA toolkit (bin/ptxas, nvvm/libdevice/libdevice.10.bc); not found in '{{.*}}none'
// FORMAT: error: easyml-assemble-ptx: unknown format 'cubin' (fatbin, bin or isa)

// expected-error @below {{'bad' for sm_90: ptxas failed: ptxas}}
gpu.binary @bad [
  #gpu.object<#nvvm.target<chip = "sm_90">, assembly = ".version 7.8\0A.target sm_90\0A.address_size 64\0A.visible .entry k()\0A{\0A\09not_an_instruction;\0A}\0A">
]
