//===- CheckShapes.cpp - degenerate, inverted and twisted elements --------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "ElementShape.h"
#include "MeshCheckParts.h"

#include <cstdio>
#include <utility>

using namespace easyml::rt;
using namespace easyml::rt::mesh;

namespace {

/// The first element of each kind of problem and how many there are.
struct Findings {
  int64_t first[4] = {-1, -1, -1, -1};
  int64_t count[4] = {0, 0, 0, 0};
  double relative[4] = {0, 0, 0, 0};
  int64_t reoriented = 0, tetrahedra = 0;

  void add(Shape s, int64_t e, double r) {
    int k = static_cast<int>(s);
    if (first[k] < 0) {
      first[k] = e;
      relative[k] = r;
    }
    ++count[k];
  }
};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// "element E (tetrahedron, vertices a b c d)".
std::string describe(const Mesh &mesh, int64_t e, const Locator &where) {
  std::string s =
      where.element(e) + " (" + elementName(mesh.types[e]) + ", vertices";
  const int64_t *v = mesh.elementVertices(e);
  for (int k = 0; k < vertexCount(mesh.types[e]); ++k)
    s += " " + std::to_string(v[k]);
  return s + ")";
}

/// Classifies element `e`; reorients a tetrahedron where orientation is
/// free.
void classify(Mesh &mesh, int64_t e, Orientation orientation, double tol,
              Findings &found) {
  int64_t *v = mesh.elementVertices(e);
  Vec3 p[8];
  int n = vertexCount(mesh.types[e]);
  for (int k = 0; k < n; ++k)
    p[k] = mesh.points[v[k]];
  double rel;
  if (mesh.types[e] == ElementType::Tetrahedron) {
    ++found.tetrahedra;
    Shape s = tetrahedronShape(p, tol, rel);
    if (s == Shape::Inverted && orientation == Orientation::Free) {
      std::swap(v[2], v[3]);
      ++found.reoriented;
    } else if (s != Shape::Good) {
      found.add(s, e, rel);
    }
  } else if (orientation == Orientation::Free) {
    if (hexahedronDegenerate(p, tol, rel))
      found.add(Shape::Degenerate, e, rel);
  } else if (Shape s = hexahedronShape(p, tol, rel); s != Shape::Good) {
    found.add(s, e, rel);
  }
}

Status report(const Mesh &mesh, const Findings &found, const Locator &where,
              double tol) {
  if (int64_t e = found.first[int(Shape::Degenerate)]; e >= 0)
    return Status::invalid(
        describe(mesh, e, where) + " is degenerate: its volume is " +
        number(found.relative[int(Shape::Degenerate)]) +
        " of its diameter cubed (up to " + number(tol) +
        " counts as zero), or two of its vertices coincide; remove it or "
        "move its vertices apart" +
        inAll(found.count[int(Shape::Degenerate)], "degenerate elements"));
  if (int64_t e = found.first[int(Shape::Twisted)]; e >= 0)
    return Status::invalid(
        describe(mesh, e, where) +
        " is twisted: its corners are not all oriented alike, so its "
        "vertices are not in the order of the format (v0..v3 a face, v4+i "
        "joined to vi); reorder them" +
        inAll(found.count[int(Shape::Twisted)], "twisted elements"));
  if (int64_t e = found.first[int(Shape::Inverted)]; e >= 0)
    return Status::invalid(
        describe(mesh, e, where) +
        " is inverted: its volume is negative under the format's orientation "
        "(v0 v1 v2 counter-clockwise seen from v3); " +
        (mesh.types[e] == ElementType::Tetrahedron
             ? "swap two of its vertices, for example the last two"
             : "swap its two faces, v0..v3 with v4..v7") +
        inAll(found.count[int(Shape::Inverted)], "inverted elements"));
  return Status::success();
}

} // namespace

Status mesh::checkShapes(Mesh &mesh, const Locator &where,
                         const MeshCheckOptions &options) {
  Findings found;
  Orientation orientation = where.source().orientation;
  for (int64_t e = 0; e < mesh.elementCount(); ++e)
    classify(mesh, e, orientation, options.degenerateVolume, found);
  if (Status st = report(mesh, found, where, options.degenerateVolume);
      !st.ok())
    return st;
  if (found.reoriented)
    mesh.notes.push_back(
        std::to_string(found.reoriented) + " of " +
        std::to_string(found.tetrahedra) +
        " tetrahedra were negatively oriented and were reoriented (their "
        "last two vertices swapped)" +
        (found.reoriented < found.tetrahedra
             ? std::string("; the file mixes both orientations")
             : std::string()));
  return Status::success();
}
