//===- TetGenReader.cpp - TetGen's .node and .ele -------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// TetGen's text mesh: NAME.node (a first line "count 3 attributes markers",
// then "number x y z [attributes] [marker]" per line) and NAME.ele (a first
// line "count 4 attributes", then "number v0 v1 v2 v3 [attributes]"), '#'
// starting a comment. Numbers count from the file's first one (0 or 1); the
// elements' vertex indices use the .node file's numbering. The first
// element attribute (TetGen's region) is the tag. The fibre file is
// optional (FibreFiles.h).
//
//===----------------------------------------------------------------------===//

#include "FibreFiles.h"
#include "TextLines.h"

#include "easyml/Runtime/Mesh/MeshReaders.h"

#include <algorithm>

using namespace easyml::rt;
using namespace easyml::rt::mesh;

namespace {

/// More attributes per line than any mesh has: a damaged header.
constexpr int64_t kMaxAttributes = 1000;

/// The numbers of a first line: `names` say what each is, for messages.
Status readHeader(TextLines &lines, const std::vector<std::string> &names,
                  std::vector<int64_t> &values) {
  std::string expected;
  for (const std::string &n : names)
    expected += (expected.empty() ? "" : ", ") + n;
  if (!lines.next())
    return Status::invalid(lines.name() +
                           ": empty file: its first line "
                           "should be " +
                           expected);
  if (lines.size() > 1 && lines[lines.size() - 1] == "BIN")
    return lines.error("binary files (BIN) are not read: write the file as "
                       "text");
  values.assign(names.size(), 0);
  if (lines.size() < 2 || lines.size() > names.size())
    return lines.error("the first line should be " + expected);
  for (size_t k = 0; k < lines.size(); ++k)
    if (!parseInt(lines[k], values[k]) || values[k] < 0)
      return lines.error("the first line should be " + expected + ": '" +
                         std::string(lines[k]) +
                         "' is not a non-negative integer");
  if (values.size() > 2 && values[2] > kMaxAttributes)
    return lines.error(std::to_string(values[2]) + " attributes: at most " +
                       std::to_string(kMaxAttributes) + " are read");
  return Status::success();
}

/// Checks the number that starts each line: the first one sets the base
/// (0 or 1) and the others follow it.
Status checkNumber(const TextLines &lines, const std::string &what,
                   int64_t index, int64_t &base) {
  int64_t number;
  if (!parseInt(lines[0], number))
    return lines.error(what + ": its number '" + std::string(lines[0]) +
                       "' is not an integer");
  if (index == 0) {
    if (number != 0 && number != 1)
      return lines.error(what + ": numbering starts at " +
                         std::to_string(number) + "; it must start at 0 or 1");
    base = number;
  } else if (number != base + index) {
    return lines.error(what + ": numbered " + std::to_string(number) +
                       ", expected " + std::to_string(base + index) +
                       ": number the lines consecutively");
  }
  return Status::success();
}

Status readNodes(const MeshText &file, Mesh &mesh, int64_t &base) {
  TextLines lines(file, '#');
  std::vector<int64_t> h;
  if (Status st = readHeader(lines,
                             {"the vertex count", "the dimension 3",
                              "the attribute count",
                              "the boundary marker count (0 or 1)"},
                             h);
      !st.ok())
    return st;
  if (h[1] != 3)
    return lines.error("dimension " + std::to_string(h[1]) +
                       ": only 3-dimensional meshes are read");
  size_t fields = 4 + h[2] + (h[3] ? 1 : 0);
  while (lines.next()) {
    int64_t i = mesh.pointCount();
    std::string what = "vertex " + std::to_string(i);
    if (lines.size() != fields)
      return lines.error(what + ": expected " + std::to_string(fields) +
                         " fields (number, x y z, attributes, marker), "
                         "found " +
                         std::to_string(lines.size()));
    if (Status st = checkNumber(lines, what, i, base); !st.ok())
      return st;
    Vec3 p;
    if (Status st = readVec3(lines, 1, what, p); !st.ok())
      return st;
    mesh.points.push_back(p);
  }
  if (mesh.pointCount() != h[0])
    return Status::invalid(file.name + ": " + std::to_string(h[0]) +
                           " vertices announced on its first line, " +
                           std::to_string(mesh.pointCount()) + " found");
  return Status::success();
}

Status readTet(const TextLines &lines, const std::string &what, int64_t base,
               bool tagged, Mesh &mesh) {
  int64_t v[4];
  for (size_t k = 0; k < 4; ++k) {
    if (!parseInt(lines[k + 1], v[k]))
      return lines.error(what + ": vertex index '" + std::string(lines[k + 1]) +
                         "' is not an integer");
    v[k] -= base;
  }
  int32_t tag = 0;
  if (tagged && !parseTag(lines[5], tag))
    return lines.error(what + ": its first attribute '" +
                       std::string(lines[5]) +
                       "', the tag, is not an integer of 32 bits");
  mesh.addElement(ElementType::Tetrahedron, v, tag);
  return Status::success();
}

Status readEles(const MeshText &file, int64_t nodeBase, Mesh &mesh,
                MeshSource &source) {
  TextLines lines(file, '#');
  std::vector<int64_t> h;
  if (Status st =
          readHeader(lines,
                     {"the element count", "the vertices per element (4)",
                      "the attribute count"},
                     h);
      !st.ok())
    return st;
  if (h[1] != 4)
    return lines.error(std::to_string(h[1]) +
                       " vertices per element: only linear tetrahedra (4) "
                       "are read; mesh without TetGen's -o2");
  size_t fields = 5 + h[2];
  int64_t base = 0;
  while (lines.next()) {
    std::string what = "element " + std::to_string(mesh.elementCount());
    if (lines.size() != fields)
      return lines.error(what + ": expected " + std::to_string(fields) +
                         " fields (number, 4 vertices, attributes), found " +
                         std::to_string(lines.size()));
    if (Status st = checkNumber(lines, what, mesh.elementCount(), base);
        !st.ok())
      return st;
    if (Status st = readTet(lines, what, nodeBase, h[2] > 0, mesh); !st.ok())
      return st;
    source.elementLines.push_back(lines.line());
  }
  if (mesh.elementCount() != h[0])
    return Status::invalid(file.name + ": " + std::to_string(h[0]) +
                           " elements announced on its first line, " +
                           std::to_string(mesh.elementCount()) + " found");
  source.elementFile = file.name;
  return Status::success();
}

} // namespace

