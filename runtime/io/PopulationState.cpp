//===- PopulationState.cpp - the saved state of a whole population --------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/IO/PopulationState.h"
#include "easyml/Runtime/IO/Json.h"
#include "easyml/Runtime/IO/OutputFile.h"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace easyml::rt;

namespace {

const char kMagic[] = "EASYML-STATE\n";
const char kChecksum[] = "CHECKSUM ";
constexpr size_t kChecksumLine = sizeof(kChecksum) - 1 + 16 + 1;

constexpr uint64_t kFnvBasis = 1469598103934665603ull;

/// FNV-1a 64 of `n` bytes, continuing from `h`.
uint64_t fnv1a(uint64_t h, const char *p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
  return h;
}

std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s)
    out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

std::string list(const std::vector<std::string> &v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? ", " : "") + quoted(v[i]);
  return out + "]";
}

bool names(const json::Value *v, std::vector<std::string> &out) {
  if (!v || !v->isArray())
    return false;
  for (const json::Value &s : v->items) {
    if (!s.isString())
      return false;
    out.push_back(s.string);
  }
  return true;
}

std::string whole(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

bool integer(const json::Value *v, int64_t &out) {
  if (!v || !v->isNumber() || v->number != std::floor(v->number) ||
      std::fabs(v->number) > 9.0e15)
    return false;
  out = static_cast<int64_t>(v->number);
  return true;
}

/// The header's fields, and the counts of the rows and extra values that
/// follow the cells; false with what is wrong.
bool readHeader(const json::Value &h, PopulationState &s, int64_t &rows,
                int64_t &extra, std::string &error) {
  int64_t format = 0;
  if (!h.isObject() || !integer(h.find("format"), format))
    return error = "no format version", false;
  if (format != PopulationState::kFormat)
    return error = "format version " + std::to_string(format) +
                   " (this program reads " +
                   std::to_string(PopulationState::kFormat) + ")",
           false;
  const json::Value *model = h.find("model"), *dt = h.find("dt");
  if (!model || !model->isString() || !integer(h.find("cells"), s.cells) ||
      s.cells < 0 || !names(h.find("sv"), s.sv) ||
      !names(h.find("externals"), s.externals) ||
      !names(h.find("params"), s.params) || !integer(h.find("step"), s.step) ||
      !integer(h.find("beat"), s.beat) ||
      !integer(h.find("beat_start"), s.beatStart) || !dt || !dt->isNumber())
    return error = "a damaged header", false;
  s.model = model->string;
  s.dt = dt->number;
  int64_t run = 0;
  rows = extra = 0;
  if ((h.find("accumulators") &&
       (!integer(h.find("accumulators"), s.accumulators) ||
        s.accumulators < 0)) ||
      (h.find("rows") && (!integer(h.find("rows"), rows) || rows < 0)) ||
      (h.find("extra") && (!integer(h.find("extra"), extra) || extra < 0)) ||
      (h.find("run") && !integer(h.find("run"), run)))
    return error = "a damaged header", false;
  s.run = run ? "{}" : "";
  return true;
}

} // namespace

std::vector<std::string> easyml::rt::stateRowNames(const easyml_model_desc &d) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < d.sv_size; ++i)
    out.push_back(d.state_names[i]);
  for (int64_t i = 0; i < d.num_hidden; ++i)
    out.push_back(d.hidden_names[i]);
  return out;
}

std::string easyml::rt::stateHeader(const PopulationState &s) {
  char num[64];
  std::snprintf(num, sizeof num, "%.17g", s.dt);
  std::string out = kMagic;
  out += "{\"format\": " + std::to_string(PopulationState::kFormat) +
         ", \"model\": " + quoted(s.model) +
         ", \"cells\": " + std::to_string(s.cells) + ", \"sv\": " + list(s.sv) +
         ", \"externals\": " + list(s.externals) +
         ", \"params\": " + list(s.params) +
         ", \"step\": " + std::to_string(s.step) +
         ", \"beat\": " + std::to_string(s.beat) +
         ", \"beat_start\": " + std::to_string(s.beatStart) +
         ", \"dt\": " + num;
  if (s.accumulators)
    out += ", \"accumulators\": " + std::to_string(s.accumulators);
  if (!s.rows.empty())
    out += ", \"rows\": " + std::to_string(s.rows.size());
  if (!s.extra.empty())
    out += ", \"extra\": " + std::to_string(s.extra.size());
  if (!s.run.empty())
    out += ", \"run\": 1}\n" + s.run + "\n";
  else
    out += "}\n";
  return out;
}

