//===- MeshReaders.h - openCARP, TetGen, VTK meshes -------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Each reader returns the mesh after checkMesh (MeshCheck.h), or an Invalid
// error naming the file, the line (or element) and the fix; a file that
// cannot be read is a Failed error. The formats, their conventions and the
// subset of each that is read are described in docs/meshes.md:
//
//   openCARP   NAME.pts, NAME.elem, NAME.lon (text; Tt and Hx elements)
//   TetGen     NAME.node, NAME.ele (text), with a fibre file .lon, .axi or
//              .ortho (Chaste's formats)
//   VTK        NAME.vtu (XML UnstructuredGrid, ascii or inline base64 data,
//              uncompressed; tetrahedra and hexahedra)
//
// The parse* functions take the files' contents (and names, for the
// messages); the read* functions read the files and call them.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MESH_MESHREADERS_H
#define EASYML_RUNTIME_MESH_MESHREADERS_H

#include "easyml/Runtime/Mesh/Mesh.h"
#include "easyml/Runtime/Mesh/MeshCheck.h"
#include "easyml/Runtime/Support/Status.h"

#include <string>

namespace easyml::rt {

/// A file's name (for messages) and its whole contents.
struct MeshText {
  std::string name;
  std::string text;
};

/// Reads the file at `path` whole; a Failed error when it cannot.
Expected<MeshText> readMeshText(const std::string &path);

/// The files of an openCARP mesh. `lon` may be empty: no fibres.
struct OpenCarpFiles {
  std::string pts, elem, lon;
  /// NAME.pts, NAME.elem and NAME.lon (the last only where it exists), as
  /// openCARP's -meshname NAME reads them.
  static OpenCarpFiles fromMeshName(const std::string &name);
};

Expected<Mesh> readOpenCarpMesh(const OpenCarpFiles &files,
                                const MeshCheckOptions &options = {});
/// `lon` may be null: no fibres.
Expected<Mesh> parseOpenCarpMesh(const MeshText &pts, const MeshText &elem,
                                 const MeshText *lon,
                                 const MeshCheckOptions &options = {});

/// The files of a TetGen mesh. `fibres` may be empty; otherwise its
/// extension says its format: .lon (openCARP), .axi (Chaste: a fibre per
/// element) or .ortho (Chaste: fibre, sheet and normal per element).
struct TetGenFiles {
  std::string node, ele, fibres;
};

Expected<Mesh> readTetGenMesh(const TetGenFiles &files,
                              const MeshCheckOptions &options = {});
/// `fibres` may be null; its name's extension gives its format.
Expected<Mesh> parseTetGenMesh(const MeshText &node, const MeshText &ele,
                               const MeshText *fibres,
                               const MeshCheckOptions &options = {});

/// The cell-data arrays of a .vtu file that hold the tags, fibres and
/// sheets. An empty name takes the first array of the known names (tags:
/// elemTag, tag, tags, region, material, gmsh:physical, CellEntityIds;
/// fibres: fiber, fibre, fibers, fibres; sheets: sheet, sheets; compared
/// without case); a given name must exist.
struct VtuArrays {
  std::string tag, fibre, sheet;
};

Expected<Mesh> readVtuMesh(const std::string &path,
                           const MeshCheckOptions &options = {},
                           const VtuArrays &arrays = {});
Expected<Mesh> parseVtuMesh(const MeshText &vtu,
                            const MeshCheckOptions &options = {},
                            const VtuArrays &arrays = {});

} // namespace easyml::rt

#endif // EASYML_RUNTIME_MESH_MESHREADERS_H
