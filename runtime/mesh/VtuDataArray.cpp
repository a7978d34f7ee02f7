//===- VtuDataArray.cpp - the numbers of a VTK XML DataArray --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "VtuDataArray.h"
#include "TextLines.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

using namespace easyml::rt;
using namespace easyml::rt::mesh;

namespace {

/// A DataArray's number type: its size in bytes and how it is stored.
struct NumberType {
  const char *name;
  int size;
  bool integer, isSigned;
};

constexpr NumberType kTypes[] = {
    {"Int8", 1, true, true},     {"UInt8", 1, true, false},
    {"Int16", 2, true, true},    {"UInt16", 2, true, false},
    {"Int32", 4, true, true},    {"UInt32", 4, true, false},
    {"Int64", 8, true, true},    {"UInt64", 8, true, false},
    {"Float32", 4, false, true}, {"Float64", 8, false, true}};

const NumberType *numberType(const std::string *name) {
  for (const NumberType &t : kTypes)
    if (name && *name == t.name)
      return &t;
  return nullptr;
}

/// Reads one little-endian number of type `t` at `p`.
double load(const NumberType &t, const unsigned char *p) {
  uint64_t bits = 0;
  for (int i = t.size - 1; i >= 0; --i)
    bits = bits << 8 | p[i];
  if (!t.integer) {
    if (t.size == 4) {
      uint32_t b = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &b, 4);
      return f;
    }
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  if (!t.isSigned)
    return static_cast<double>(bits);
  int shift = 64 - 8 * t.size;
  return static_cast<double>(static_cast<int64_t>(bits << shift) >> shift);
}

int base64Value(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  return c == '+' ? 62 : c == '/' ? 63 : -1;
}

class ArrayReader {
public:
  ArrayReader(const XmlElement &a, const VtuEncoding &enc, size_t count,
              const std::string &what)
      : a_(a), enc_(enc), count_(count), what_(what) {}
  Expected<std::vector<double>> read();

private:
  Status error(const std::string &m) const {
    return Status::invalid(enc_.file + ":" + std::to_string(a_.line) + ": " +
                           what_ + ": " + m);
  }
  Status ascii(const NumberType &t, std::vector<double> &out) const;
  Status binary(const NumberType &t, std::vector<double> &out) const;

  const XmlElement &a_;
  const VtuEncoding &enc_;
  size_t count_;
  std::string what_;
};

Status ArrayReader::ascii(const NumberType &t, std::vector<double> &out) const {
  std::string_view s = a_.content;
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  };
  out.reserve(std::min<size_t>(count_, 1 << 24));
  size_t i = 0;
  while (true) {
    while (i < s.size() && space(s[i]))
      ++i;
    if (i >= s.size())
      break;
    size_t start = i;
    while (i < s.size() && !space(s[i]))
      ++i;
    double v;
    std::string_view field = s.substr(start, i - start);
    if (!parseReal(field, v) || (t.integer && v != std::floor(v)))
      return error("'" + std::string(field.substr(0, 40)) + "' is not " +
                   (t.integer ? "an integer" : "a finite number"));
    if (out.size() == count_)
      return error("more than the " + std::to_string(count_) +
                   " values expected");
    out.push_back(v);
  }
  return Status::success();
}

Status ArrayReader::binary(const NumberType &t,
                           std::vector<double> &out) const {
  if (!enc_.compressor.empty())
    return error("compressed data (" + enc_.compressor +
                 ") is not read: write the file uncompressed, or as ascii");
  if (enc_.bigEndian)
    return error("big-endian binary data is not read: write the file "
                 "little-endian, or as ascii");
  std::string bytes;
  if (!decodeBase64(a_.content, bytes))
    return error("the binary data is not valid base64");
  size_t header = enc_.uint64Header ? 8 : 4;
  if (bytes.size() < header)
    return error("the binary data lacks its byte-count header");
  auto *p = reinterpret_cast<const unsigned char *>(bytes.data());
  uint64_t announced = 0;
  for (size_t i = header; i-- > 0;)
    announced = announced << 8 | p[i];
  size_t size = bytes.size() - header;
  if (announced != size || size % t.size)
    return error("the binary data holds " + std::to_string(size) +
                 " bytes, its header says " + std::to_string(announced));
  for (size_t k = header; k + t.size <= bytes.size(); k += t.size) {
    double v = load(t, p + k);
    if (!std::isfinite(v))
      return error("a value is not a finite number");
    out.push_back(v);
  }
  return Status::success();
}

Expected<std::vector<double>> ArrayReader::read() {
  const NumberType *t = numberType(a_.attribute("type"));
  if (!t)
    return error("unknown number type '" +
                 (a_.attribute("type") ? *a_.attribute("type") : "") + "'");
  const std::string *format = a_.attribute("format");
  std::vector<double> out;
  Status st;
  if (format && *format == "ascii")
    st = ascii(*t, out);
  else if (format && *format == "binary")
    st = binary(*t, out);
  else
    return error("format '" + (format ? *format : "") +
                 "' is not read: write the file with ascii or inline binary "
                 "(base64) data, not appended");
  if (!st.ok())
    return st;
  if (out.size() != count_)
    return error(std::to_string(out.size()) + " values, expected " +
                 std::to_string(count_));
  return out;
}

} // namespace

bool mesh::decodeBase64(std::string_view text, std::string &bytes) {
  int group[4], n = 0, pad = 0;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
      continue;
    int v = c == '=' ? 0 : base64Value(c);
    if (v < 0 || (pad && c != '=' && n))
      return false;
    pad += c == '=';
    group[n++] = v;
    if (n < 4)
      continue;
    uint32_t bits = group[0] << 18 | group[1] << 12 | group[2] << 6 | group[3];
    char out[3] = {char(bits >> 16), char(bits >> 8), char(bits)};
    if (pad > 2)
      return false;
    bytes.append(out, 3 - pad);
    n = pad = 0;
  }
  return n == 0;
}

Expected<std::vector<double>> mesh::readDataArray(const XmlElement &array,
                                                  const VtuEncoding &encoding,
                                                  size_t count,
                                                  const std::string &what) {
  return ArrayReader(array, encoding, count, what).read();
}
