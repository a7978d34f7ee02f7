//===- OccupancyTest.cpp - Theoretical occupancy and block size ----------===//
//
// Figures checked against the CUDA occupancy calculator's rules (registers
// allocated per warp in units of 256, 64K per SM) and AMD's CDNA register
// file (512 VGPRs per SIMD lane, granule 8, 8 waves per SIMD).
//
//===----------------------------------------------------------------------===//

#include "easyml/ABI/Occupancy.h"

#include <gtest/gtest.h>

using namespace easyml::rt;

TEST(Occupancy, NvidiaRegisterBound) {
  // 255 registers: 8 warps of 64 per SM, whatever the block size.
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_90", 255, 128), 0.125);
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_80", 255, 256), 0.125);
  // 32 registers: the SM fills.
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_90", 32, 128), 1.0);
  // 98 registers -> 3328 per warp -> 19 warps: 4 blocks of 4 warps, or 9
  // blocks of 2.
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_90", 98, 128), 16.0 / 64);
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_90", 98, 64), 18.0 / 64);
}

TEST(Occupancy, NvidiaChipLimits) {
  // sm_86: 48 warps and 16 blocks per SM.
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_86", 32, 128), 1.0);
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_86", 32, 64), 32.0 / 48);
  // sm_90: at most 32 blocks.
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_90", 16, 32), 0.5);
}

TEST(Occupancy, NvidiaSharedMemoryBound) {
  // Registers spilled to shared memory at 255 registers (76 B per thread
  // for a launch bound of 256: 19,456 B per block) leave the register
  // bound in place: 2 blocks of 128 need 40 KB of 228.
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_90", 255, 128, 19456), 0.125);
  // 32 registers and 48 KB per block: 228 KB / (48 + 1) KB = 4 blocks.
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_90", 32, 128, 48 * 1024), 16.0 / 64);
  // sm_80 has 164 KB: 3 such blocks; sm_75 64 KB and nothing reserved: 1.
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_80", 32, 128, 48 * 1024), 12.0 / 64);
  EXPECT_DOUBLE_EQ(gpuOccupancy("sm_75", 32, 128, 48 * 1024), 4.0 / 32);
  // Bound by shared memory, the larger block holds more warps.
  EXPECT_EQ(gpuBlockSize("sm_90", 32, 256, 48 * 1024), 256);
}

TEST(Occupancy, AmdVectorRegisterBound) {
  // 472 VGPRs: one wave per SIMD, 4 per CU of 32.
  EXPECT_DOUBLE_EQ(gpuOccupancy("gfx90a", 472, 256), 0.125);
  // 100 -> 104 VGPRs: 4 waves per SIMD.
  EXPECT_DOUBLE_EQ(gpuOccupancy("gfx942", 100, 128), 0.5);
  EXPECT_DOUBLE_EQ(gpuOccupancy("gfx942", 8, 64), 1.0);
  // gfx908: 256 architectural VGPRs.
  EXPECT_DOUBLE_EQ(gpuOccupancy("gfx908", 100, 256), 0.25);
}

TEST(Occupancy, UnknownChipsAndBadInput) {
  EXPECT_EQ(gpuOccupancy("gfx1100", 32, 128), 0.0);
  EXPECT_EQ(gpuOccupancy("sm_60", 32, 128), 0.0);
  EXPECT_EQ(gpuOccupancy(nullptr, 32, 128), 0.0);
  EXPECT_EQ(gpuOccupancy("sm_90", 0, 128), 0.0);
  EXPECT_EQ(gpuOccupancy("sm_90", 32, 0), 0.0);
}

TEST(Occupancy, BlockSizeChoice) {
  // Ties keep 128 threads.
  EXPECT_EQ(gpuBlockSize("sm_90", 255, 256), 128);
  EXPECT_EQ(gpuBlockSize("gfx90a", 472, 256), 128);
  // Smaller blocks pack the register file better.
  EXPECT_EQ(gpuBlockSize("sm_90", 98, 256), 64);
  // The launch bound is respected.
  EXPECT_EQ(gpuBlockSize("sm_90", 98, 64), 64);
  EXPECT_EQ(gpuBlockSize("sm_90", 32, 128), 128);
  // An unknown chip: the default.
  EXPECT_EQ(gpuBlockSize("gfx1100", 32, 256), 128);
}

TEST(Occupancy, RegistersForHigherOccupancy) {
  // 84 registers: 23 warps' worth, 11 blocks of 64 = 22 warps; at 80, 25
  // warps' worth hold 12 blocks of 64 = 24.
  EXPECT_EQ(gpuRegistersForHigherOccupancy("sm_90", 84, 256), 80);
  EXPECT_GT(gpuOccupancy("sm_90", 80, gpuBlockSize("sm_90", 80, 256)),
            gpuOccupancy("sm_90", 84, gpuBlockSize("sm_90", 84, 256)));
  // 242 registers: 8 warps; 10 warps (5 blocks of 64) need at most 200.
  EXPECT_EQ(gpuRegistersForHigherOccupancy("sm_90", 242, 256), 200);
  // Within a launch bound of 128 the same step: 5 blocks of 64 threads.
  EXPECT_EQ(gpuRegistersForHigherOccupancy("sm_90", 242, 128), 200);
  // Full occupancy already, unknown chips: no cap.
  EXPECT_EQ(gpuRegistersForHigherOccupancy("sm_90", 32, 256), 0);
  EXPECT_EQ(gpuRegistersForHigherOccupancy("sm_60", 84, 256), 0);
  EXPECT_EQ(gpuRegistersForHigherOccupancy(nullptr, 84, 256), 0);
}
