//===- Mesh.cpp - an unstructured volume mesh of the heart ----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Mesh/Mesh.h"

using namespace easyml::rt;

const char *easyml::rt::elementName(ElementType t) {
  switch (t) {
  case ElementType::Tetrahedron:
    return "tetrahedron";
  case ElementType::Hexahedron:
    return "hexahedron";
  }
  return "element";
}

void Mesh::addElement(ElementType t, const int64_t *v, int32_t tag) {
  types.push_back(t);
  vertices.insert(vertices.end(), v, v + vertexCount(t));
  offsets.push_back(static_cast<int64_t>(vertices.size()));
  tags.push_back(tag);
}
