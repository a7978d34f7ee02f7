//===- FibreFiles.cpp - fibre and sheet directions per element ------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "FibreFiles.h"
#include "TextLines.h"

using namespace easyml::rt;
using namespace easyml::rt::mesh;

namespace {

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Reads the entries after the first line: `perLine` numbers each, the
/// first three the fibre, the next three (when `sheets`) the sheet.
Status readEntries(TextLines &lines, size_t perLine, bool sheets,
                   FibreData &out) {
  while (lines.next()) {
    std::string what = "entry " + std::to_string(out.fibres.size());
    if (lines.size() != perLine)
      return lines.error(what + ": expected " + std::to_string(perLine) +
                         " numbers, found " + std::to_string(lines.size()));
    Vec3 f, s;
    if (Status st = readVec3(lines, 0, what, f); !st.ok())
      return st;
    if (sheets)
      if (Status st = readVec3(lines, 3, what, s); !st.ok())
        return st;
    out.fibres.push_back(f);
    if (sheets)
      out.sheets.push_back(s);
    out.lines.push_back(lines.line());
  }
  return Status::success();
}

} // namespace

Expected<FibreData> mesh::parseLon(const MeshText &file) {
  TextLines lines(file);
  if (!lines.next())
    return Status::invalid(file.name + ": empty fibre file: its first line "
                                       "should be 1 (fibres) or 2 (fibres "
                                       "and sheets)");
  int64_t kinds = 0;
  if (lines.size() != 1 || !parseInt(lines[0], kinds) ||
      (kinds != 1 && kinds != 2))
    return lines.error(
        "the first line should be 1 (fibres) or 2 (fibres and sheets), not "
        "'" +
        std::string(lines[0]) + (lines.size() > 1 ? " ...'" : "'") +
        (lines.size() == 3 ? "; a file of fibres without that line: add the "
                             "line '1' at its top"
                           : ""));
  FibreData out;
  if (Status st = readEntries(lines, kinds == 2 ? 6 : 3, kinds == 2, out);
      !st.ok())
    return st;
  return out;
}

Expected<FibreData> mesh::parseChasteFibres(const MeshText &file, bool ortho) {
  TextLines lines(file, '#');
  int64_t count = 0;
  if (!lines.next())
    return Status::invalid(file.name + ": empty fibre file: its first line "
                                       "should be the number of entries");
  if (lines.size() == 2 && lines[1] == "BIN")
    return lines.error("binary fibre files (BIN) are not read: write the "
                       "file as text");
  if (lines.size() != 1 || !parseInt(lines[0], count) || count < 0)
    return lines.error("the first line should be the number of entries");
  FibreData out;
  if (Status st = readEntries(lines, ortho ? 9 : 3, ortho, out); !st.ok())
    return st;
  if (static_cast<int64_t>(out.fibres.size()) != count)
    return Status::invalid(file.name + ": " + std::to_string(count) +
                           " entries announced on its first line, " +
                           std::to_string(out.fibres.size()) + " found");
  return out;
}

Expected<FibreData> mesh::parseFibreFile(const MeshText &file) {
  if (endsWith(file.name, ".lon"))
    return parseLon(file);
  if (endsWith(file.name, ".axi"))
    return parseChasteFibres(file, false);
  if (endsWith(file.name, ".ortho"))
    return parseChasteFibres(file, true);
  return Status::invalid(file.name + ": unknown fibre file format: name it "
                                     "by its format, .lon (openCARP), .axi "
                                     "or .ortho (Chaste)");
}

void mesh::attachFibres(FibreData &&data, const std::string &name, Mesh &mesh,
                        MeshSource &source) {
  mesh.fibres = std::move(data.fibres);
  mesh.sheets = std::move(data.sheets);
  source.fibreFile = name;
  source.fibreLines = std::move(data.lines);
}
