//===- CheckFibres.cpp - one unit fibre (and sheet) per element -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "MeshCheckParts.h"

#include <cmath>
#include <cstdio>

using namespace easyml::rt;
using namespace easyml::rt::mesh;

namespace {

double dot(const Vec3 &a, const Vec3 &b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

void scale(Vec3 &a, double s) {
  a.x *= s;
  a.y *= s;
  a.z *= s;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string text(const Vec3 &a) {
  return number(a.x) + " " + number(a.y) + " " + number(a.z);
}

/// Normalises `d` when its length is within `tol` of 1.
Status normalise(Vec3 &d, int64_t e, const char *which, const Locator &where,
                 double tol) {
  double length = std::sqrt(dot(d, d));
  if (std::fabs(length - 1) <= tol) {
    scale(d, 1 / length);
    return Status::success();
  }
  std::string what = where.direction(e, which) + " (" + text(d) + ")";
  if (!(length > 0))
    return Status::invalid(what + " is zero: every element needs a " + which +
                           " direction");
  return Status::invalid(what + " has length " + number(length) + "; " + which +
                         " directions must be unit vectors (within " +
                         number(tol) + "): normalise them");
}

/// Makes sheet `s` orthogonal to unit fibre `f` when they are nearly so.
Status orthogonalise(const Vec3 &f, Vec3 &s, int64_t e, const Locator &where,
                     double tol) {
  double c = dot(f, s);
  if (std::fabs(c) > tol)
    return Status::invalid(where.direction(e, "sheet") + " (" + text(s) +
                           ") is not orthogonal to its fibre (" + text(f) +
                           "): their cosine is " + number(c) + ", more than " +
                           number(tol));
  s = {s.x - c * f.x, s.y - c * f.y, s.z - c * f.z};
  scale(s, 1 / std::sqrt(dot(s, s)));
  return Status::success();
}

Status checkCount(const Mesh &mesh, const Locator &where) {
  const MeshSource &src = where.source();
  int64_t n = static_cast<int64_t>(mesh.fibres.size());
  if (n == mesh.elementCount() &&
      (mesh.sheets.empty() || mesh.sheets.size() == mesh.fibres.size()))
    return Status::success();
  std::string file = src.fibreFile.empty() ? "mesh" : src.fibreFile;
  if (n != mesh.elementCount())
    return Status::invalid(
        file + ": " + std::to_string(n) + " fibre directions for " +
        std::to_string(mesh.elementCount()) +
        " elements: the fibre file needs one per element, in the order of "
        "the elements" +
        (src.elementFile.empty() ? "" : " in " + src.elementFile));
  return Status::invalid(file + ": " + std::to_string(mesh.sheets.size()) +
                         " sheet directions for " + std::to_string(n) +
                         " fibres: give one per element or none");
}

} // namespace

Status mesh::checkFibres(Mesh &mesh, const Locator &where,
                         const MeshCheckOptions &options) {
  if (mesh.fibres.empty() && mesh.sheets.empty())
    return Status::success();
  if (Status st = checkCount(mesh, where); !st.ok())
    return st;
  double tol = options.directionTolerance;
  for (int64_t e = 0; e < mesh.elementCount(); ++e) {
    if (Status st = normalise(mesh.fibres[e], e, "fibre", where, tol); !st.ok())
      return st;
    if (mesh.sheets.empty())
      continue;
    if (Status st = normalise(mesh.sheets[e], e, "sheet", where, tol); !st.ok())
      return st;
    if (Status st =
            orthogonalise(mesh.fibres[e], mesh.sheets[e], e, where, tol);
        !st.ok())
      return st;
  }
  return Status::success();
}
