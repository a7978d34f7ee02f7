//===- ElementShape.cpp - volumes and orientation of elements -------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "ElementShape.h"

#include <algorithm>
#include <cmath>

using namespace easyml::rt;
using namespace easyml::rt::mesh;

namespace {

Vec3 sub(const Vec3 &a, const Vec3 &b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}

/// det[b-a, c-a, d-a]: six times the signed volume of tetrahedron abcd.
double volume6(const Vec3 &a, const Vec3 &b, const Vec3 &c, const Vec3 &d) {
  Vec3 u = sub(b, a), v = sub(c, a), w = sub(d, a);
  return u.x * (v.y * w.z - v.z * w.y) - u.y * (v.x * w.z - v.z * w.x) +
         u.z * (v.x * w.y - v.y * w.x);
}

double distance(const Vec3 &a, const Vec3 &b) {
  Vec3 d = sub(a, b);
  return std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
}

double diameter(const Vec3 *p, int n) {
  double l = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      l = std::max(l, distance(p[i], p[j]));
  return l;
}

/// For each vertex of a hexahedron in VTK's order, its three neighbours in
/// the order that makes the corner's volume positive.
constexpr int kCorners[8][3] = {{1, 3, 4}, {2, 0, 5}, {3, 1, 6}, {0, 2, 7},
                                {7, 5, 0}, {4, 6, 1}, {5, 7, 2}, {6, 4, 3}};

} // namespace

Shape mesh::tetrahedronShape(const Vec3 p[4], double tolerance,
                             double &relative) {
  double l = diameter(p, 4);
  relative = l > 0 ? volume6(p[0], p[1], p[2], p[3]) / (l * l * l) : 0;
  if (!(std::fabs(relative) > tolerance))
    return Shape::Degenerate;
  return relative < 0 ? Shape::Inverted : Shape::Good;
}

Shape mesh::hexahedronShape(const Vec3 p[8], double tolerance,
                            double &relative) {
  double l = diameter(p, 8);
  if (!(l > 0)) {
    relative = 0;
    return Shape::Degenerate;
  }
  int positive = 0, negative = 0;
  relative = HUGE_VAL;
  for (int i = 0; i < 8; ++i) {
    const int *n = kCorners[i];
    double r = volume6(p[i], p[n[0]], p[n[1]], p[n[2]]) / (l * l * l);
    if (std::fabs(r) < std::fabs(relative))
      relative = r;
    if (r > tolerance)
      ++positive;
    else if (r < -tolerance)
      ++negative;
  }
  if (!(std::fabs(relative) > tolerance))
    return Shape::Degenerate;
  if (positive && negative)
    return Shape::Twisted;
  return negative ? Shape::Inverted : Shape::Good;
}

bool mesh::hexahedronDegenerate(const Vec3 p[8], double tolerance,
                                double &relative) {
  double l = diameter(p, 8);
  relative = 0;
  if (!(l > 0))
    return true;
  for (int i = 0; i < 8; ++i)
    for (int j = i + 1; j < 8; ++j)
      if (!(distance(p[i], p[j]) > tolerance * l))
        return true;
  for (int a = 0; a < 8; ++a)
    for (int b = a + 1; b < 8; ++b)
      for (int c = b + 1; c < 8; ++c)
        for (int d = c + 1; d < 8; ++d)
          relative =
              std::max(relative, std::fabs(volume6(p[a], p[b], p[c], p[d])) /
                                     (l * l * l));
  return !(relative > tolerance);
}
