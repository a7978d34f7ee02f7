//===- TextLines.cpp - the lines of a mesh file, with their numbers -------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "TextLines.h"

#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace easyml::rt;
using namespace easyml::rt::mesh;

TextLines::TextLines(const MeshText &file, char comment)
    : name_(file.name), text_(file.text), comment_(comment) {}

namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

} // namespace

bool TextLines::next() {
  while (pos_ < text_.size()) {
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos)
      end = text_.size();
    std::string_view line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_;
    if (comment_)
      line = line.substr(0, line.find(comment_));
    fields_.clear();
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && isSpace(line[i]))
        ++i;
      size_t start = i;
      while (i < line.size() && !isSpace(line[i]))
        ++i;
      if (i > start)
        fields_.push_back(line.substr(start, i - start));
    }
    if (!fields_.empty())
      return true;
  }
  fields_.clear();
  return false;
}

Status TextLines::error(const std::string &what) const {
  return Status::invalid(name_ + ":" + std::to_string(line_) + ": " + what);
}

bool mesh::parseInt(std::string_view s, int64_t &value) {
  if (!s.empty() && s[0] == '+')
    s.remove_prefix(1);
  if (s.empty() || s[0] == '+')
    return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size();
}

bool mesh::parseReal(std::string_view s, double &value) {
  if (!s.empty() && s[0] == '+')
    s.remove_prefix(1);
  if (s.empty() || s[0] == '+')
    return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size() &&
         std::isfinite(value);
}

bool mesh::parseTag(std::string_view s, int32_t &value) {
  double d;
  if (!parseReal(s, d) || d != std::floor(d) || d < INT32_MIN || d > INT32_MAX)
    return false;
  value = static_cast<int32_t>(d);
  return true;
}

Status mesh::readVec3(const TextLines &lines, size_t first,
                      const std::string &what, Vec3 &out) {
  double *c[3] = {&out.x, &out.y, &out.z};
  for (size_t k = 0; k < 3; ++k)
    if (!parseReal(lines[first + k], *c[k]))
      return lines.error(what + ": '" + std::string(lines[first + k]) +
                         "' is not a finite number");
  return Status::success();
}

Expected<MeshText> easyml::rt::readMeshText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::failed("cannot read '" + path +
                          "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return Status::failed("cannot read '" + path + "'");
  return MeshText{path, text.str()};
}
