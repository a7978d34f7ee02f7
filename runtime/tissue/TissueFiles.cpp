//===- TissueFiles.cpp - grid fields as .npy and VTK image data -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Tissue/TissueFiles.h"
#include "easyml/Runtime/IO/OutputFile.h"
#include "easyml/Runtime/Core/Population.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace easyml::rt;

namespace {

std::string field(const std::string &header, const std::string &key) {
  size_t k = header.find("'" + key + "':");
  if (k == std::string::npos)
    return "";
  size_t b = k + key.size() + 3;
  while (b < header.size() && header[b] == ' ')
    ++b;
  size_t e = header[b] == '(' ? header.find(')', b) + 1
                              : header.find_first_of(",}", b);
  return header.substr(b, e - b);
}

std::vector<int64_t> parseShape(const std::string &text) {
  std::vector<int64_t> shape;
  for (size_t i = 0; i < text.size();) {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      size_t used = 0;
      shape.push_back(std::stoll(text.substr(i), &used));
      i += used;
    } else {
      ++i;
    }
  }
  return shape;
}

/// Appends `count` values of numpy type `descr` from `raw` to `out`.
bool convert(const std::string &descr, const char *raw, int64_t count,
             std::vector<double> &out) {
  auto take = [&](auto sample) {
    using T = decltype(sample);
    for (int64_t i = 0; i < count; ++i) {
      T v;
      std::memcpy(&v, raw + i * sizeof(T), sizeof(T));
      out.push_back(static_cast<double>(v));
    }
    return true;
  };
  std::string d = descr.substr(1, descr.size() - 2); // quotes off
  if (d == "<f8")
    return take(double());
  if (d == "<f4")
    return take(float());
  if (d == "<i8")
    return take(int64_t());
  if (d == "<i4")
    return take(int32_t());
  if (d == "|u1" || d == "|b1")
    return take(uint8_t());
  if (d == "|i1")
    return take(int8_t());
  return false;
}

size_t itemSize(const std::string &descr) {
  char c = descr.size() > 3 ? descr[descr.size() - 2] : '0';
  return c - '0';
}

} // namespace

std::vector<int64_t> easyml::rt::gridShape(const TissueGrid &grid) {
  std::vector<int64_t> shape;
  for (int a = 2; a >= 0; --a)
    if (grid.n[a] > 1 || !shape.empty() || a == 0)
      shape.push_back(grid.n[a]);
  return shape;
}

bool easyml::rt::readGridNpy(const std::string &path, const TissueGrid &grid,
                             std::vector<double> &values, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return error = "cannot open '" + path + "': " + std::strerror(errno), false;
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return error = path + ": not a .npy file", false;
  size_t hlen = bytes[6] == 1 ? (uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8)
                              : (uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8 |
                                 uint8_t(bytes[10]) << 16 |
                                 size_t(uint8_t(bytes[11])) << 24);
  size_t start = (bytes[6] == 1 ? 10 : 12) + hlen;
  std::string header = bytes.substr(0, std::min(start, bytes.size()));
  std::string descr = field(header, "descr");
  if (field(header, "fortran_order") != "False")
    return error = path + ": Fortran-ordered arrays are not supported", false;
  std::vector<int64_t> shape = parseShape(field(header, "shape"));
  int64_t count = 1;
  for (int64_t s : shape)
    count *= s;
  std::vector<int64_t> expect = gridShape(grid),
                       full = {grid.n[2], grid.n[1], grid.n[0]};
  bool flat = shape.size() == 1 && count == grid.points();
  if (shape != expect && shape != full && !flat) {
    std::string want, got;
    for (int64_t s : expect)
      want += (want.empty() ? "" : ", ") + std::to_string(s);
    for (int64_t s : shape)
      got += (got.empty() ? "" : ", ") + std::to_string(s);
    const char *axes[] = {"(nx)", "(ny, nx)", "(nz, ny, nx)"};
    return error = path + ": shape (" + got + ") does not match the grid: (" +
                   want + ") expected, " + axes[expect.size() - 1],
           false;
  }
  size_t size = itemSize(descr);
  if (bytes.size() < start + count * size)
    return error = path + ": truncated", false;
  values.clear();
  if (!convert(descr, bytes.data() + start, count, values))
    return error = path + ": unsupported dtype " + descr +
                   " (float64, float32, int64, int32, int8, uint8, bool)",
           false;
  return true;
}

bool easyml::rt::writeGridNpy(const std::string &path, const TissueGrid &grid,
                              const std::vector<double> &values,
                              std::string &error) {
  std::string shape;
  for (int64_t n : gridShape(grid))
    shape += (shape.empty() ? "" : ", ") + std::to_string(n);
  if (shape.find(',') == std::string::npos)
    shape += ",";
  OutputFile f(path);
  f.write(npyHeader("'<f8'", "(" + shape + ")"));
  f.write(values.data(), values.size() * sizeof(double));
  if (f.commit())
    return true;
  error = f.error();
  return false;
}

bool easyml::rt::writeGridVti(const std::string &path, const TissueGrid &grid,
                              const std::string &name,
                              const std::vector<double> &values,
                              std::string &error) {
  std::ostringstream h;
  h << "<?xml version=\"1.0\"?>\n"
    << "<VTKFile type=\"ImageData\" version=\"1.0\" "
       "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
    << "  <ImageData WholeExtent=\"0 " << grid.n[0] - 1 << " 0 "
    << grid.n[1] - 1 << " 0 " << grid.n[2] - 1
    << "\" Origin=\"0 0 0\" Spacing=\"" << grid.h[0] << " " << grid.h[1]
    << " " << grid.h[2] << "\">\n"
    << "    <Piece Extent=\"0 " << grid.n[0] - 1 << " 0 " << grid.n[1] - 1
    << " 0 " << grid.n[2] - 1 << "\">\n"
    << "      <PointData Scalars=\"" << name << "\">\n"
    << "        <DataArray type=\"Float64\" Name=\"" << name
    << "\" format=\"appended\" offset=\"0\"/>\n"
    << "      </PointData>\n    </Piece>\n  </ImageData>\n"
    << "  <AppendedData encoding=\"raw\">\n   _";
  uint64_t bytes = values.size() * sizeof(double);
  OutputFile f(path);
  f.write(h.str());
  f.write(&bytes, sizeof bytes);
  f.write(values.data(), bytes);
  f.write(std::string("\n  </AppendedData>\n</VTKFile>\n"));
  if (f.commit())
    return true;
  error = f.error();
  return false;
}
