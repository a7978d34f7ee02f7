//===- MeshCheckTest.cpp - the check every mesh reader runs ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "MeshTestUtil.h"

#include <cmath>

using namespace easyml::rt;
using namespace easyml::rt::test;

namespace {

Expected<Mesh> openCarp(const std::string &pts, const std::string &elem,
                        const char *lon = nullptr,
                        const MeshCheckOptions &options = {}) {
  MeshText l = file("m.lon", lon ? lon : "");
  return parseOpenCarpMesh(file("m.pts", pts), file("m.elem", elem),
                           lon ? &l : nullptr, options);
}

/// A unit cube, vertices in VTK's hexahedron order.
Mesh cube() {
  Mesh m;
  m.points = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
              {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  int64_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  m.addElement(ElementType::Hexahedron, v, 0);
  return m;
}

std::string check(Mesh &m, Orientation o) {
  MeshSource source;
  source.elementFile = "h.vtu";
  source.orientation = o;
  Status st = checkMesh(m, source);
  return st.ok() ? std::string() : st.message();
}

} // namespace

TEST(MeshCheck, VertexIndicesOutOfRange) {
  std::string e = errorOf(openCarp(twoTetPts(), "2\nTt 0 1 2 3\nTt 1 2 3 9\n"));
  EXPECT_TRUE(contains(e, "m.elem:3: element 1 refers to vertex 9 (counted "
                          "from 0), but the mesh has 5 vertices"));
  e = errorOf(openCarp(twoTetPts(), "2\nTt 0 1 2 -1\nTt 1 2 3 7\n"));
  EXPECT_TRUE(contains(e, "element 0 refers to vertex -1"));
  EXPECT_TRUE(contains(e, "(2 elements with such vertices in all)"));
}

TEST(MeshCheck, DegenerateTetrahedra) {
  // Four vertices in the plane z = 0, then a repeated vertex.
  const char *pts = "4\n0 0 0\n1000 0 0\n0 1000 0\n1000 1000 0\n";
  std::string e = errorOf(openCarp(pts, "1\nTt 0 1 2 3\n"));
  EXPECT_TRUE(contains(e, "m.elem:2: element 0 (tetrahedron, vertices 0 1 2 "
                          "3) is degenerate: its volume is 0 of its diameter "
                          "cubed (up to 1e-08 counts as zero)"));
  EXPECT_TRUE(contains(e, "remove it or move its vertices apart"));
  EXPECT_TRUE(contains(errorOf(openCarp(twoTetPts(), "1\nTt 0 1 2 2\n")),
                       "element 0 (tetrahedron, vertices 0 1 2 2) is "
                       "degenerate"));
  // Nearly flat: 1e-9 of the diameter cubed.
  EXPECT_TRUE(
      contains(errorOf(openCarp("4\n0 0 0\n1 0 0\n0 1 0\n0.3 0.3 1e-9\n",
                                "1\nTt 0 1 2 3\n")),
               "is degenerate"));
}

TEST(MeshCheck, ReorientsTetrahedraWhereTheFormatLeavesOrientationFree) {
  // The second tetrahedron negatively oriented: its last two swapped back.
  Expected<Mesh> m = openCarp(twoTetPts(), "2\nTt 0 1 2 3\nTt 1 2 4 3\n");
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->elementVertices(1)[2], 3);
  EXPECT_EQ(m->elementVertices(1)[3], 4);
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_EQ(m->notes[0], "1 of 2 tetrahedra were negatively oriented and "
                         "were reoriented (their last two vertices "
                         "swapped); the file mixes both orientations");
}

TEST(MeshCheck, InvertedTwistedAndDegenerateHexahedra) {
  Mesh good = cube();
  EXPECT_EQ(check(good, Orientation::Defined), "");
  Mesh inverted = cube();
  std::swap_ranges(inverted.vertices.begin(), inverted.vertices.begin() + 4,
                   inverted.vertices.begin() + 4);
  EXPECT_TRUE(contains(check(inverted, Orientation::Defined),
                       "h.vtu: element 0 (hexahedron, vertices 4 5 6 7 0 1 2 "
                       "3) is inverted: its volume is negative under the "
                       "format's orientation"));
  EXPECT_TRUE(contains(check(inverted, Orientation::Defined),
                       "swap its two faces, v0..v3 with v4..v7"));
  // Where the format fixes no order, only degenerate hexahedra are errors.
  Mesh free = inverted;
  EXPECT_EQ(check(free, Orientation::Free), "");
  Mesh twisted = cube();
  std::swap(twisted.vertices[6], twisted.vertices[7]);
  EXPECT_TRUE(contains(check(twisted, Orientation::Defined),
                       "is twisted: its corners are not all oriented alike"));
  Mesh flat = cube();
  for (int k = 4; k < 8; ++k)
    flat.points[k].z = 0;
  EXPECT_TRUE(contains(check(flat, Orientation::Free), "is degenerate"));
  Mesh collapsed = cube();
  collapsed.points[6] = collapsed.points[7];
  EXPECT_TRUE(contains(check(collapsed, Orientation::Free), "is degenerate"));
}

