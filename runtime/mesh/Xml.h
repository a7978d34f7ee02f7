//===- Xml.h - the XML a .vtu file is written in ----------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A small XML reader for VTK's XML files: elements with their attributes,
// their line and their content (the text between the start and end tags),
// nested at most kMaxDepth deep. Declarations, comments and DOCTYPEs are
// skipped. The content of an AppendedData element is not parsed (raw
// binary may hold any byte); its reader refuses it anyway.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MESH_XML_H
#define EASYML_RUNTIME_MESH_XML_H

#include "easyml/Runtime/Mesh/MeshReaders.h"
#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace easyml::rt::mesh {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<XmlElement> children;
  /// The text between the start and end tags (children's markup included);
  /// a view into the parsed file's text.
  std::string_view content;
  int64_t line = 0;

  /// The attribute's value, or null.
  const std::string *attribute(std::string_view name) const;
  /// The children named `name`.
  std::vector<const XmlElement *> childrenNamed(std::string_view name) const;
};

/// VTK files nest five deep; deeper is not a mesh.
constexpr int kMaxDepth = 64;

/// The root element of `file`; an Invalid error "NAME:LINE: what" on
/// malformed XML. The result views `file.text`: keep it alive.
Expected<XmlElement> parseXml(const MeshText &file);

} // namespace easyml::rt::mesh

#endif // EASYML_RUNTIME_MESH_XML_H
