//===- MeshVtuTest.cpp - VTK's XML unstructured grid ----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "MeshTestUtil.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

using namespace easyml::rt;
using namespace easyml::rt::test;

namespace {

std::string base64(const std::string &bytes) {
  static const char *abc =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t b = uint8_t(bytes[i]) << 16;
    if (i + 1 < bytes.size())
      b |= uint8_t(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size())
      b |= uint8_t(bytes[i + 2]);
    out += abc[b >> 18 & 63];
    out += abc[b >> 12 & 63];
    out += i + 1 < bytes.size() ? abc[b >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? abc[b & 63] : '=';
  }
  return out;
}

/// VTK's inline binary: the byte count (UInt32 or UInt64), then the data,
/// encoded apart as VTK does.
template <typename T>
std::string binary(const std::vector<T> &values, bool header64 = false) {
  std::string data(reinterpret_cast<const char *>(values.data()),
                   values.size() * sizeof(T));
  uint64_t n = data.size();
  std::string head(reinterpret_cast<const char *>(&n), header64 ? 8 : 4);
  return base64(head) + base64(data);
}

std::string array(const std::string &attrs, const std::string &data) {
  return "<DataArray " + attrs + ">" + data + "</DataArray>\n";
}

/// The two tetrahedra of twoTetPts() with a tag, fibre and sheet per cell.
std::string vtu(const std::string &points, const std::string &cells,
                const std::string &cellData = "",
                const std::string &fileAttrs = "") {
  return "<?xml version=\"1.0\"?>\n<!-- two tetrahedra -->\n"
         "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" "
         "byte_order=\"LittleEndian\"" +
         fileAttrs +
         ">\n<UnstructuredGrid>\n<Piece NumberOfPoints=\"5\" "
         "NumberOfCells=\"2\">\n<Points>\n" +
         points + "</Points>\n<Cells>\n" + cells + "</Cells>\n<CellData>\n" +
         cellData + "</CellData>\n</Piece>\n</UnstructuredGrid>\n</VTKFile>\n";
}

const std::string kPoints =
    array("type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\"",
          "0 0 0 1 0 0 0 1 0 0 0 1 1 1 1");
std::string cells(const std::string &connectivity = "0 1 2 3 1 2 3 4",
                  const std::string &types = "10 10") {
  return array("type=\"Int64\" Name=\"connectivity\" format=\"ascii\"",
               connectivity) +
         array("type=\"Int64\" Name=\"offsets\" format=\"ascii\"", "4 8") +
         array("type=\"UInt8\" Name=\"types\" format=\"ascii\"", types);
}
const std::string kCellData =
    array("type=\"Int32\" Name=\"elemTag\" format=\"ascii\"", "3 4") +
    array("type=\"Float32\" Name=\"fiber\" NumberOfComponents=\"3\" "
          "format=\"ascii\"",
          "1 0 0 0 1 0") +
    array("type=\"Float32\" Name=\"sheet\" NumberOfComponents=\"3\" "
          "format=\"ascii\"",
          "0 1 0 0 0 1");

Expected<Mesh> read(const std::string &text, const VtuArrays &arrays = {}) {
  return parseVtuMesh(file("m.vtu", text), {}, arrays);
}

} // namespace

