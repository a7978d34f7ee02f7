//===- StateFuzzer.cpp - libFuzzer entry for the state-file reader --------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Parses arbitrary bytes as a population state file (PopulationState.h)
// and, when it carries a run position, as a checkpoint (Checkpoint.h). Any
// crash or sanitizer report is a bug: a damaged file must only be refused
// with a message. What parses must write back to the same contents.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/IO/Checkpoint.h"
#include "easyml/Runtime/IO/PopulationState.h"

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

/// `body` with the checksum line the format asks for (FNV-1a 64), so that
/// mutations reach the header and the values behind the checksum.
std::string withChecksum(std::string body) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : body) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char line[40];
  std::snprintf(line, sizeof line, "CHECKSUM %016" PRIx64 "\n", h);
  return body + line;
}

} // namespace

// The first byte picks the case: odd, the rest of the input gets a correct
// checksum; even, the input is read as it is.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string bytes(reinterpret_cast<const char *>(data) + 1, size - 1);
  if (data[0] & 1)
    bytes = withChecksum(bytes);
  easyml::rt::PopulationState s;
  if (easyml::rt::Status read = easyml::rt::parseState(bytes, s); !read.ok()) {
    if (read.message().empty())
      std::abort(); // a refusal always says why
    return 0;
  }
  // The header's numbers are re-printed canonically, so compare the
  // contents, not the bytes.
  easyml::rt::PopulationState again;
  if (!easyml::rt::parseState(easyml::rt::serializeState(s), again).ok() ||
      again.values.size() != s.values.size() || again.model != s.model ||
      again.sv != s.sv || again.params != s.params || again.cells != s.cells ||
      again.rows.size() != s.rows.size() ||
      again.accumulators != s.accumulators || again.run != s.run)
    std::abort();
  // A checkpoint's run position: refused with a message, or read back the
  // same after writing it.
  if (!s.run.empty()) {
    easyml::rt::RunPosition p, q;
    if (easyml::rt::Status parsed = p.parse(s.run); !parsed.ok()) {
      if (parsed.message().empty())
        std::abort();
      return 0;
    }
    if (!q.parse(p.json()).ok() || q.settings != p.settings ||
        q.files != p.files || q.counters != p.counters ||
        q.speeds.size() != p.speeds.size())
      std::abort();
    (void)q.settingsDiffer(p.settings);
  }
  return 0;
}
