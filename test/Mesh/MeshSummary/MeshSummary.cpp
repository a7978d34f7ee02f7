//===- MeshSummary.cpp - what a mesh file holds, for the tests ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// easyml-mesh-summary opencarp NAME            (NAME.pts, .elem, .lon)
// easyml-mesh-summary tetgen NODE ELE [FIBRES]
// easyml-mesh-summary vtu FILE
//
// Reads the mesh and prints its counts, its tags, the sum of its
// tetrahedra's volumes and the reader's notes; or prints the reader's error
// to stderr and exits 1.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Mesh/MeshReaders.h"

#include <cstdio>
#include <map>
#include <string>

using namespace easyml::rt;

namespace {

Expected<Mesh> read(int argc, char **argv) {
  std::string format = argc > 1 ? argv[1] : "";
  if (format == "opencarp" && argc == 3)
    return readOpenCarpMesh(OpenCarpFiles::fromMeshName(argv[2]));
  if (format == "tetgen" && (argc == 4 || argc == 5))
    return readTetGenMesh({argv[2], argv[3], argc == 5 ? argv[4] : ""});
  if (format == "vtu" && argc == 3)
    return readVtuMesh(argv[2]);
  return Status::invalid("usage: easyml-mesh-summary opencarp NAME | tetgen "
                         "NODE ELE [FIBRES] | vtu FILE");
}

double tetrahedraVolume(const Mesh &m) {
  double sum = 0;
  for (int64_t e = 0; e < m.elementCount(); ++e) {
    if (m.types[e] != ElementType::Tetrahedron)
      continue;
    const int64_t *v = m.elementVertices(e);
    const Vec3 &a = m.points[v[0]], &b = m.points[v[1]], &c = m.points[v[2]],
               &d = m.points[v[3]];
    Vec3 u{b.x - a.x, b.y - a.y, b.z - a.z}, w{c.x - a.x, c.y - a.y, c.z - a.z},
        t{d.x - a.x, d.y - a.y, d.z - a.z};
    sum += (u.x * (w.y * t.z - w.z * t.y) - u.y * (w.x * t.z - w.z * t.x) +
            u.z * (w.x * t.y - w.y * t.x)) /
           6;
  }
  return sum;
}

} // namespace

int main(int argc, char **argv) {
  Expected<Mesh> m = read(argc, argv);
  if (!m.ok()) {
    std::fprintf(stderr, "easyml-mesh-summary: error: %s\n",
                 m.status().message().c_str());
    return 1;
  }
  int64_t tets = 0;
  std::map<int32_t, int64_t> tags;
  for (int64_t e = 0; e < m->elementCount(); ++e) {
    tets += m->types[e] == ElementType::Tetrahedron;
    ++tags[m->tags[e]];
  }
  std::printf("%lld vertices, %lld elements (%lld tetrahedra, %lld "
              "hexahedra), unit '%s'\n",
              (long long)m->pointCount(), (long long)m->elementCount(),
              (long long)tets, (long long)(m->elementCount() - tets),
              m->lengthUnit.c_str());
  std::printf("tetrahedra volume %.6g\n", tetrahedraVolume(*m));
  for (auto [tag, n] : tags)
    std::printf("tag %d: %lld elements\n", tag, (long long)n);
  std::printf("fibres %zu, sheets %zu\n", m->fibres.size(), m->sheets.size());
  for (const std::string &note : m->notes)
    std::printf("note: %s\n", note.c_str());
  return 0;
}