std::string easyml::rt::serializeState(const PopulationState &s) {
  std::string out = stateHeader(s);
  out.append(reinterpret_cast<const char *>(s.values.data()),
             s.values.size() * sizeof(double));
  out.append(reinterpret_cast<const char *>(s.rows.data()),
             s.rows.size() * sizeof(double));
  out.append(reinterpret_cast<const char *>(s.extra.data()),
             s.extra.size() * sizeof(double));
  char line[64];
  std::snprintf(line, sizeof line, "%s%016" PRIx64 "\n", kChecksum,
                fnv1a(kFnvBasis, out.data(), out.size()));
  out += line;
  return out;
}

StateFileWriter::StateFileWriter(const std::string &path,
                                 const PopulationState &header)
    : file_(std::make_unique<OutputFile>(path)) {
  std::string h = stateHeader(header);
  add(h.data(), h.size());
}

StateFileWriter::~StateFileWriter() = default;

bool StateFileWriter::add(const void *data, size_t bytes) {
  hash_ = fnv1a(hash_, static_cast<const char *>(data), bytes);
  return file_->write(data, bytes);
}

Status StateFileWriter::commit() {
  char line[64];
  std::snprintf(line, sizeof line, "%s%016" PRIx64 "\n", kChecksum, hash_);
  if (file_->write(line, std::strlen(line)) && file_->commit(/*sync=*/true))
    return Status();
  return Status::failed(file_->error());
}

Status easyml::rt::sealStateFile(const std::string &tmp,
                                 const std::string &path) {
  auto fail = [&](const std::string &why) {
    std::remove(tmp.c_str());
    return Status::failed("cannot write '" + path + "': " + why);
  };
  FILE *f = std::fopen(tmp.c_str(), "r+b");
  if (!f)
    return fail(std::strerror(errno));
  std::vector<char> buffer(1 << 22);
  uint64_t hash = kFnvBasis;
  size_t got;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), f)) > 0)
    hash = fnv1a(hash, buffer.data(), got);
  bool ok = !std::ferror(f);
  char line[64];
  std::snprintf(line, sizeof line, "%s%016" PRIx64 "\n", kChecksum, hash);
  ok = ok && std::fseek(f, 0, SEEK_END) == 0 &&
       std::fwrite(line, 1, std::strlen(line), f) == std::strlen(line) &&
       std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    return fail(std::strerror(errno));
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return fail(std::strerror(errno));
  return Status();
}

Status easyml::rt::parseState(const std::string &bytes, PopulationState &out) {
  size_t magic = sizeof(kMagic) - 1;
  if (bytes.compare(0, magic, kMagic) != 0)
    return Status::invalid("not an EasyML state file");
  if (bytes.size() < magic + kChecksumLine)
    return Status::invalid("truncated");
  size_t end = bytes.size() - kChecksumLine;
  if (bytes.compare(end, sizeof(kChecksum) - 1, kChecksum) != 0 ||
      bytes.back() != '\n')
    return Status::invalid("truncated (no checksum at its end)");
  char *stop = nullptr;
  std::string hex = bytes.substr(end + sizeof(kChecksum) - 1, 16);
  uint64_t want = std::strtoull(hex.c_str(), &stop, 16);
  if (*stop || want != fnv1a(kFnvBasis, bytes.data(), end))
    return Status::invalid("checksum mismatch: the file is damaged");
  size_t eol = bytes.find('\n', magic);
  if (eol == std::string::npos || eol > end)
    return Status::invalid("a damaged header");
  Expected<json::Value> parsed = json::parse(bytes.substr(magic, eol - magic));
  if (!parsed.ok())
    return Status::invalid("a damaged header");
  const json::Value &h = *parsed;
  PopulationState s;
  int64_t rows = 0, extra = 0;
  std::string error;
  if (!readHeader(h, s, rows, extra, error))
    return Status::invalid(error);
  size_t data = eol + 1;
  if (!s.run.empty()) {
    // A checkpoint's second line: the run's position.
    size_t runEnd = bytes.find('\n', data);
    if (runEnd == std::string::npos || runEnd > end)
      return Status::invalid("a damaged header");
    s.run = bytes.substr(data, runEnd - data);
    data = runEnd + 1;
  }
  // Counts compared as the header gives them, before anything is
  // allocated (a damaged header may claim any number).
  const double have = double(end - data) / sizeof(double);
  const double said = double(s.cells) * double(s.width()) + double(rows) +
                      double(extra);
  if (have != said)
    return Status::invalid("holds " +
                           std::to_string((end - data) / sizeof(double)) +
                           " values where its header says " + whole(said));
  const char *at = bytes.data() + data;
  auto take = [&](std::vector<double> &into, size_t n) {
    into.resize(n);
    if (n)
      std::memcpy(into.data(), at, n * sizeof(double));
    at += n * sizeof(double);
  };
  take(s.values, static_cast<size_t>(s.cells) * s.width());
  take(s.rows, rows);
  take(s.extra, extra);
  out = std::move(s);
  return Status();
}
