//===- OpenCarpReader.cpp - openCARP's .pts, .elem and .lon ---------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// openCARP's text mesh: NAME.pts (a first line with the vertex count, then
// x y z per line, in micrometres), NAME.elem (a first line with the element
// count, then a type code, its vertex indices counted from 0 and an
// optional tag per line) and NAME.lon (FibreFiles.h). Tetrahedra (Tt) and
// hexahedra (Hx) are read; openCARP's other types are refused by name.
//
//===----------------------------------------------------------------------===//

#include "FibreFiles.h"
#include "TextLines.h"

#include "easyml/Runtime/Mesh/MeshReaders.h"

#include <algorithm>

#include <sys/stat.h>

using namespace easyml::rt;
using namespace easyml::rt::mesh;

namespace {

/// Reads the count on the first line of `lines`; `what` names the items.
Status readCount(TextLines &lines, const std::string &what, int64_t &count) {
  if (!lines.next())
    return Status::invalid(lines.name() +
                           ": empty file: its first line "
                           "should be the number of " +
                           what);
  if (lines.size() != 1 || !parseInt(lines[0], count) || count < 0)
    return lines.error("the first line should be the number of " + what +
                       ", not '" + std::string(lines[0]) +
                       (lines.size() > 1 ? " ...'" : "'"));
  return Status::success();
}

/// The error after the last item: fewer or more lines than announced.
Status countMismatch(const TextLines &lines, const std::string &what,
                     int64_t announced, int64_t found) {
  return Status::invalid(lines.name() + ": " + std::to_string(announced) + " " +
                         what + " announced on line 1, " +
                         std::to_string(found) +
                         " found: correct the count or the lines");
}

Status readPoints(const MeshText &file, Mesh &mesh) {
  TextLines lines(file);
  int64_t count;
  if (Status st = readCount(lines, "vertices", count); !st.ok())
    return st;
  mesh.points.reserve(static_cast<size_t>(std::min<int64_t>(count, 1 << 24)));
  while (lines.next()) {
    std::string what = "vertex " + std::to_string(mesh.points.size());
    if (lines.size() != 3)
      return lines.error(what + ": expected 3 coordinates x y z, found " +
                         std::to_string(lines.size()) + " fields");
    Vec3 p;
    if (Status st = readVec3(lines, 0, what, p); !st.ok())
      return st;
    mesh.points.push_back(p);
  }
  if (mesh.pointCount() != count)
    return countMismatch(lines, "vertices", count, mesh.pointCount());
  return Status::success();
}

/// openCARP's element types that EasyML does not read, with their names.
const char *unsupportedType(std::string_view code) {
  static const std::pair<const char *, const char *> types[] = {
      {"Tr", "a triangle"}, {"Qd", "a quadrilateral"}, {"Ln", "a line"},
      {"Cx", "a line"},     {"Py", "a pyramid"},       {"Pr", "a prism"}};
  for (auto &[c, name] : types)
    if (code == c)
      return name;
  return nullptr;
}

Status readElement(const TextLines &lines, Mesh &mesh) {
  std::string what = "element " + std::to_string(mesh.elementCount());
  std::string_view code = lines[0];
  ElementType type;
  if (code == "Tt")
    type = ElementType::Tetrahedron;
  else if (code == "Hx")
    type = ElementType::Hexahedron;
  else if (const char *name = unsupportedType(code))
    return lines.error(what + " is " + name + " ('" + std::string(code) +
                       "'), which is not supported: a tissue mesh holds "
                       "volume elements, tetrahedra ('Tt') and hexahedra "
                       "('Hx'); remove the others from the mesh");
  else
    return lines.error(what + ": unknown element type '" + std::string(code) +
                       "' (openCARP's types: Tt, Hx, Py, Pr, Qd, Tr, Ln)");
  size_t n = vertexCount(type);
  if (lines.size() != n + 1 && lines.size() != n + 2)
    return lines.error(what + ": '" + std::string(code) + "' takes " +
                       std::to_string(n) +
                       " vertex indices and an optional tag, found " +
                       std::to_string(lines.size() - 1) + " fields");
  int64_t v[8];
  for (size_t k = 0; k < n; ++k)
    if (!parseInt(lines[k + 1], v[k]))
      return lines.error(what + ": vertex index '" + std::string(lines[k + 1]) +
                         "' is not an integer");
  int32_t tag = 0;
  if (lines.size() == n + 2 && !parseTag(lines[n + 1], tag))
    return lines.error(what + ": tag '" + std::string(lines[n + 1]) +
                       "' is not an integer of 32 bits");
  mesh.addElement(type, v, tag);
  return Status::success();
}

Status readElements(const MeshText &file, Mesh &mesh, MeshSource &source) {
  TextLines lines(file);
  int64_t count;
  if (Status st = readCount(lines, "elements", count); !st.ok())
    return st;
  while (lines.next()) {
    if (Status st = readElement(lines, mesh); !st.ok())
      return st;
    source.elementLines.push_back(lines.line());
  }
  if (mesh.elementCount() != count)
    return countMismatch(lines, "elements", count, mesh.elementCount());
  source.elementFile = file.name;
  return Status::success();
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

} // namespace

OpenCarpFiles OpenCarpFiles::fromMeshName(const std::string &name) {
  OpenCarpFiles f{name + ".pts", name + ".elem", name + ".lon"};
  if (!exists(f.lon))
    f.lon.clear();
  return f;
}

Expected<Mesh> easyml::rt::parseOpenCarpMesh(const MeshText &pts,
                                             const MeshText &elem,
                                             const MeshText *lon,
                                             const MeshCheckOptions &options) {
  Mesh mesh;
  mesh.lengthUnit = "um";
  MeshSource source;
  source.orientation = Orientation::Free;
  if (Status st = readPoints(pts, mesh); !st.ok())
    return st;
  if (Status st = readElements(elem, mesh, source); !st.ok())
    return st;
  if (lon) {
    Expected<FibreData> fibres = parseLon(*lon);
    if (!fibres.ok())
      return fibres.status();
    attachFibres(fibres.take(), lon->name, mesh, source);
  }
  if (Status st = checkMesh(mesh, source, options); !st.ok())
    return st;
  return mesh;
}

Expected<Mesh> easyml::rt::readOpenCarpMesh(const OpenCarpFiles &files,
                                            const MeshCheckOptions &options) {
  Expected<MeshText> pts = readMeshText(files.pts);
  if (!pts.ok())
    return pts.status();
  Expected<MeshText> elem = readMeshText(files.elem);
  if (!elem.ok())
    return elem.status();
  if (files.lon.empty())
    return parseOpenCarpMesh(*pts, *elem, nullptr, options);
  Expected<MeshText> lon = readMeshText(files.lon);
  if (!lon.ok())
    return lon.status();
  return parseOpenCarpMesh(*pts, *elem, &*lon, options);
}
