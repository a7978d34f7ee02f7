//===- MeshTestUtil.h - small meshes for the mesh tests ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_UNITTESTS_MESHTESTUTIL_H
#define EASYML_UNITTESTS_MESHTESTUTIL_H

#include "easyml/Runtime/Mesh/MeshReaders.h"

#include <gtest/gtest.h>

#include <string>

namespace easyml::rt::test {

/// Passes when `text` holds `part`, and shows both otherwise.
inline ::testing::AssertionResult contains(const std::string &text,
                                           const std::string &part) {
  if (text.find(part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "'" << text << "'\n  does not contain\n'" << part << "'";
}

/// The error message of `m` ("" when it is a mesh).
inline std::string errorOf(const Expected<Mesh> &m) {
  return m.ok() ? std::string() : m.status().message();
}

inline MeshText file(const std::string &name, const std::string &text) {
  return MeshText{name, text};
}

/// Two positively oriented tetrahedra sharing the face 1 2 3, in
/// micrometres: openCARP's .pts and .elem, tags 1 and 2.
inline const char *twoTetPts() {
  return "5\n0 0 0\n1000 0 0\n0 1000 0\n0 0 1000\n1000 1000 1000\n";
}
inline const char *twoTetElem() { return "2\nTt 0 1 2 3 1\nTt 1 2 3 4 2\n"; }

} // namespace easyml::rt::test

#endif // EASYML_UNITTESTS_MESHTESTUTIL_H
