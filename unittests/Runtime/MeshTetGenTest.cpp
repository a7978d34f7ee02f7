//===- MeshTetGenTest.cpp - TetGen's .node and .ele, Chaste's fibres ------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "MeshTestUtil.h"

#include <fstream>

using namespace easyml::rt;
using namespace easyml::rt::test;

namespace {

/// The two tetrahedra of twoTetPts() as TetGen writes them: numbered from
/// 1, one attribute and boundary markers per vertex, a region per element.
const char *kNode = "# vertices\n5 3 1 1\n"
                    "1 0 0 0 0.5 1\n2 1 0 0 0.5 1\n3 0 1 0 0.5 1\n"
                    "4 0 0 1 0.5 1\n5 1 1 1 0.5 1  # the top\n";
const char *kEle = "2 4 1\n1 1 2 3 4 7\n\n2 2 3 4 5 -3\n";

Expected<Mesh> read(const std::string &node, const std::string &ele,
                    const MeshText *fibres = nullptr) {
  return parseTetGenMesh(file("m.node", node), file("m.ele", ele), fibres);
}

} // namespace

TEST(MeshTetGen, ReadsOneBasedFilesWithRegionsAsTags) {
  Expected<Mesh> m = read(kNode, kEle);
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->pointCount(), 5);
  EXPECT_EQ(m->lengthUnit, "");
  EXPECT_EQ(m->tags, (std::vector<int32_t>{7, -3}));
  EXPECT_EQ(m->elementVertices(0)[0], 0);
  EXPECT_EQ(m->elementVertices(1)[3], 4);
  EXPECT_TRUE(m->notes.empty());
}

TEST(MeshTetGen, ReadsZeroBasedFilesAndReorients) {
  Expected<Mesh> m = read("5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n"
                          "4 1 1 1\n",
                          "2 4 0\n0 0 1 3 2\n1 1 2 3 4\n");
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->tags, (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(m->elementVertices(0)[2], 2);
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_TRUE(contains(m->notes[0], "1 of 2 tetrahedra were negatively "
                                    "oriented"));
}

TEST(MeshTetGen, HeaderAndNumberingErrors) {
  EXPECT_TRUE(contains(errorOf(read("5 2 0 0\n", kEle)),
                       "m.node:1: dimension 2: only 3-dimensional meshes"));
  EXPECT_TRUE(contains(errorOf(read("5 3 0 0 BIN\n", kEle)),
                       "m.node:1: binary files (BIN) are not read"));
  EXPECT_TRUE(contains(errorOf(read(kNode, "2 10 0\n")),
                       "m.ele:1: 10 vertices per element: only linear "
                       "tetrahedra (4) are read"));
  EXPECT_TRUE(contains(errorOf(read("2 3 0 0\n1 0 0 0\n3 0 0 1\n", kEle)),
                       "m.node:3: vertex 1: numbered 3, expected 2: number "
                       "the lines consecutively"));
  EXPECT_TRUE(contains(errorOf(read("1 3 0 0\n5 0 0 0\n", kEle)),
                       "m.node:2: vertex 0: numbering starts at 5"));
  EXPECT_TRUE(contains(errorOf(read(kNode, "1 4 1\n1 1 2 3 4\n")),
                       "m.ele:2: element 0: expected 6 fields (number, 4 "
                       "vertices, attributes), found 5"));
  EXPECT_TRUE(contains(errorOf(read(kNode, "1 4 1\n1 1 2 3 4 0.5\n")),
                       "m.ele:2: element 0: its first attribute '0.5', the "
                       "tag, is not an integer"));
  EXPECT_TRUE(contains(errorOf(read(kNode, "3 4 1\n1 1 2 3 4 7\n")),
                       "m.ele: 3 elements announced on its first line, 1 "
                       "found"));
  // 0-based elements against 1-based vertices: vertex 0 does not exist.
  EXPECT_TRUE(contains(errorOf(read(kNode, "1 4 0\n0 0 1 2 3\n")),
                       "m.ele:2: element 0 refers to vertex -1"));
}

TEST(MeshTetGen, ChasteFibreFiles) {
  MeshText axi = file("m.axi", "2\n1 0 0\n# second\n0 1 0\n");
  Expected<Mesh> m = read(kNode, kEle, &axi);
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->fibres[1].y, 1);
  EXPECT_TRUE(m->sheets.empty());
  MeshText ortho = file("m.ortho", "2\n1 0 0 0 1 0 0 0 1\n"
                                   "0 1 0 0 0 1 1 0 0\n");
  m = read(kNode, kEle, &ortho);
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->sheets[1].z, 1);
  MeshText short_ = file("m.axi", "3\n1 0 0\n0 1 0\n");
  EXPECT_TRUE(contains(errorOf(read(kNode, kEle, &short_)),
                       "m.axi: 3 entries announced on its first line, 2 "
                       "found"));
  MeshText wrong = file("m.axi", "1\n1 0 0\n");
  EXPECT_TRUE(contains(errorOf(read(kNode, kEle, &wrong)),
                       "m.axi: 1 fibre directions for 2 elements"));
  MeshText other = file("m.fib", "1\n");
  EXPECT_TRUE(contains(errorOf(read(kNode, kEle, &other)),
                       "m.fib: unknown fibre file format"));
  MeshText lon = file("m.lon", "1\n1 0 0\n0 0 1\n");
  EXPECT_TRUE(read(kNode, kEle, &lon).ok());
}

TEST(MeshTetGen, ReadsFiles) {
  std::string base = ::testing::TempDir() + "mesh-tetgen";
  std::ofstream(base + ".node") << kNode;
  std::ofstream(base + ".ele") << kEle;
  std::ofstream(base + ".axi") << "2\n1 0 0\n0 1 0\n";
  Expected<Mesh> m =
      readTetGenMesh({base + ".node", base + ".ele", base + ".axi"});
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->fibres.size(), 2u);
}
