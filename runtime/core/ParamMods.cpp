//===- ParamMods.cpp - openCARP's --imp-par syntax ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Core/Params.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace easyml::rt;

static std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

static std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

static bool parseFlags(const easyml_model_desc &d, const std::string &item,
                       std::vector<ParamMod> &out, std::string &error) {
  for (const std::string &raw : split(item.substr(6), '|')) {
    std::string name = trim(raw);
    bool found = false;
    for (int64_t f = 0; f < d.num_flags && !found; ++f) {
      std::vector<std::string> cases = split(d.flag_cases[f], '|');
      for (size_t c = 0; c < cases.size(); ++c)
        if (cases[c] == name) {
          ParamMod m;
          m.index = d.num_params + f;
          m.operand = d.flag_values[f][c];
          m.text = name;
          out.push_back(m);
          found = true;
          break;
        }
    }
    if (!found) {
      std::string all;
      for (int64_t f = 0; f < d.num_flags; ++f)
        all += (all.empty() ? "" : "|") + std::string(d.flag_cases[f]);
      error = "illegal flag '" + name + "' for model " + d.name +
              (all.empty() ? " (it has no flags)" : " (flags: " + all + ")");
      return false;
    }
  }
  return true;
}

static bool parseItem(const easyml_model_desc &d, const std::string &item,
                      ParamMod &m, std::string &error) {
  size_t op = item.find_first_of("=*/+-");
  // A name may not start with an operator; '-'/'+' inside an exponent
  // come after the operator position we find first.
  if (op == std::string::npos || op == 0) {
    error = "malformed parameter modifier '" + item +
            "' (expected name=v, name*v, name/v, name+v or name-v, "
            "optionally with %)";
    return false;
  }
  std::string name = trim(item.substr(0, op));
  std::string operand = trim(item.substr(op + 1));
  m.op = item[op];
  m.percent = !operand.empty() && operand.back() == '%';
  if (m.percent)
    operand.pop_back();
  errno = 0;
  char *end = nullptr;
  m.operand = std::strtod(operand.c_str(), &end);
  if (operand.empty() || *end != '\0' || errno == ERANGE ||
      !std::isfinite(m.operand)) {
    error = "bad number '" + operand + "' in parameter modifier '" + item + "'";
    return false;
  }
  for (int64_t p = 0; p < d.num_params; ++p)
    if (name == d.param_names[p])
      m.index = p;
  if (m.index < 0) {
    error = "Unrecognized parameter '" + name + "' for model " +
            std::string(d.name) +
            " (run easyml-bench --imp-info to list its parameters)";
    return false;
  }
  m.text = item;
  return true;
}

bool easyml::rt::parseParamMods(const easyml_model_desc &d,
                                const std::string &mods,
                                std::vector<ParamMod> &items,
                                std::string &error) {
  items.clear();
  if (trim(mods).empty())
    return true;
  std::vector<std::string> parts = split(mods, ',');
  // Flags first, as openCARP does.
  for (const std::string &raw : parts) {
    std::string item = trim(raw);
    if (item.rfind("flags=", 0) == 0 && !parseFlags(d, item, items, error))
      return false;
  }
  for (const std::string &raw : parts) {
    std::string item = trim(raw);
    if (item.empty()) {
      error = "empty item in parameter modifiers '" + mods + "'";
      return false;
    }
    if (item.rfind("flags=", 0) == 0)
      continue;
    ParamMod m;
    if (!parseItem(d, item, m, error))
      return false;
    items.push_back(m);
  }
  return true;
}
