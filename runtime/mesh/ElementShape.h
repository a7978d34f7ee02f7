//===- ElementShape.h - volumes and orientation of elements -----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Whether an element is usable: its volume against its diameter (the
// longest distance between two of its vertices) cubed, and the sign of that
// volume under VTK's vertex order.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MESH_ELEMENTSHAPE_H
#define EASYML_RUNTIME_MESH_ELEMENTSHAPE_H

#include "easyml/Runtime/Mesh/Mesh.h"

namespace easyml::rt::mesh {

enum class Shape {
  Good,
  /// Its volume (at some corner, for a hexahedron) is within the tolerance
  /// of zero, or two of its vertices coincide.
  Degenerate,
  /// Negatively oriented (every corner, for a hexahedron).
  Inverted,
  /// A hexahedron whose corners are not all oriented alike: its vertices
  /// are not in the order the format prescribes.
  Twisted,
};

/// The shape of a tetrahedron; `relative` is 6 V / diameter^3, signed.
Shape tetrahedronShape(const Vec3 p[4], double tolerance, double &relative);

/// The shape of a hexahedron in VTK's vertex order; `relative` is the
/// signed 6 V / diameter^3 of the corner nearest to zero.
Shape hexahedronShape(const Vec3 p[8], double tolerance, double &relative);

/// Whether a hexahedron whose vertex order is not known is degenerate: two
/// vertices coincide, or all eight lie in a plane. `relative` is the
/// largest 6 V / diameter^3 of the tetrahedra four of them span.
bool hexahedronDegenerate(const Vec3 p[8], double tolerance, double &relative);

} // namespace easyml::rt::mesh

#endif // EASYML_RUNTIME_MESH_ELEMENTSHAPE_H
