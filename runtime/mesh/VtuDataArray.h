//===- VtuDataArray.h - the numbers of a VTK XML DataArray ------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The values of a <DataArray> written as ascii text or as inline base64
// ("binary": a byte-count header, UInt32 or UInt64, then the data,
// uncompressed, little-endian). Appended and compressed data are refused
// with the way to write the file readably.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_MESH_VTUDATAARRAY_H
#define EASYML_RUNTIME_MESH_VTUDATAARRAY_H

#include "Xml.h"

#include <string>
#include <vector>

namespace easyml::rt::mesh {

/// What the <VTKFile> element says of its binary data.
struct VtuEncoding {
  std::string file;
  bool uint64Header = false;
  bool bigEndian = false;
  /// The compressor attribute (empty: none).
  std::string compressor;
};

/// The `count` values (components included) of `array`, as doubles; an
/// Invalid error naming the file, the array's line and `what` it holds.
Expected<std::vector<double>> readDataArray(const XmlElement &array,
                                            const VtuEncoding &encoding,
                                            size_t count,
                                            const std::string &what);

/// The bytes base64 `text` encodes; white space is skipped and padded
/// groups may be followed by more (VTK may encode its header apart).
bool decodeBase64(std::string_view text, std::string &bytes);

} // namespace easyml::rt::mesh

#endif // EASYML_RUNTIME_MESH_VTUDATAARRAY_H
