//===- DeviceSpec.cpp - the devices a simulation asks for -----------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/DeviceSpec.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

using namespace easyml::rt;

namespace {

/// "cpu[:variant][@threads]" into `item`; false with `error`.
bool parseCpu(const std::string &part, const std::string &spec,
              DeviceSpec::Item &item, std::string &error) {
  std::string rest = part.substr(3);
  size_t at = rest.find('@');
  if (at != std::string::npos) {
    std::string n = rest.substr(at + 1);
    char *end = nullptr;
    long v = std::strtol(n.c_str(), &end, 10);
    if (n.empty() || *end || v <= 0 || v > 4096) {
      error = "bad thread count '" + n + "' in '" + spec +
              "' (expected cpu@N with N > 0)";
      return false;
    }
    item.threads = static_cast<int>(v);
    rest = rest.substr(0, at);
  }
  if (!rest.empty()) {
    item.variant = rest.substr(1);
    if (rest[0] != ':' || item.variant.empty()) {
      error = "bad CPU device '" + part + "' in '" + spec +
              "' (expected cpu, cpu:VARIANT, cpu@THREADS or "
              "cpu:VARIANT@THREADS)";
      return false;
    }
  }
  return true;
}

/// "all" or "N,M,..." after a GPU kind.
bool parseIndices(const std::string &sel, const std::string &spec,
                  DeviceSpec::Item &item, std::string &error) {
  if (sel == "all")
    return true;
  item.all = false;
  std::stringstream nums(sel);
  for (std::string n; std::getline(nums, n, ',');) {
    char *end = nullptr;
    long v = std::strtol(n.c_str(), &end, 10);
    if (n.empty() || *end || v < 0) {
      error = "bad device number '" + n + "' in '" + spec + "'";
      return false;
    }
    item.indices.push_back(static_cast<int>(v));
  }
  return true;
}

bool parseItem(const std::string &part, const std::string &spec,
               DeviceSpec::Item &item, std::string &error) {
  using Kind = DeviceSpec::Item::Kind;
  item.text = part;
  size_t colon = part.find(':');
  std::string kind = part.substr(0, colon);
  if (kind == "cpu" || kind.rfind("cpu@", 0) == 0) {
    item.kind = Kind::Cpu;
    return parseCpu(part, spec, item, error);
  }
  if (kind == "auto") {
    item.kind = Kind::Auto;
    if (colon == std::string::npos)
      return true;
    error = "'auto' takes no device numbers (in '" + spec + "')";
    return false;
  }
  std::optional<Backend> backend = parseBackend(kind);
  if (kind != "gpu" && (!backend || *backend == Backend::Cpu)) {
    error = "unknown device '" + part + "' in '" + spec +
            "' (expected cpu[:VARIANT][@THREADS], gpu[:N,...|all], "
            "cuda[:...], rocm[:...] or auto)";
    return false;
  }
  item.kind = kind == "gpu" ? Kind::AnyGpu : Kind::Gpu;
  item.backend = backend.value_or(Backend::Cpu);
  return colon == std::string::npos ||
         parseIndices(part.substr(colon + 1), spec, item, error);
}

} // namespace

DeviceSpec::DeviceSpec(const std::string &spec) : text(spec) {
  std::string s = spec;
  s.erase(std::remove_if(s.begin(), s.end(), ::isspace), s.end());
  if (s.empty()) {
    error = "empty device list (expected cpu, gpu:0,1, cuda:all, "
            "cpu+gpu:all or auto)";
    return;
  }
  std::stringstream parts(s);
  for (std::string part; std::getline(parts, part, '+');) {
    Item item;
    if (!parseItem(part, spec, item, error)) {
      items.clear();
      return;
    }
    items.push_back(item);
  }
  if (automatic() && items.size() > 1) {
    error =
        "'auto' chooses the devices itself: give it alone (not '" + spec + "')";
    items.clear();
  }
}

bool DeviceSpec::automatic() const {
  for (const Item &i : items)
    if (i.kind == Item::Kind::Auto)
      return true;
  return false;
}

bool DeviceSpec::wantsGpu() const {
  for (const Item &i : items)
    if (i.kind == Item::Kind::AnyGpu || i.kind == Item::Kind::Gpu)
      return true;
  return false;
}
