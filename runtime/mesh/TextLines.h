//===- TextLines.h - lines of a mesh file, numbered -------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What the text mesh readers share: a file's lines split into fields (blank
// lines and comments skipped), the line number of each for messages, and
// numbers read strictly (a field that is not wholly a finite number is
// refused).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MESH_TEXTLINES_H
#define EASYML_RUNTIME_MESH_TEXTLINES_H

#include "easyml/Runtime/Mesh/MeshReaders.h"
#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace easyml::rt::mesh {

class TextLines {
public:
  /// Lines of `file`; `comment` (when not 0) starts a comment that runs to
  /// the end of its line.
  TextLines(const MeshText &file, char comment = 0);

  /// The next line with a field, split at white space; false at the end.
  bool next();
  const std::vector<std::string_view> &fields() const { return fields_; }
  size_t size() const { return fields_.size(); }
  std::string_view operator[](size_t i) const { return fields_[i]; }

  /// The number of the line next() returned last (1-based).
  int64_t line() const { return line_; }
  const std::string &name() const { return name_; }
  /// An Invalid error "NAME:LINE: what".
  Status error(const std::string &what) const;

private:
  std::string name_;
  std::string_view text_;
  size_t pos_ = 0;
  int64_t line_ = 0;
  char comment_;
  std::vector<std::string_view> fields_;
};

/// `s` as an integer; false unless it is wholly one (a leading '+' is
/// allowed).
bool parseInt(std::string_view s, int64_t &value);
/// `s` as a finite number; false unless it is wholly one.
bool parseReal(std::string_view s, double &value);
/// `s` as an integer written as a number ("3", "3.0", "3e0"): TetGen's
/// attributes are numbers; false unless integral and within int32.
bool parseTag(std::string_view s, int32_t &value);

/// Reads fields [first, first+3) of the current line as a vector; an error
/// naming `what` ("vertex 3") on a field that is not a finite number.
Status readVec3(const TextLines &lines, size_t first, const std::string &what,
                Vec3 &out);

} // namespace easyml::rt::mesh

#endif // EASYML_RUNTIME_MESH_TEXTLINES_H
