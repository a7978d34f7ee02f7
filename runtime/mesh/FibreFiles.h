//===- FibreFiles.h - fibre and sheet directions per element ----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The fibre files the text readers take: openCARP's .lon and Chaste's .axi
// and .ortho. They are read as they are; whether they have one entry per
// element and unit directions is checkMesh's business.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MESH_FIBREFILES_H
#define EASYML_RUNTIME_MESH_FIBREFILES_H

#include "easyml/Runtime/Mesh/MeshCheck.h"
#include "easyml/Runtime/Mesh/MeshReaders.h"

#include <cstdint>
#include <vector>

namespace easyml::rt::mesh {

/// The directions of a fibre file and the line of each entry.
struct FibreData {
  std::vector<Vec3> fibres, sheets;
  std::vector<int64_t> lines;
};

/// openCARP's .lon: a first line 1 (fibres) or 2 (fibres and sheets), then
/// one line of 3 or 6 numbers per element.
Expected<FibreData> parseLon(const MeshText &file);

/// Chaste's .axi (a fibre per line) or .ortho (fibre, sheet and normal per
/// line: 9 numbers, the normal ignored) after a first line with the entry
/// count; '#' starts a comment.
Expected<FibreData> parseChasteFibres(const MeshText &file, bool ortho);

/// By the extension of the file's name: .lon, .axi or .ortho.
Expected<FibreData> parseFibreFile(const MeshText &file);

/// Gives the mesh the directions and the check their lines.
void attachFibres(FibreData &&data, const std::string &name, Mesh &mesh,
                  MeshSource &source);

} // namespace easyml::rt::mesh

#endif // EASYML_RUNTIME_MESH_FIBREFILES_H