TEST(MeshVtu, ReadsAsciiCellsTagsFibresAndSheets) {
  Expected<Mesh> m = read(vtu(kPoints, cells(), kCellData));
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->pointCount(), 5);
  EXPECT_EQ(m->elementCount(), 2);
  EXPECT_EQ(m->tags, (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(m->fibres[1].y, 1);
  EXPECT_EQ(m->sheets[1].z, 1);
  m = read(vtu(kPoints, cells()));
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_TRUE(m->fibres.empty());
  EXPECT_EQ(m->tags, (std::vector<int32_t>{0, 0}));
}

TEST(MeshVtu, ReadsInlineBinaryWithEitherHeader) {
  std::vector<double> xyz = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  std::vector<int32_t> conn = {0, 1, 2, 3, 1, 2, 3, 4}, off = {4, 8};
  std::vector<uint8_t> types = {10, 10};
  for (bool h64 : {false, true}) {
    std::string c =
        array("type=\"Int32\" Name=\"connectivity\" format=\"binary\"",
              binary(conn, h64)) +
        array("type=\"Int32\" Name=\"offsets\" format=\"binary\"",
              binary(off, h64)) +
        array("type=\"UInt8\" Name=\"types\" format=\"binary\"",
              "\n  " + binary(types, h64) + "\n");
    std::string p =
        array("type=\"Float64\" NumberOfComponents=\"3\" format=\"binary\"",
              binary(xyz, h64));
    Expected<Mesh> m =
        read(vtu(p, c, "", h64 ? " header_type=\"UInt64\"" : ""));
    ASSERT_TRUE(m.ok()) << errorOf(m);
    EXPECT_EQ(m->points[4].y, 1);
    EXPECT_EQ(m->elementVertices(1)[3], 4);
  }
}

TEST(MeshVtu, InvertedCellsAreErrors) {
  std::string e = errorOf(read(vtu(kPoints, cells("0 1 2 3 1 2 4 3"))));
  EXPECT_TRUE(contains(e, "m.vtu: element 1 (tetrahedron, vertices 1 2 4 3) "
                          "is inverted: its volume is negative under the "
                          "format's orientation (v0 v1 v2 counter-clockwise "
                          "seen from v3); swap two of its vertices, for "
                          "example the last two"));
}

TEST(MeshVtu, RefusesOtherCellsAndDataItCannotRead) {
  EXPECT_TRUE(
      contains(errorOf(read(vtu(kPoints, cells("0 1 2 3 1 2 3 4", "10 5")))),
               "cell 1 is a triangle: only tetrahedra (10) and "
               "hexahedra (12) are read"));
  std::string appended =
      vtu(array("type=\"Float64\" NumberOfComponents=\"3\" format=\"appended\" "
                "offset=\"0\"",
                ""),
          cells());
  EXPECT_TRUE(contains(errorOf(read(appended)),
                       "m.vtu:7: points: format 'appended' is not read: "
                       "write the file with ascii or inline binary (base64) "
                       "data"));
  std::string binaryPoints =
      array("type=\"Float64\" NumberOfComponents=\"3\" format=\"binary\"",
            binary(std::vector<double>(15, 0.0)));
  EXPECT_TRUE(contains(
      errorOf(read(vtu(binaryPoints, cells(), "",
                       " compressor=\"vtkZLibDataCompressor\""))),
      "points: compressed data (vtkZLibDataCompressor) is not read: write "
      "the file uncompressed, or as ascii"));
  std::string big = vtu(binaryPoints, cells());
  big.replace(big.find("LittleEndian"), 12, "BigEndian");
  EXPECT_TRUE(contains(errorOf(read(big)), "big-endian binary data"));
  EXPECT_TRUE(contains(
      errorOf(read("# vtk DataFile Version 3.0\nmesh\nASCII\n")),
      "m.vtu:1: a legacy VTK file: only VTK's XML format (.vtu) is read"));
  EXPECT_TRUE(contains(errorOf(read("<VTKFile type=\"PolyData\"/>")),
                       "m.vtu:1: a VTK file of type 'PolyData': only "
                       "UnstructuredGrid (.vtu) files are read"));
}

TEST(MeshVtu, MalformedFilesNameTheLine) {
  std::string text = vtu(kPoints, cells());
  text.replace(text.find("</Cells>"), 8, "</Cell>");
  EXPECT_TRUE(contains(errorOf(read(text)),
                       "end tag </Cell> where </Cells> was expected"));
  EXPECT_TRUE(contains(errorOf(read(vtu(kPoints, cells("0 1 2 3 1 2 3")))),
                       "cell connectivity: 7 values, expected 8"));
  EXPECT_TRUE(contains(errorOf(read(vtu(kPoints, cells("0 1 2 3 1 2 3 x")))),
                       "cell connectivity: 'x' is not an integer"));
  std::string twoPieces = vtu(kPoints, cells());
  size_t at = twoPieces.find("</UnstructuredGrid>");
  twoPieces.insert(at, "<Piece NumberOfPoints=\"0\" NumberOfCells=\"0\"/>");
  EXPECT_TRUE(contains(errorOf(read(twoPieces)),
                       "2 pieces: only a file of one <Piece> is read"));
  EXPECT_TRUE(contains(errorOf(read("<VTKFile")), "m.vtu:1: unterminated"));
}

TEST(MeshVtu, NamedArrays) {
  std::string data =
      array("type=\"Int32\" Name=\"zone\" format=\"ascii\"", "5 6") +
      array("type=\"Float64\" Name=\"f\" NumberOfComponents="
            "\"3\" format=\"ascii\"",
            "0 0 1 0 0 2");
  Expected<Mesh> m = read(vtu(kPoints, cells(), data), {"zone", "", ""});
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->tags, (std::vector<int32_t>{5, 6}));
  EXPECT_TRUE(contains(
      errorOf(read(vtu(kPoints, cells(), data), {"", "fibre_dir", ""})),
      "no cell data array 'fibre_dir' for the fibre (the "
      "arrays: zone, f)"));
  EXPECT_TRUE(
      contains(errorOf(read(vtu(kPoints, cells(), data), {"", "f", ""})),
               "m.vtu: the fibre of element 1 (0 0 2) has length 2"));
}

TEST(MeshVtu, ReadsAFile) {
  std::string path = ::testing::TempDir() + "mesh.vtu";
  std::ofstream(path) << vtu(kPoints, cells(), kCellData);
  Expected<Mesh> m = readVtuMesh(path);
  ASSERT_TRUE(m.ok()) << errorOf(m);
  EXPECT_EQ(m->tags[1], 4);
}
