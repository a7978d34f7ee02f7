//===- Occupancy.h - Theoretical occupancy of a GPU kernel ------*- C++ -*-===//
//
// How many warps (NVIDIA) or wavefronts (AMD) of a kernel can be resident at
// once, as a fraction of the most the multiprocessor holds, from the
// kernel's registers and block size: the figure Nsight Compute calls
// theoretical occupancy. Header-only and free of LLVM, so that both the
// compiler (which chooses the block size) and the runtime (which reports
// it) use the same rule.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_OCCUPANCY_H
#define EASYML_RUNTIME_OCCUPANCY_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace easyml::rt {

/// A multiprocessor's limits for one chip.
struct GpuChipLimits {
  bool known = false;
  bool amd = false;
  int64_t warpSize = 32;
  /// NVIDIA: per SM. AMD: per SIMD (a CU has 4).
  int64_t registers = 65536;  // NVIDIA: 32-bit registers; AMD: VGPRs/lane
  int64_t maxWarps = 64;      // resident warps (waves)
  int64_t maxBlocks = 32;     // resident blocks (NVIDIA)
  int64_t registerUnit = 256; // allocation granule (per warp / per lane)
  /// NVIDIA: shared memory per SM that blocks can use, bytes, and what the
  /// system reserves per resident block.
  int64_t sharedMemory = 228 * 1024;
  int64_t sharedReserved = 1024;
};

/// Limits of "sm_XY" (Volta to Blackwell) and of the CDNA chips gfx908,
/// gfx90a, gfx940-942, gfx950; unknown chips are `known == false`.
inline GpuChipLimits gpuChipLimits(const char *chip) {
  GpuChipLimits l;
  if (!chip)
    return l;
  if (std::strncmp(chip, "sm_", 3) == 0) {
    int sm = std::atoi(chip + 3);
    l.known = sm >= 70;
    switch (sm) {
    case 70:
    case 72:
      l.sharedMemory = 96 * 1024, l.sharedReserved = 0;
      break;
    case 75:
      l.maxWarps = 32, l.maxBlocks = 16;
      l.sharedMemory = 64 * 1024, l.sharedReserved = 0;
      break;
    case 80:
      l.sharedMemory = 164 * 1024;
      break;
    case 86:
    case 87:
      l.maxWarps = 48, l.maxBlocks = 16;
      l.sharedMemory = 100 * 1024;
      break;
    case 89:
    case 120:
    case 121:
      l.maxWarps = 48, l.maxBlocks = 24;
      l.sharedMemory = 100 * 1024;
      break;
    default: // 90, 100, 103
      break;
    }
    return l;
  }
  static const char *const cdna[] = {"gfx908", "gfx90a", "gfx940",
                                     "gfx941", "gfx942", "gfx950"};
  for (const char *c : cdna)
    if (std::strcmp(chip, c) == 0) {
      l.known = l.amd = true;
      l.warpSize = 64;
      // gfx908 has 256 architectural VGPRs (accumulation registers apart);
      // later CDNA chips a unified file of 512.
      l.registers = std::strcmp(chip, "gfx908") == 0 ? 256 : 512;
      l.registerUnit = 8;
      l.maxWarps = 8;
      return l;
    }
  return l;
}

/// Theoretical occupancy in [0, 1] of a kernel using `registers` per thread
/// (AMD: vector registers per lane) and `sharedBytes` of static shared
/// memory per block (NVIDIA: where ptxas spilled registers, see
/// easyml-assemble-ptx) launched in blocks of `block` threads; 0 for an
/// unknown chip or a kernel that does not fit. On CDNA the scalar
/// registers (800 per SIMD, at most 102 per wave) would bind only below 64
/// VGPRs, at 7 of 8 waves, and are left out.
inline double gpuOccupancy(const char *chip, int64_t registers, int64_t block,
                           int64_t sharedBytes = 0) {
  GpuChipLimits l = gpuChipLimits(chip);
  if (!l.known || registers <= 0 || block <= 0)
    return 0;
  int64_t warpsPerBlock = (block + l.warpSize - 1) / l.warpSize;
  auto roundUp = [](int64_t v, int64_t unit) {
    return (v + unit - 1) / unit * unit;
  };
  if (!l.amd) {
    int64_t perWarp = roundUp(registers * l.warpSize, l.registerUnit);
    int64_t warps = l.registers / perWarp;
    int64_t blocks = std::min(
        {warps / warpsPerBlock, l.maxBlocks, l.maxWarps / warpsPerBlock});
    if (sharedBytes > 0)
      blocks =
          std::min(blocks, l.sharedMemory / (sharedBytes + l.sharedReserved));
    return double(blocks * warpsPerBlock) / double(l.maxWarps);
  }
  // AMD: waves per SIMD from the VGPRs; a block's waves spread over the
  // CU's 4 SIMDs and must all be resident.
  int64_t waves =
      std::min(l.maxWarps, l.registers / roundUp(registers, l.registerUnit));
  int64_t perCu = 4 * waves;
  int64_t blocks = perCu / warpsPerBlock;
  return double(blocks * warpsPerBlock) / double(4 * l.maxWarps);
}

/// The block size with the highest occupancy among 128, 256 and 64 threads
/// (in that order of preference on ties), at most `maxThreads` (> 0). Static
/// shared memory is sized for the launch bound, whatever the block.
inline int64_t gpuBlockSize(const char *chip, int64_t registers,
                            int64_t maxThreads, int64_t sharedBytes = 0) {
  int64_t best = 128;
  double bestOccupancy = -1;
  for (int64_t block : {128, 256, 64}) {
    if (maxThreads > 0 && block > maxThreads)
      continue;
    double o = gpuOccupancy(chip, registers, block, sharedBytes);
    if (o > bestOccupancy)
      best = block, bestOccupancy = o;
  }
  return best;
}

/// The most registers per thread at which a kernel reaches a higher
/// occupancy than it has at `registers`, at the best of the block sizes
/// gpuBlockSize considers (within `maxThreads`), with `sharedBytes` of
/// static shared memory; 0 when fewer registers would not raise it, or the
/// chip is unknown. A register cap (PTX `.maxnreg`) of that many is what
/// the next occupancy step takes.
inline int64_t gpuRegistersForHigherOccupancy(const char *chip,
                                              int64_t registers,
                                              int64_t maxThreads,
                                              int64_t sharedBytes = 0) {
  auto best = [&](int64_t r) {
    int64_t block = gpuBlockSize(chip, r, maxThreads, sharedBytes);
    return gpuOccupancy(chip, r, block, sharedBytes);
  };
  double now = best(registers);
  if (now <= 0)
    return 0;
  for (int64_t r = registers - 1; r >= 16; --r)
    if (best(r) > now)
      return r;
  return 0;
}

} // namespace easyml::rt

#endif // EASYML_RUNTIME_OCCUPANCY_H
