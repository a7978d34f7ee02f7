//===- VtuReader.cpp - VTK's XML unstructured grid (.vtu) -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A .vtu file with one Piece: Points (3 components), Cells (connectivity,
// offsets and types; tetrahedra, 10, and hexahedra, 12) and CellData
// arrays for the tags, fibres and sheets. Data ascii or inline base64,
// uncompressed (VtuDataArray.h). VTK fixes the orientation of its cells.
//
//===----------------------------------------------------------------------===//

#include "VtuDataArray.h"
#include "Xml.h"

#include "easyml/Runtime/Mesh/MeshReaders.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

using namespace easyml::rt;
using namespace easyml::rt::mesh;

namespace {

/// More points or cells than any mesh has: a damaged file.
constexpr int64_t kMaxCount = int64_t(1) << 40;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// VTK's names of the cell types a heart mesh may hold by mistake.
std::string vtkCellName(double value) {
  int type = value == std::floor(value) && std::fabs(value) < 1e6
                 ? static_cast<int>(value)
                 : -1;
  switch (type) {
  case 1:
    return "a vertex";
  case 3:
    return "a line";
  case 5:
    return "a triangle";
  case 9:
    return "a quadrilateral";
  case 13:
    return "a wedge";
  case 14:
    return "a pyramid";
  case 24:
    return "a quadratic tetrahedron";
  case 25:
    return "a quadratic hexahedron";
  case 42:
    return "a polyhedron";
  default:
    return "a cell of VTK type " + number(value);
  }
}

bool sameName(const std::string &a, const char *b) {
  size_t n = std::char_traits<char>::length(b);
  if (a.size() != n)
    return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

class VtuReader {
public:
  VtuReader(const MeshText &file, const VtuArrays &names)
      : file_(file), names_(names) {
    enc_.file = file.name;
  }
  Expected<Mesh> read(const MeshCheckOptions &options);

private:
  Status error(const XmlElement &at, const std::string &what) const {
    return Status::invalid(file_.name + ":" + std::to_string(at.line) + ": " +
                           what);
  }
  Status header(const XmlElement &root);
  Status piece(const XmlElement &root, const XmlElement *&out) const;
  Status points(const XmlElement &piece);
  Status cells(const XmlElement &piece);
  Status cellTypes(const XmlElement &cells, std::vector<double> &offsets);
  Status cellData(const XmlElement &piece);
  Status tags(const XmlElement *array);
  Status directions(const XmlElement *array, const char *what,
                    std::vector<Vec3> &out);
  const XmlElement *findArray(const XmlElement *data, const std::string &given,
                              std::initializer_list<const char *> known,
                              const char *what, Status &st) const;
  Status child(const XmlElement &parent, const char *name,
               const XmlElement *&out) const;

  const MeshText &file_;
  VtuArrays names_;
  VtuEncoding enc_;
  int64_t np_ = 0, nc_ = 0;
  Mesh mesh_;
};

Status VtuReader::header(const XmlElement &root) {
  const std::string *type = root.attribute("type");
  if (root.name != "VTKFile")
    return error(root, "the root element is <" + root.name +
                           ">, not <VTKFile>: not a VTK XML file");
  if (!type || *type != "UnstructuredGrid")
    return error(root, "a VTK file of type '" + (type ? *type : "") +
                           "': only UnstructuredGrid (.vtu) files are read");
  const std::string *order = root.attribute("byte_order");
  enc_.bigEndian = order && *order == "BigEndian";
  const std::string *h = root.attribute("header_type");
  if (h && *h != "UInt32" && *h != "UInt64")
    return error(root, "header_type '" + *h + "': UInt32 or UInt64 expected");
  enc_.uint64Header = h && *h == "UInt64";
  if (const std::string *c = root.attribute("compressor"))
    enc_.compressor = *c;
  return Status::success();
}

Status VtuReader::child(const XmlElement &parent, const char *name,
                        const XmlElement *&out) const {
  std::vector<const XmlElement *> found = parent.childrenNamed(name);
  if (found.size() != 1)
    return error(parent, "<" + parent.name + "> has " +
                             std::to_string(found.size()) + " <" + name +
                             "> elements, 1 expected");
  out = found[0];
  return Status::success();
}

Status VtuReader::piece(const XmlElement &root, const XmlElement *&out) const {
  const XmlElement *grid;
  if (Status st = child(root, "UnstructuredGrid", grid); !st.ok())
    return st;
  std::vector<const XmlElement *> pieces = grid->childrenNamed("Piece");
  if (pieces.size() != 1)
    return error(*grid, std::to_string(pieces.size()) +
                            " pieces: only a file of one <Piece> is read; "
                            "merge the pieces (ParaView: Merge Blocks)");
  out = pieces[0];
  return Status::success();
}

Status VtuReader::points(const XmlElement &piece) {
  const XmlElement *pts, *array;
  if (Status st = child(piece, "Points", pts); !st.ok())
    return st;
  if (Status st = child(*pts, "DataArray", array); !st.ok())
    return st;
  const std::string *nc = array->attribute("NumberOfComponents");
  if (!nc || *nc != "3")
    return error(*array, "the points need 3 components (x y z)");
  Expected<std::vector<double>> xyz =
      readDataArray(*array, enc_, 3 * size_t(np_), "points");
  if (!xyz.ok())
    return xyz.status();
  for (int64_t i = 0; i < np_; ++i)
    mesh_.points.push_back(
        {(*xyz)[3 * i], (*xyz)[3 * i + 1], (*xyz)[3 * i + 2]});
  return Status::success();
}

/// Reads offsets and types, checks that each cell is a tetrahedron or a
/// hexahedron with as many vertices as its type takes.
Status VtuReader::cellTypes(const XmlElement &cells,
                            std::vector<double> &offsets) {
  const XmlElement *offsetArray = nullptr, *typeArray = nullptr;
  for (const XmlElement *a : cells.childrenNamed("DataArray")) {
    const std::string *name = a->attribute("Name");
    if (name && *name == "offsets")
      offsetArray = a;
    else if (name && *name == "types")
      typeArray = a;
  }
  if (!offsetArray || !typeArray)
    return error(cells, "<Cells> needs the DataArrays 'offsets' and 'types'");
  Expected<std::vector<double>> o =
      readDataArray(*offsetArray, enc_, size_t(nc_), "cell offsets");
  if (!o.ok())
    return o.status();
  Expected<std::vector<double>> t =
      readDataArray(*typeArray, enc_, size_t(nc_), "cell types");
  if (!t.ok())
    return t.status();
  double previous = 0;
  for (int64_t c = 0; c < nc_; ++c) {
    double type = (*t)[c];
    if (type != 10 && type != 12)
      return error(*typeArray, "cell " + std::to_string(c) + " is " +
                                   vtkCellName(type) +
                                   ": only tetrahedra (10) and hexahedra (12) "
                                   "are read; remove the other cells");
    double n = (*o)[c] - previous;
    if (n != (type == 10 ? 4 : 8))
      return error(*offsetArray,
                   "cell " + std::to_string(c) + " has " + number(n) +
                       " vertices by its offsets, but its type takes " +
                       (type == 10 ? "4" : "8"));
    previous = (*o)[c];
    mesh_.types.push_back(type == 10 ? ElementType::Tetrahedron
                                     : ElementType::Hexahedron);
    mesh_.offsets.push_back(static_cast<int64_t>(previous));
  }
  offsets = o.take();
  return Status::success();
}

Status VtuReader::cells(const XmlElement &piece) {
  const XmlElement *cells;
  if (Status st = child(piece, "Cells", cells); !st.ok())
    return st;
  std::vector<double> offsets;
  if (Status st = cellTypes(*cells, offsets); !st.ok())
    return st;
  const XmlElement *conn = nullptr;
  for (const XmlElement *a : cells->childrenNamed("DataArray"))
    if (const std::string *name = a->attribute("Name");
        name && *name == "connectivity")
      conn = a;
  if (!conn)
    return error(*cells, "<Cells> needs the DataArray 'connectivity'");
  size_t total = mesh_.offsets.back();
  Expected<std::vector<double>> v =
      readDataArray(*conn, enc_, total, "cell connectivity");
  if (!v.ok())
    return v.status();
  for (double x : *v)
    mesh_.vertices.push_back(x >= -1e18 && x <= 1e18 ? int64_t(x) : -1);
  mesh_.tags.assign(size_t(nc_), 0);
  return Status::success();
}

const XmlElement *
VtuReader::findArray(const XmlElement *data, const std::string &given,
                     std::initializer_list<const char *> known,
                     const char *what, Status &st) const {
  if (!data) {
    if (!given.empty())
      st = Status::invalid(file_.name + ": no <CellData> for the " + what +
                           " array '" + given + "'");
    return nullptr;
  }
  std::string names;
  for (const XmlElement *a : data->childrenNamed("DataArray")) {
    const std::string *name = a->attribute("Name");
    if (!name)
      continue;
    if (given.empty()
            ? std::any_of(known.begin(), known.end(),
                          [&](const char *k) { return sameName(*name, k); })
            : *name == given)
      return a;
    names += (names.empty() ? "" : ", ") + *name;
  }
  if (!given.empty())
    st = error(*data, "no cell data array '" + given + "' for the " + what +
                          " (the arrays: " + (names.empty() ? "none" : names) +
                          ")");
  return nullptr;
}

Status VtuReader::tags(const XmlElement *array) {
  if (!array)
    return Status::success();
  const std::string *nc = array->attribute("NumberOfComponents");
  if (nc && *nc != "1")
    return error(*array, "the tags need 1 component");
  Expected<std::vector<double>> t =
      readDataArray(*array, enc_, size_t(nc_), "tags");
  if (!t.ok())
    return t.status();
  for (int64_t c = 0; c < nc_; ++c) {
    double v = (*t)[c];
    if (v != std::floor(v) || v < INT32_MIN || v > INT32_MAX)
      return error(*array, "the tag of cell " + std::to_string(c) +
                               " is not an integer of 32 bits");
    mesh_.tags[c] = static_cast<int32_t>(v);
  }
  return Status::success();
}

Status VtuReader::directions(const XmlElement *array, const char *what,
                             std::vector<Vec3> &out) {
  if (!array)
    return Status::success();
  const std::string *nc = array->attribute("NumberOfComponents");
  if (!nc || *nc != "3")
    return error(*array,
                 std::string("the ") + what + " directions need 3 components");
  Expected<std::vector<double>> d =
      readDataArray(*array, enc_, 3 * size_t(nc_), what);
  if (!d.ok())
    return d.status();
  for (int64_t c = 0; c < nc_; ++c)
    out.push_back({(*d)[3 * c], (*d)[3 * c + 1], (*d)[3 * c + 2]});
  return Status::success();
}

Status VtuReader::cellData(const XmlElement &piece) {
  std::vector<const XmlElement *> data = piece.childrenNamed("CellData");
  const XmlElement *cd = data.empty() ? nullptr : data[0];
  Status st;
  const XmlElement *tag =
      findArray(cd, names_.tag,
                {"elemTag", "tag", "tags", "region", "material",
                 "gmsh:physical", "CellEntityIds"},
                "tag", st);
  const XmlElement *fibre = findArray(
      cd, names_.fibre, {"fiber", "fibre", "fibers", "fibres"}, "fibre", st);
  const XmlElement *sheet =
      findArray(cd, names_.sheet, {"sheet", "sheets"}, "sheet", st);
  if (!st.ok())
    return st;
  if (sheet && !fibre)
    return error(*sheet, "sheets without fibres: give both or neither");
  if (Status s = tags(tag); !s.ok())
    return s;
  if (Status s = directions(fibre, "fibre", mesh_.fibres); !s.ok())
    return s;
  return directions(sheet, "sheet", mesh_.sheets);
}

Expected<Mesh> VtuReader::read(const MeshCheckOptions &options) {
  if (file_.text.compare(0, 14, "# vtk DataFile") == 0)
    return Status::invalid(file_.name +
                           ":1: a legacy VTK file: only VTK's XML format "
                           "(.vtu) is read; save the mesh as .vtu (ParaView: "
                           "Save Data) first");
  Expected<XmlElement> root = parseXml(file_);
  if (!root.ok())
    return root.status();
  const XmlElement *p;
  if (Status st = header(*root); !st.ok())
    return st;
  if (Status st = piece(*root, p); !st.ok())
    return st;
  for (auto [attr, value] :
       {std::pair{"NumberOfPoints", &np_}, std::pair{"NumberOfCells", &nc_}}) {
    const std::string *s = p->attribute(attr);
    char *end = nullptr;
    *value = s ? std::strtoll(s->c_str(), &end, 10) : -1;
    if (!s || *end || s->empty() || *value < 0 || *value > kMaxCount)
      return error(*p, std::string("<Piece> needs ") + attr +
                           ", a non-negative integer (at most 2^40)");
  }
  for (auto step :
       {&VtuReader::points, &VtuReader::cells, &VtuReader::cellData})
    if (Status st = (this->*step)(*p); !st.ok())
      return st;
  MeshSource source;
  source.elementFile = source.fibreFile = file_.name;
  source.orientation = Orientation::Defined;
  if (Status st = checkMesh(mesh_, source, options); !st.ok())
    return st;
  return std::move(mesh_);
}

} // namespace

Expected<Mesh> easyml::rt::parseVtuMesh(const MeshText &vtu,
                                        const MeshCheckOptions &options,
                                        const VtuArrays &arrays) {
  return VtuReader(vtu, arrays).read(options);
}

Expected<Mesh> easyml::rt::readVtuMesh(const std::string &path,
                                       const MeshCheckOptions &options,
                                       const VtuArrays &arrays) {
  Expected<MeshText> text = readMeshText(path);
  if (!text.ok())
    return text.status();
  return parseVtuMesh(*text, options, arrays);
}
