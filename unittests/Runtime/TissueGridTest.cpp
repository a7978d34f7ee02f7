//===- TissueGridTest.cpp - tissue geometry, stimuli and files ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/ABI/ABI.h"
#include "easyml/Runtime/Tissue/Tissue.h"
#include "easyml/Runtime/Tissue/TissueConfig.h"
#include "easyml/Runtime/Tissue/TissueFiles.h"
#include "easyml/Runtime/Tissue/TissueGrid.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

using namespace easyml::rt;

namespace {

TissueGrid grid3(int64_t nx, int64_t ny, int64_t nz, double h = 0.5) {
  TissueGrid g;
  g.n = {nx, ny, nz};
  g.h = {h, h, h};
  return g;
}

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "tissue-" + name;
}

} // namespace

TEST(TissueGrid, FlagsNameNeighboursInsideTheTissue) {
  TissueGrid g = grid3(3, 2, 1);
  g.mask = {1, 1, 0, 1, 1, 1};
  std::vector<uint8_t> f = g.diffusionFlags();
  EXPECT_EQ(f[0], EASYML_DIFFUSION_TISSUE | EASYML_DIFFUSION_XP |
                      EASYML_DIFFUSION_YP);
  // Its +x neighbour is not tissue: no flux across.
  EXPECT_EQ(f[1], EASYML_DIFFUSION_TISSUE | EASYML_DIFFUSION_XM |
                      EASYML_DIFFUSION_YP);
  EXPECT_EQ(f[2], 0);
  EXPECT_EQ(f[5], EASYML_DIFFUSION_TISSUE | EASYML_DIFFUSION_XM);
  EXPECT_EQ(g.dimensions(), 2);
}

TEST(TissueGrid, ChecksSpacingAndMask) {
  TissueGrid g = grid3(4, 1, 1);
  g.h[1] = -0.1;
  EXPECT_NE(g.check().find("spacing along y is -0.1 mm"), std::string::npos);
  g = grid3(4, 1, 1);
  g.mask = {1, 1};
  EXPECT_NE(g.check().find("the mask has 2 values, the grid 4 points"),
            std::string::npos);
}

TEST(Conductivity, NVersionDiffusionCoefficients) {
  Conductivity c; // the N-version benchmark's values
  // 0.17 * 0.62 / 0.79 S/m over 140 /mm and 1 uF/cm^2.
  EXPECT_NEAR(c.diffusion(0), 100 * (0.17 * 0.62 / 0.79) / 140, 1e-15);
  EXPECT_NEAR(c.diffusion(1), 0.0125758, 1e-6);
}

TEST(Tissue, StableStepIsTheExplicitBound) {
  TissueGrid g = grid3(10, 10, 1, 0.1);
  Conductivity c;
  double sum = c.diffusion(0) / 0.01 + c.diffusion(1) / 0.01;
  EXPECT_DOUBLE_EQ(Tissue::stableStep(g, c), 1 / (2 * sum));
  // A 1D cable only counts x.
  EXPECT_DOUBLE_EQ(Tissue::stableStep(grid3(10, 1, 1, 0.1), c),
                   0.01 / (2 * c.diffusion(0)));
}

TEST(TissueRegion, BoxSphereAndPoints) {
  TissueGrid g = grid3(5, 5, 1, 0.5); // 0 .. 2 mm
  TissueRegion box;
  box.hi = {0.5, 0.5, 0};
  EXPECT_EQ(box.select(g).size(), 4u);
  TissueRegion sphere;
  sphere.kind = TissueRegion::Sphere;
  sphere.center = {1, 1, 0};
  sphere.radius = 0.5;
  EXPECT_EQ(sphere.select(g).size(), 5u);
  g.mask.assign(25, 1);
  g.mask[0] = 0;
  EXPECT_EQ(box.select(g).size(), 3u);
}

TEST(TissueStimulus, PulsesInWholeSteps) {
  TissueStimulus s;
  s.start = 1;
  s.duration = 0.5;
  s.period = 10;
  s.count = 2;
  double dt = 0.1;
  EXPECT_FALSE(s.onAtStep(9, dt));
  EXPECT_TRUE(s.onAtStep(10, dt));
  EXPECT_TRUE(s.onAtStep(14, dt));
  EXPECT_FALSE(s.onAtStep(15, dt));
  EXPECT_TRUE(s.onAtStep(110, dt));
  EXPECT_FALSE(s.onAtStep(210, dt));
  // 50,000 uA/cm^3 over 140 /mm (1400 /cm) and 1 uF/cm^2.
  Conductivity c;
  s.strength = 50000;
  EXPECT_NEAR(s.rate(c), 50000.0 / 1400, 1e-12);
}

TEST(TissueFiles, NpyRoundTripAndShapeErrors) {
  TissueGrid g = grid3(4, 3, 2);
  std::vector<double> v(g.points());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 0.5 * i;
  std::string path = tempPath("field.npy"), error;
  ASSERT_TRUE(writeGridNpy(path, g, v, error)) << error;
  std::vector<double> back;
  ASSERT_TRUE(readGridNpy(path, g, back, error)) << error;
  EXPECT_EQ(back, v);
  EXPECT_FALSE(readGridNpy(path, grid3(3, 4, 2), back, error));
  EXPECT_NE(error.find("shape (2, 3, 4) does not match the grid: (2, 4, 3) expected, (nz, ny, nx)"),
            std::string::npos)
      << error;
  std::remove(path.c_str());
}

TEST(TissueConfig, OneMessageWithLineAndColumn) {
  std::string path = tempPath("bad.json"), error;
  auto attempt = [&](const std::string &text) {
    std::ofstream(path) << text;
    TissueSetup s;
    error.clear();
    return readTissueConfig(path, s, error);
  };
  EXPECT_FALSE(attempt("{\"model\": \"m.so\", \"grid\": {\"points\": [4], "
                       "\"spacing_mm\": -1}, \"time\": {\"duration\": 1}}"));
  EXPECT_NE(error.find(":1:57: 'spacing_mm' must be positive"),
            std::string::npos)
      << error;
  EXPECT_FALSE(attempt("{\"model\": \"m.so\",\n \"gird\": {}}"));
  EXPECT_NE(error.find(":2:10: unknown key 'gird' in the configuration"),
            std::string::npos)
      << error;
  EXPECT_FALSE(attempt(
      "{\"model\": \"m.so\", \"grid\": {\"points\": [4]}, \"time\": "
      "{\"duration\": 1},\n \"stimuli\": [{\"box\": [[5, 5, 0], [6, 6, 0]], "
      "\"current_per_area\": 10}]}"));
  EXPECT_NE(error.find(":2:14: the stimulus region holds no point of tissue"),
            std::string::npos)
      << error;
  std::remove(path.c_str());
}
