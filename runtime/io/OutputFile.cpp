//===- OutputFile.cpp - a file that appears whole or not at all -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/IO/OutputFile.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace easyml::rt;

OutputFile::OutputFile(std::string p) : path(std::move(p)) {
  // A device, pipe or terminal (followed through links: /dev/stdout) is
  // written in place; renaming onto it would replace the link.
  struct stat st;
  inPlace = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  tmp = inPlace ? path : path + ".tmp";
  file = std::fopen(tmp.c_str(), "wb");
  if (!file)
    fail(std::strerror(errno));
}

OutputFile::OutputFile(std::string p, int64_t at) : path(std::move(p)) {
  struct stat st;
  inPlace = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  tmp = inPlace ? path : path + ".tmp";
  if (inPlace) {
    file = std::fopen(tmp.c_str(), "wb");
    if (!file)
      fail(std::strerror(errno));
    return;
  }
  if (::stat(tmp.c_str(), &st) != 0) {
    message = "cannot continue '" + path + "': '" + tmp +
              "', the part written before the checkpoint, is missing";
    return;
  }
  if (st.st_size < at) {
    message = "cannot continue '" + path + "': '" + tmp + "' has " +
              std::to_string(st.st_size) + " bytes, the checkpoint " +
              std::to_string(at);
    return;
  }
  file = std::fopen(tmp.c_str(), "r+b");
  if (!file || ::ftruncate(fileno(file), at) != 0 ||
      std::fseek(file, 0, SEEK_END) != 0) {
    fail(std::strerror(errno));
    if (file)
      std::fclose(file);
    file = nullptr;
  }
}

int64_t OutputFile::position() {
  if (!file || inPlace || std::fflush(file) != 0)
    return -1;
  long at = std::ftell(file);
  return at < 0 ? -1 : at;
}

OutputFile::~OutputFile() {
  if (file)
    std::fclose(file);
  if (!committed && !inPlace)
    std::remove(tmp.c_str());
}

bool OutputFile::fail(const char *reason) {
  if (message.empty())
    message = "cannot write '" + path + "': " + reason;
  return false;
}

bool OutputFile::write(const void *data, size_t size) {
  if (!file)
    return false;
  if (size && std::fwrite(data, 1, size, file) != size)
    return fail(std::strerror(errno));
  return true;
}

bool OutputFile::commit(bool sync) {
  if (!file)
    return false;
  bool bad = std::ferror(file) != 0 || std::fflush(file) != 0 ||
             (sync && !inPlace && ::fsync(fileno(file)) != 0);
  int closed = std::fclose(file);
  file = nullptr;
  if (bad || closed != 0)
    return fail(bad ? "write error" : std::strerror(errno));
  if (!inPlace && std::rename(tmp.c_str(), path.c_str()) != 0)
    return fail(std::strerror(errno));
  committed = true;
  return true;
}

Status easyml::rt::writeWholeFile(const std::string &path,
                                  const std::string &text, bool sync) {
  OutputFile f(path);
  if (f.write(text) && f.commit(sync))
    return Status();
  return Status::failed(f.error());
}