TEST(MeshCheck, FibresAreUnitWithinTheTolerance) {
  Expected<Mesh> m =
      openCarp(twoTetPts(), twoTetElem(), "1\n1.0005 0 0\n0 0.9995 0\n");
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_DOUBLE_EQ(m->fibres[0].x, 1);
  EXPECT_DOUBLE_EQ(m->fibres[1].y, 1);
  std::string e =
      errorOf(openCarp(twoTetPts(), twoTetElem(), "1\n1 0 0\n0.5 0 0\n"));
  EXPECT_TRUE(contains(e, "m.lon:3: the fibre of element 1 (0.5 0 0) has "
                          "length 0.5; fibre directions must be unit vectors "
                          "(within 0.001): normalise them"));
  EXPECT_TRUE(contains(
      errorOf(openCarp(twoTetPts(), twoTetElem(), "1\n0 0 0\n1 0 0\n")),
      "m.lon:2: the fibre of element 0 (0 0 0) is zero: every "
      "element needs a fibre direction"));
  MeshCheckOptions loose;
  loose.directionTolerance = 0.6;
  EXPECT_TRUE(
      openCarp(twoTetPts(), twoTetElem(), "1\n1 0 0\n0.5 0 0\n", loose).ok());
}

TEST(MeshCheck, SheetsAreUnitAndOrthogonalToFibres) {
  Expected<Mesh> m =
      openCarp(twoTetPts(), twoTetElem(), "2\n1 0 0 0.0005 1 0\n0 1 0 0 0 1\n");
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_DOUBLE_EQ(m->sheets[0].x, 0);
  EXPECT_NEAR(std::hypot(m->sheets[0].y, m->sheets[0].z), 1, 1e-15);
  EXPECT_TRUE(contains(
      errorOf(openCarp(twoTetPts(), twoTetElem(),
                       "2\n1 0 0 0 1 0\n0 1 0 0.6 0.8 0\n")),
      "m.lon:3: the sheet of element 1 (0.6 0.8 0) is not orthogonal to its "
      "fibre (0 1 0): their cosine is 0.8, more than 0.001"));
  EXPECT_TRUE(contains(errorOf(openCarp(twoTetPts(), twoTetElem(),
                                        "2\n1 0 0 0 2 0\n0 1 0 0 0 1\n")),
                       "the sheet of element 0 (0 2 0) has length 2"));
}

TEST(MeshCheck, DisconnectedPieces) {
  // Two tetrahedra with no vertex in common, and a third on the first.
  const char *pts = "9\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n5 0 0\n6 0 0\n5 1 0\n"
                    "5 0 1\n1 1 1\n";
  const char *elem = "3\nTt 0 1 2 3\nTt 4 5 6 7\nTt 1 2 3 8\n";
  std::string e = errorOf(openCarp(pts, elem));
  EXPECT_TRUE(contains(e, "m.elem:3: element 1 is not connected to element "
                          "0: the mesh is in 2 disconnected pieces of 2 and "
                          "1 elements (the smaller ones hold elements 1)"));
  EXPECT_TRUE(contains(e, "a tissue is one piece: remove the smaller pieces, "
                          "or allow disconnected meshes"));
  MeshCheckOptions allow;
  allow.allowDisconnected = true;
  Expected<Mesh> m = openCarp(pts, elem, nullptr, allow);
  ASSERT_TRUE(m.ok()) << errorOf(m);
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_EQ(m->notes[0], "the mesh is in 2 disconnected pieces of 2 and 1 "
                         "elements (the smaller ones hold elements 1)");
}

TEST(MeshCheck, UnusedVerticesAreANote) {
  Expected<Mesh> m = openCarp(
      "7\n0 0 0\n1000 0 0\n0 1000 0\n0 0 1000\n1000 1000 1000\n9 9 9\n8 8 8\n",
      twoTetElem());
  ASSERT_TRUE(m.ok()) << errorOf(m);
  ASSERT_EQ(m->notes.size(), 1u);
  EXPECT_EQ(m->notes[0], "2 vertices in no element (the first: vertex 5) "
                         "take no part in the tissue");
}

TEST(MeshCheck, AMeshWithoutElementsIsAnError) {
  EXPECT_TRUE(contains(errorOf(openCarp(twoTetPts(), "0\n")),
                       "m.elem: the mesh has no elements"));
}
