//===- OutputFile.h - a file that appears whole or not at all ---*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Every file the runtime writes goes through OutputFile: the text is
// written to PATH.tmp and renamed onto PATH when it is complete, so a
// failed or interrupted run leaves no half-written file behind. A path that
// names something other than a regular file (/dev/stdout, a pipe, a
// terminal) is written in place, since it cannot be replaced by a rename.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_OUTPUTFILE_H
#define EASYML_RUNTIME_OUTPUTFILE_H

#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace easyml {
namespace rt {

class OutputFile {
public:
  /// Opens the file for writing (binary); check `ok()` or `error()`.
  explicit OutputFile(std::string path);
  /// Continues the temporary file a killed run left (PATH.tmp) at byte
  /// `at`, the position a checkpoint recorded: what follows is cut off. An
  /// error when it is missing or shorter.
  OutputFile(std::string path, int64_t at);
  /// Removes the temporary file unless commit() succeeded.
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  bool ok() const { return file != nullptr; }
  FILE *get() const { return file; }
  /// "cannot write 'PATH': REASON" once opening or writing failed.
  const std::string &error() const { return message; }

  /// Writes the bytes; false (and error()) on a short write.
  bool write(const void *data, size_t size);
  bool write(const std::string &text) { return write(text.data(), text.size()); }
  /// Flushes, closes and moves the file into place; with `sync`, the
  /// bytes reach the disk (fsync) before the rename, so that a machine that
  /// goes down keeps the old file or the whole new one (checkpoints).
  bool commit(bool sync = false);
  /// Bytes written so far, handed to the operating system (a checkpoint
  /// records it; a killed process loses none of them); -1 after an error
  /// or for a file written in place.
  int64_t position();

private:
  bool fail(const char *reason);

  std::string path, tmp;
  FILE *file = nullptr;
  bool inPlace = false, committed = false;
  std::string message;
};

/// Writes `text` to `path` whole, or not at all (Failed); `sync` as for
/// OutputFile::commit.
Status writeWholeFile(const std::string &path, const std::string &text,
                      bool sync = false);

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_OUTPUTFILE_H