Expected<Mesh> easyml::rt::parseTetGenMesh(const MeshText &node,
                                           const MeshText &ele,
                                           const MeshText *fibres,
                                           const MeshCheckOptions &options) {
  Mesh mesh;
  MeshSource source;
  source.orientation = Orientation::Free;
  int64_t base = 0;
  if (Status st = readNodes(node, mesh, base); !st.ok())
    return st;
  if (Status st = readEles(ele, base, mesh, source); !st.ok())
    return st;
  if (fibres) {
    Expected<FibreData> data = parseFibreFile(*fibres);
    if (!data.ok())
      return data.status();
    attachFibres(data.take(), fibres->name, mesh, source);
  }
  if (Status st = checkMesh(mesh, source, options); !st.ok())
    return st;
  return mesh;
}

Expected<Mesh> easyml::rt::readTetGenMesh(const TetGenFiles &files,
                                          const MeshCheckOptions &options) {
  Expected<MeshText> node = readMeshText(files.node);
  if (!node.ok())
    return node.status();
  Expected<MeshText> ele = readMeshText(files.ele);
  if (!ele.ok())
    return ele.status();
  if (files.fibres.empty())
    return parseTetGenMesh(*node, *ele, nullptr, options);
  Expected<MeshText> fibres = readMeshText(files.fibres);
  if (!fibres.ok())
    return fibres.status();
  return parseTetGenMesh(*node, *ele, &*fibres, options);
}
