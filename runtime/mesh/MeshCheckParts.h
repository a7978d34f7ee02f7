//===- MeshCheckParts.h - the parts of checkMesh ----------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// checkMesh runs these in order, each on a mesh the previous ones passed:
// vertex indices, element shapes, fibres, connectivity. Each returns the
// first problem as an Invalid error, with how many more of its kind there
// are.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MESH_MESHCHECKPARTS_H
#define EASYML_RUNTIME_MESH_MESHCHECKPARTS_H

#include "easyml/Runtime/Mesh/MeshCheck.h"

#include <string>

namespace easyml::rt::mesh {

/// Says where an element or its fibre is, for messages.
class Locator {
public:
  explicit Locator(const MeshSource &source) : source_(source) {}
  /// "FILE:LINE: element E" (or "FILE: element E" without lines).
  std::string element(int64_t e) const;
  /// "FIBREFILE:LINE: the fibre of element E" and the same for "sheet".
  std::string direction(int64_t e, const char *which) const;
  const MeshSource &source() const { return source_; }

private:
  const MeshSource &source_;
};

/// " (N elements in all)" when `count` > 1, else "".
std::string inAll(int64_t count, const char *what);

/// Every element's vertex indices lie in [0, pointCount).
Status checkIndices(const Mesh &mesh, const Locator &where);
/// No element degenerate or, where the format fixes orientation, inverted;
/// reorients tetrahedra where it does not.
Status checkShapes(Mesh &mesh, const Locator &where,
                   const MeshCheckOptions &options);
/// One unit fibre (and sheet, orthogonal to it) per element, normalised
/// within the tolerance.
Status checkFibres(Mesh &mesh, const Locator &where,
                   const MeshCheckOptions &options);
/// One connected piece (or a note where allowed); a note on vertices in no
/// element.
Status checkPieces(Mesh &mesh, const Locator &where,
                   const MeshCheckOptions &options);

} // namespace easyml::rt::mesh

#endif // EASYML_RUNTIME_MESH_MESHCHECKPARTS_H
