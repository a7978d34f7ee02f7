//===- ParamMods.cpp - openCARP's --imp-par syntax ------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Simulation.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

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

static bool applyFlags(const easyml_model_desc &d, const std::string &value,
                       std::vector<double> &params, std::string &error,
                       std::vector<std::string> *log) {
  for (const std::string &raw : split(value, '|')) {
    std::string name = trim(raw);
    bool found = false;
    for (int64_t f = 0; f < d.num_flags && !found; ++f) {
      std::vector<std::string> cases = split(d.flag_cases[f], '|');
      for (size_t c = 0; c < cases.size(); ++c)
        if (cases[c] == name) {
          params[d.num_params + f] = d.flag_values[f][c];
          found = true;
          if (log)
            log->push_back(std::string(d.flag_names[f]) + " flag: " + name);
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

bool easyml::rt::applyParamMods(const easyml_model_desc &d,
                                const std::string &mods,
                                std::vector<double> &params, std::string &error,
                                std::vector<std::string> *log) {
  if (trim(mods).empty())
    return true;
  std::vector<std::string> items = split(mods, ',');
  // Flags first, as openCARP does.
  for (const std::string &raw : items) {
    std::string item = trim(raw);
    if (item.rfind("flags=", 0) == 0 &&
        !applyFlags(d, item.substr(6), params, error, log))
      return false;
  }
  for (const std::string &raw : items) {
    std::string item = trim(raw);
    if (item.empty()) {
      error = "empty item in parameter modifiers '" + mods + "'";
      return false;
    }
    if (item.rfind("flags=", 0) == 0)
      continue;
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
    char oper = item[op];
    std::string operand = trim(item.substr(op + 1));
    bool percent = !operand.empty() && operand.back() == '%';
    if (percent)
      operand.pop_back();
    errno = 0;
    char *end = nullptr;
    double v = std::strtod(operand.c_str(), &end);
    if (operand.empty() || *end != '\0' || errno == ERANGE ||
        !std::isfinite(v)) {
      error =
          "bad number '" + operand + "' in parameter modifier '" + item + "'";
      return false;
    }
    int64_t index = -1;
    for (int64_t p = 0; p < d.num_params; ++p)
      if (name == d.param_names[p])
        index = p;
    if (index < 0) {
      error = "Unrecognized parameter '" + name + "' for model " +
              std::string(d.name) +
              " (run easyml-bench --imp-info to list "
              "its parameters)";
      return false;
    }
    double &x = params[index];
    double old = x;
    if (percent) {
      switch (oper) {
      case '+':
        x *= 1 + v / 100;
        break;
      case '-':
        x *= 1 - v / 100;
        break;
      case '*':
        x *= v / 100;
        break;
      case '/':
        x /= v / 100;
        break;
      case '=':
        x = old * v / 100;
        break;
      }
    } else {
      switch (oper) {
      case '+':
        x += v;
        break;
      case '-':
        x -= v;
        break;
      case '*':
        x *= v;
        break;
      case '/':
        x /= v;
        break;
      case '=':
        x = v;
        break;
      }
    }
    if (!std::isfinite(x)) {
      error = "parameter modifier '" + item + "' makes " + name + " non-finite";
      return false;
    }
    if (log) {
      std::ostringstream os;
      os << name << " modifier: " << item.substr(op) << " value: " << x;
      log->push_back(os.str());
    }
  }
  return true;
}
