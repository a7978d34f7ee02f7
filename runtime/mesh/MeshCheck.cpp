//===- MeshCheck.cpp - is a mesh usable for tissue ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "MeshCheckParts.h"

#include "easyml/Runtime/Mesh/MeshCheck.h"

using namespace easyml::rt;
using namespace easyml::rt::mesh;

std::string Locator::element(int64_t e) const {
  std::string at = source_.elementFile.empty() ? "mesh" : source_.elementFile;
  if (e < static_cast<int64_t>(source_.elementLines.size()))
    at += ":" + std::to_string(source_.elementLines[e]);
  return at + ": element " + std::to_string(e);
}

std::string Locator::direction(int64_t e, const char *which) const {
  std::string at = source_.fibreFile.empty() ? "mesh" : source_.fibreFile;
  if (e < static_cast<int64_t>(source_.fibreLines.size()))
    at += ":" + std::to_string(source_.fibreLines[e]);
  return at + ": the " + which + " of element " + std::to_string(e);
}

std::string mesh::inAll(int64_t count, const char *what) {
  if (count < 2)
    return "";
  return " (" + std::to_string(count) + " " + what + " in all)";
}

Status mesh::checkIndices(const Mesh &mesh, const Locator &where) {
  int64_t n = mesh.pointCount(), bad = 0, first = -1, index = 0;
  for (int64_t e = 0; e < mesh.elementCount(); ++e) {
    const int64_t *v = mesh.elementVertices(e);
    for (int k = 0; k < vertexCount(mesh.types[e]); ++k)
      if (v[k] < 0 || v[k] >= n) {
        if (first < 0) {
          first = e;
          index = v[k];
        }
        ++bad;
        break;
      }
  }
  if (first < 0)
    return Status::success();
  return Status::invalid(
      where.element(first) + " refers to vertex " + std::to_string(index) +
      " (counted from 0), but the mesh has " + std::to_string(n) +
      " vertices: the element file does not belong to this vertex file, or "
      "counts its vertices from another number" +
      inAll(bad, "elements with such vertices"));
}

Status easyml::rt::checkMesh(Mesh &mesh, const MeshSource &source,
                             const MeshCheckOptions &options) {
  Locator where(source);
  if (mesh.elementCount() == 0)
    return Status::invalid((source.elementFile.empty() ? std::string("mesh")
                                                       : source.elementFile) +
                           ": the mesh has no elements");
  if (Status st = checkIndices(mesh, where); !st.ok())
    return st;
  if (Status st = checkShapes(mesh, where, options); !st.ok())
    return st;
  if (Status st = checkFibres(mesh, where, options); !st.ok())
    return st;
  return checkPieces(mesh, where, options);
}
