//===- MeshOpenCarpTest.cpp - openCARP's .pts, .elem and .lon -------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "MeshTestUtil.h"

#include <cstdio>
#include <fstream>

using namespace easyml::rt;
using namespace easyml::rt::test;

namespace {

Expected<Mesh> read(const std::string &pts, const std::string &elem,
                    const char *lon = nullptr,
                    const MeshCheckOptions &options = {}) {
  MeshText l = file("m.lon", lon ? lon : "");
  return parseOpenCarpMesh(file("m.pts", pts), file("m.elem", elem),
                           lon ? &l : nullptr, options);
}

} // namespace

TEST(MeshOpenCarp, ReadsTetrahedraTagsAndFibres) {
  Expected<Mesh> m = read(twoTetPts(), twoTetElem(), "1\n1 0 0\n0 1 0\n");
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->pointCount(), 5);
  EXPECT_EQ(m->elementCount(), 2);
  EXPECT_EQ(m->lengthUnit, "um");
  EXPECT_EQ(m->points[4].z, 1000);
  EXPECT_EQ(m->tags, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(m->elementVertices(1)[3], 4);
  ASSERT_EQ(m->fibres.size(), 2u);
  EXPECT_EQ(m->fibres[1].y, 1);
  EXPECT_TRUE(m->sheets.empty());
  EXPECT_TRUE(m->notes.empty());
}

TEST(MeshOpenCarp, ReadsSheetsHexahedraAndMissingTags) {
  // A unit cube (VTK order) and a tetrahedron on its top face; no tags.
  const char *pts = "9\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n"
                    "0 1 1\n0.5 0.5 2\n";
  const char *elem = "2\nHx 0 1 2 3 4 5 6 7\nTt 4 5 6 8\n";
  Expected<Mesh> m = read(pts, elem, "2\n1 0 0 0 1 0\n0 0 1 1 0 0\n");
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->types[0], ElementType::Hexahedron);
  EXPECT_EQ(m->offsets, (std::vector<int64_t>{0, 8, 12}));
  EXPECT_EQ(m->tags, (std::vector<int32_t>{0, 0}));
  ASSERT_EQ(m->sheets.size(), 2u);
  EXPECT_EQ(m->sheets[1].x, 1);
}

TEST(MeshOpenCarp, RefusesOtherElementTypesByName) {
  std::string e = errorOf(read(twoTetPts(), "2\nTt 0 1 2 3\nTr 1 2 3\n"));
  EXPECT_TRUE(contains(e, "m.elem:3: element 1 is a triangle ('Tr'), which "
                          "is not supported"));
  EXPECT_TRUE(contains(e, "tetrahedra ('Tt') and hexahedra ('Hx')"));
  EXPECT_TRUE(contains(errorOf(read(twoTetPts(), "1\nPr 0 1 2 3 4 0\n")),
                       "element 0 is a prism ('Pr')"));
  EXPECT_TRUE(contains(errorOf(read(twoTetPts(), "1\nXy 0 1 2 3\n")),
                       "m.elem:2: element 0: unknown element type 'Xy'"));
}

TEST(MeshOpenCarp, NamesTheLineOfMalformedInput) {
  EXPECT_TRUE(contains(errorOf(read("2\n0 0 0\n1 2\n", twoTetElem())),
                       "m.pts:3: vertex 1: expected 3 coordinates x y z, "
                       "found 2 fields"));
  EXPECT_TRUE(contains(errorOf(read("1\n0 nan 0\n", twoTetElem())),
                       "m.pts:2: vertex 0: 'nan' is not a finite number"));
  EXPECT_TRUE(contains(errorOf(read("x\n", twoTetElem())),
                       "m.pts:1: the first line should be the number of "
                       "vertices"));
  EXPECT_TRUE(contains(errorOf(read(twoTetPts(), "2\nTt 0 1 2 3 1\n")),
                       "m.elem: 2 elements announced on line 1, 1 found"));
  EXPECT_TRUE(contains(errorOf(read(twoTetPts(), "1\nTt 0 1 2\n")),
                       "m.elem:2: element 0: 'Tt' takes 4 vertex indices "
                       "and an optional tag, found 3 fields"));
  EXPECT_TRUE(contains(errorOf(read(twoTetPts(), "1\nTt 0 1 2 3 x\n")),
                       "m.elem:2: element 0: tag 'x' is not an integer"));
}

TEST(MeshOpenCarp, FibreFileErrors) {
  EXPECT_TRUE(contains(errorOf(read(twoTetPts(), twoTetElem(), "1\n1 0 0\n")),
                       "m.lon: 1 fibre directions for 2 elements: the fibre "
                       "file needs one per element, in the order of the "
                       "elements in m.elem"));
  EXPECT_TRUE(contains(
      errorOf(read(twoTetPts(), twoTetElem(), "1 0 0\n0 1 0\n")),
      "m.lon:1: the first line should be 1 (fibres) or 2 (fibres and "
      "sheets), not '1 ...'; a file of fibres without that line: add the "
      "line '1' at its top"));
  EXPECT_TRUE(
      contains(errorOf(read(twoTetPts(), twoTetElem(), "2\n1 0 0\n0 1 0\n")),
               "m.lon:2: entry 0: expected 6 numbers, found 3"));
}

TEST(MeshOpenCarp, ReadsFilesByMeshName) {
  std::string base = ::testing::TempDir() + "mesh-opencarp";
  std::ofstream(base + ".pts") << twoTetPts();
  std::ofstream(base + ".elem") << twoTetElem();
  std::remove((base + ".lon").c_str());
  OpenCarpFiles files = OpenCarpFiles::fromMeshName(base);
  EXPECT_TRUE(files.lon.empty());
  Expected<Mesh> m = readOpenCarpMesh(files);
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_TRUE(m->fibres.empty());
  std::ofstream(base + ".lon") << "1\n1 0 0\n1 0 0\n";
  EXPECT_EQ(OpenCarpFiles::fromMeshName(base).lon, base + ".lon");
  files.elem = base + ".missing";
  Expected<Mesh> missing = readOpenCarpMesh(files);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::Failed);
  EXPECT_TRUE(contains(missing.status().message(),
                       "cannot read '" + base + ".missing'"));
}
