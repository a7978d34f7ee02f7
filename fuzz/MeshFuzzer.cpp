//===- MeshFuzzer.cpp - libFuzzer entry for the mesh readers --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Parses arbitrary bytes as a mesh: the first byte picks the format (and
// the fibre file's), the rest is split at NUL bytes into the format's files
// (openCARP: .pts, .elem and an optional .lon; TetGen: .node, .ele and an
// optional fibre file; VTK: one .vtu). Any crash or sanitizer report is a
// bug: a bad mesh must only be refused with a message, and a mesh that is
// read must hold what checkMesh promises.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Mesh/MeshReaders.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace easyml::rt;

namespace {

std::vector<std::string> split(const uint8_t *data, size_t size) {
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0)
      parts.emplace_back();
    else
      parts.back() += static_cast<char>(data[i]);
  }
  return parts;
}

/// What every mesh a reader returns must satisfy.
void checkInvariants(const Mesh &m) {
  size_t n = m.types.size();
  if (m.offsets.size() != n + 1 || m.tags.size() != n ||
      m.offsets.back() != static_cast<int64_t>(m.vertices.size()) ||
      (!m.fibres.empty() && m.fibres.size() != n) ||
      (!m.sheets.empty() && m.sheets.size() != m.fibres.size()))
    std::abort();
  for (int64_t v : m.vertices)
    if (v < 0 || v >= m.pointCount())
      std::abort();
  for (const std::string &note : m.notes)
    if (note.empty())
      std::abort();
}

Expected<Mesh> parse(uint8_t selector, const std::vector<std::string> &p,
                     const MeshCheckOptions &options) {
  static const char *fibreNames[] = {"f.lon", "f.axi", "f.ortho"};
  MeshText a{"a", p[0]}, b{"b", p.size() > 1 ? p[1] : ""},
      c{fibreNames[(selector >> 2) % 3], p.size() > 2 ? p[2] : ""};
  switch (selector & 3) {
  case 0:
    return parseOpenCarpMesh(a, b, p.size() > 2 ? &c : nullptr, options);
  case 1:
    return parseTetGenMesh(a, b, p.size() > 2 ? &c : nullptr, options);
  default:
    return parseVtuMesh(a, options);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  MeshCheckOptions options;
  options.allowDisconnected = data[0] & 0x80;
  Expected<Mesh> m = parse(data[0], split(data + 1, size - 1), options);
  if (!m.ok()) {
    if (m.status().message().empty())
      std::abort(); // a refusal always says why
    return 0;
  }
  checkInvariants(*m);
  return 0;
}
