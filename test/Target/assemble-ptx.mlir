// RUN: easyml-opt %s --easyml-assemble-ptx=format=isa | FileCheck %s --check-prefix=ISA
// RUN: easyml-opt %s --easyml-assemble-ptx="format=isa smem-spilling=false" | FileCheck %s --check-prefix=PLAIN
// RUN: easyml-opt %s --easyml-assemble-ptx=format=bin | FileCheck %s --check-prefix=BIN
// RUN: easyml-opt %s --easyml-assemble-ptx | FileCheck %s --check-prefix=FATBIN
// REQUIRES: cuda-toolkit

// The PTX that gpu-module-to-binary writes for the cuda variant, assembled
// by the toolkit's ptxas. Every kernel gets shared-memory spilling (PTX ISA
// 8.7); objects that are not PTX are left as they are.

// ISA-LABEL: gpu.binary @k
// ISA-SAME: #gpu.object<#nvvm.target<chip = "sm_90">, assembly = "{{.*}}.version 8.7\0A{{.*}}.maxntid 128, 1, 1\0A{\0A\09.pragma \22enable_smem_spilling\22;\0A\09ret;
// ISA-SAME: #gpu.object<#rocdl.target<chip = "gfx90a">, bin = "not touched">
// PLAIN-LABEL: gpu.binary @k
// PLAIN-SAME: assembly = "{{.*}}.version 7.8\0A
// PLAIN-NOT: enable_smem_spilling
// BIN-LABEL: gpu.binary @k
// BIN-SAME: #gpu.object<#nvvm.target<chip = "sm_90">, bin = "\7FELF
// BIN-SAME: #gpu.object<#rocdl.target<chip = "gfx90a">, bin = "not touched">
// FATBIN-LABEL: gpu.binary @k
// A fatbin begins with its magic number, 0xBA55ED50 little-endian.
// FATBIN-SAME: #gpu.object<#nvvm.target<chip = "sm_90">, "P\EDU\BA
gpu.binary @k [
  #gpu.object<#nvvm.target<chip = "sm_90">, assembly = ".version 7.8\0A.target sm_90\0A.address_size 64\0A\0A.visible .entry k()\0A.maxntid 128, 1, 1\0A{\0A\09ret;\0A}\0A">,
  #gpu.object<#rocdl.target<chip = "gfx90a">, bin = "not touched">
]

