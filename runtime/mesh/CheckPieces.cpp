//===- CheckPieces.cpp - one connected piece, every vertex used -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Elements that share a vertex are connected; a mesh's pieces are the
// connected components of that graph, found by union-find over vertices.
//
//===----------------------------------------------------------------------===//

#include "MeshCheckParts.h"

#include <algorithm>
#include <numeric>

using namespace easyml::rt;
using namespace easyml::rt::mesh;

namespace {

class UnionFind {
public:
  explicit UnionFind(int64_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), int64_t(0));
  }
  int64_t find(int64_t a) {
    while (parent_[a] != a)
      a = parent_[a] = parent_[parent_[a]];
    return a;
  }
  void join(int64_t a, int64_t b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent_[std::max(a, b)] = std::min(a, b);
  }

private:
  std::vector<int64_t> parent_;
};

/// A piece: its element count and its first element.
struct Piece {
  int64_t elements = 0, first = -1;
};

std::vector<Piece> findPieces(const Mesh &mesh) {
  UnionFind sets(mesh.pointCount());
  for (int64_t e = 0; e < mesh.elementCount(); ++e) {
    const int64_t *v = mesh.elementVertices(e);
    for (int k = 1; k < vertexCount(mesh.types[e]); ++k)
      sets.join(v[0], v[k]);
  }
  std::vector<int64_t> pieceOfRoot(mesh.pointCount(), -1);
  std::vector<Piece> pieces;
  for (int64_t e = 0; e < mesh.elementCount(); ++e) {
    int64_t &p = pieceOfRoot[sets.find(mesh.elementVertices(e)[0])];
    if (p < 0) {
      p = static_cast<int64_t>(pieces.size());
      pieces.push_back({0, e});
    }
    ++pieces[p].elements;
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece &a, const Piece &b) {
    return a.elements != b.elements ? a.elements > b.elements
                                    : a.first < b.first;
  });
  return pieces;
}

/// "3 disconnected pieces of 1200, 24 and 1 elements (the second starts at
/// element 1200, ...)".
std::string describe(const std::vector<Piece> &pieces) {
  std::string sizes, starts;
  size_t shown = std::min<size_t>(pieces.size(), 8);
  for (size_t i = 0; i < shown; ++i) {
    std::string sep = i == 0 ? "" : i + 1 == pieces.size() ? " and " : ", ";
    sizes += sep + std::to_string(pieces[i].elements);
    if (i > 0)
      starts += (i == 1 ? "" : ", ") + std::to_string(pieces[i].first);
  }
  if (shown < pieces.size())
    sizes += ", ...";
  return std::to_string(pieces.size()) + " disconnected pieces of " + sizes +
         " elements (the smaller ones hold elements " + starts +
         (shown < pieces.size() ? ", ..." : "") + ")";
}

void noteUnusedVertices(Mesh &mesh) {
  std::vector<bool> used(mesh.pointCount(), false);
  for (int64_t v : mesh.vertices)
    used[v] = true;
  int64_t unused = std::count(used.begin(), used.end(), false);
  if (!unused)
    return;
  int64_t first = std::find(used.begin(), used.end(), false) - used.begin();
  std::string v = std::to_string(first);
  mesh.notes.push_back(unused == 1
                           ? "1 vertex in no element (vertex " + v +
                                 ") takes no part in the tissue"
                           : std::to_string(unused) +
                                 " vertices in no element (the first: vertex " +
                                 v + ") take no part in the tissue");
}

} // namespace

Status mesh::checkPieces(Mesh &mesh, const Locator &where,
                         const MeshCheckOptions &options) {
  std::vector<Piece> pieces = findPieces(mesh);
  if (pieces.size() > 1) {
    std::string what = "the mesh is in " + describe(pieces);
    if (!options.allowDisconnected)
      return Status::invalid(
          where.element(pieces[1].first) + " is not connected to element " +
          std::to_string(pieces[0].first) + ": " + what +
          "; a tissue is one piece: remove the smaller pieces, or allow "
          "disconnected meshes");
    mesh.notes.push_back(what);
  }
  noteUnusedVertices(mesh);
  return Status::success();
}
