//===- Mesh.h - an unstructured volume mesh of the heart --------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What the mesh readers (MeshReaders.h) return: vertices, volume elements
// (tetrahedra and hexahedra, mixed), an integer tag per element and the
// fibre (and optionally sheet) direction of each element. Plain data: the
// vectors are the mesh; checkMesh (MeshCheck.h) says whether it is usable.
//
// Vertices and elements are numbered from 0 in file order, whatever the
// file's own numbering (TetGen files may count from 1).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MESH_MESH_H
#define EASYML_RUNTIME_MESH_MESH_H

#include <cstdint>
#include <string>
#include <vector>

namespace easyml::rt {

/// A point or a direction in space.
struct Vec3 {
  double x = 0, y = 0, z = 0;
};

/// The volume elements a mesh may hold; the value is the vertex count.
enum class ElementType : uint8_t {
  /// Four vertices. Positively oriented when (v1-v0) x (v2-v0) . (v3-v0)
  /// > 0, that is, v0 v1 v2 counter-clockwise seen from v3.
  Tetrahedron = 4,
  /// Eight vertices in VTK's order: v0..v3 one face, counter-clockwise
  /// seen from the opposite face v4..v7, with v4+i joined to vi by an edge.
  Hexahedron = 8,
};

/// The number of vertices of an element of type `t`.
inline int vertexCount(ElementType t) { return static_cast<int>(t); }

/// "tetrahedron", "hexahedron".
const char *elementName(ElementType t);

struct Mesh {
  /// Vertex coordinates, in the file's length unit (see `lengthUnit`).
  std::vector<Vec3> points;
  /// "um" where the format fixes the unit (openCARP: micrometres), empty
  /// where it does not (TetGen, VTK: the unit of whoever wrote the file).
  std::string lengthUnit;

  /// The type of each element.
  std::vector<ElementType> types;
  /// Element e's vertices are vertices[offsets[e] .. offsets[e+1]):
  /// `offsets` has one entry more than `types`, starting at 0.
  std::vector<int64_t> offsets{0};
  /// Indices into `points`, element after element.
  std::vector<int64_t> vertices;
  /// The tag (region) of each element: 0 where the file gives none.
  std::vector<int32_t> tags;

  /// The fibre direction of each element (unit vectors after checkMesh),
  /// or empty when the mesh has no fibres.
  std::vector<Vec3> fibres;
  /// The sheet direction of each element, or empty: only with fibres.
  std::vector<Vec3> sheets;

  /// What checkMesh found worth saying that is not an error (vertices in
  /// no element, elements it reoriented, fibres it normalised), one line
  /// each, lower-case.
  std::vector<std::string> notes;

  int64_t elementCount() const { return static_cast<int64_t>(types.size()); }
  int64_t pointCount() const { return static_cast<int64_t>(points.size()); }
  /// The vertices of element `e`: a pointer to its first and its count.
  const int64_t *elementVertices(int64_t e) const {
    return vertices.data() + offsets[e];
  }
  int64_t *elementVertices(int64_t e) { return vertices.data() + offsets[e]; }

  /// Appends an element (used by the readers; `v` holds vertexCount(t)
  /// indices, checked by checkMesh, not here).
  void addElement(ElementType t, const int64_t *v, int32_t tag);
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_MESH_MESH_H
