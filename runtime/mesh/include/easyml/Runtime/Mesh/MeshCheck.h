//===- MeshCheck.h - is a mesh usable for tissue ----------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The one check every mesh reader runs on what it read: vertex indices in
// range, no degenerate elements, no inverted ones where the format fixes
// the orientation, one unit fibre (and sheet) per element, one connected
// piece. The first problem found is an Invalid error that names the file,
// the line or the element, and the fix; what is merely worth knowing
// (vertices in no element, elements reoriented, fibres normalised) is added
// to Mesh::notes.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MESH_MESHCHECK_H
#define EASYML_RUNTIME_MESH_MESHCHECK_H

#include "easyml/Runtime/Mesh/Mesh.h"
#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace easyml::rt {

/// Whether a format fixes the orientation of its elements.
enum class Orientation {
  /// It does (VTK: v0 v1 v2 counter-clockwise seen from v3, and the same
  /// for a hexahedron's faces): a negatively oriented element is an error.
  Defined,
  /// It does not (openCARP, TetGen): negatively oriented tetrahedra are
  /// reoriented (their last two vertices swapped) and counted in a note;
  /// hexahedra, whose vertex order such formats do not fix either, are
  /// only checked for being degenerate.
  Free,
};

/// The tolerances of the check and what it allows.
struct MeshCheckOptions {
  /// An element is degenerate when its volume is at most this fraction of
  /// its longest edge cubed (for a tetrahedron, |6 V| <= tol * L^3; for a
  /// hexahedron, the same at each of its eight corners). A regular
  /// tetrahedron has 6 V / L^3 = 0.71.
  double degenerateVolume = 1e-8;
  /// A fibre or sheet direction whose length differs from 1 by more than
  /// this is an error; by less, it is normalised without a word. A sheet
  /// whose cosine with its fibre exceeds this is an error too; below, it is
  /// made orthogonal to the fibre.
  double directionTolerance = 1e-3;
  /// A mesh in several disconnected pieces is an error unless this is set;
  /// then the pieces are a note.
  bool allowDisconnected = false;
};

/// Where a mesh came from, for the messages.
struct MeshSource {
  /// The file that holds the elements, and the line of each element in it
  /// (empty where the format has no lines, such as VTK's XML: messages
  /// then name the element alone).
  std::string elementFile;
  std::vector<int64_t> elementLines;
  /// The file that holds the fibres (empty: no fibre file), and the line of
  /// each element's fibre (or empty).
  std::string fibreFile;
  std::vector<int64_t> fibreLines;
  Orientation orientation = Orientation::Defined;
};

/// Checks `mesh` and completes it: reorients tetrahedra where the format
/// leaves orientation free, normalises fibres and sheets within the
/// tolerance, and adds notes. An Invalid error on the first problem.
Status checkMesh(Mesh &mesh, const MeshSource &source,
                 const MeshCheckOptions &options = {});

} // namespace easyml::rt

#endif // EASYML_RUNTIME_MESH_MESHCHECK_H
