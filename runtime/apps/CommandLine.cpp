//===- CommandLine.cpp - gengetopt-style command lines of the tools
//--------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Apps/CommandLine.h"
#include "easyml/Runtime/Apps/ExitStatus.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace easyml::rt;

const OptionSpec *CommandLine::find(const std::string &name,
                                    std::string &error) const {
  const OptionSpec *match = nullptr;
  std::vector<std::string> candidates;
  for (const OptionSpec &s : specs_) {
    if (s.name == name)
      return &s;
    if (s.name.compare(0, name.size(), name) == 0) {
      candidates.push_back("--" + s.name);
      match = &s;
    }
  }
  if (candidates.size() == 1)
    return match;
  if (candidates.empty()) {
    error = "unknown option '--" + name + "' (see --help)";
  } else {
    error = "option '--" + name + "' is ambiguous:";
    for (auto &c : candidates)
      error += " " + c;
  }
  return nullptr;
}

bool CommandLine::parse(int argc, char **argv,
                        std::vector<std::string> &errors) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const OptionSpec *spec = nullptr;
    std::string value;
    bool hasValue = false;
    if (a.rfind("--", 0) == 0) {
      std::string name = a.substr(2);
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        hasValue = true;
      }
      std::string error;
      spec = find(name, error);
      if (!spec) {
        errors.push_back(error);
        continue;
      }
    } else if (a.size() >= 2 && a[0] == '-' && a[1] != '-') {
      for (const OptionSpec &s : specs_)
        if (s.shortName && s.shortName == a[1])
          spec = &s;
      if (!spec) {
        errors.push_back("unknown option '" + a + "' (see --help)");
        continue;
      }
      if (a.size() > 2) {
        value = a.substr(2);
        hasValue = true;
      }
    } else if (positionals_.size() < maxPositionals_) {
      positionals_.push_back(a);
      continue;
    } else {
      errors.push_back("unexpected argument '" + a +
                       "' (options start with --; see --help)");
      continue;
    }
    if (spec->arg == ArgKind::None && hasValue) {
      errors.push_back("option '--" + spec->name + "' takes no value");
      continue;
    }
    if (spec->arg == ArgKind::Required && !hasValue) {
      if (i + 1 >= argc) {
        errors.push_back("option '--" + spec->name + "' needs a value");
        continue;
      }
      value = argv[++i];
    }
    if (spec->arg == ArgKind::Optional && !hasValue)
      value = spec->defaultValue;
    values_[spec->name] = value;
  }
  return errors.empty();
}

std::string CommandLine::get(const std::string &name) const {
  auto it = values_.find(name);
  if (it != values_.end())
    return it->second;
  for (const OptionSpec &s : specs_)
    if (s.name == name)
      return s.defaultValue;
  return "";
}

double CommandLine::number(const std::string &name,
                           std::vector<std::string> &errors) const {
  std::string v = get(name);
  char *end = nullptr;
  errno = 0;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || errno == ERANGE || !std::isfinite(d)) {
    errors.push_back("option '--" + name + "' expects a number, got '" + v +
                     "'");
    return 0;
  }
  return d;
}

long CommandLine::integer(const std::string &name,
                          std::vector<std::string> &errors) const {
  std::string v = get(name);
  char *end = nullptr;
  errno = 0;
  long l = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end || errno == ERANGE) {
    errors.push_back("option '--" + name + "' expects an integer, got '" + v +
                     "'");
    return 0;
  }
  return l;
}

std::vector<double>
CommandLine::numbers(const std::string &name,
                     std::vector<std::string> &errors) const {
  std::vector<double> out;
  std::string all = get(name);
  size_t start = 0;
  while (start <= all.size() && !all.empty()) {
    size_t comma = std::min(all.find(',', start), all.size());
    std::string item = all.substr(start, comma - start);
    char *end = nullptr;
    double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end || !(v >= 0) || !std::isfinite(v)) {
      errors.push_back("--" + name + ": '" + item +
                       "' is not a number >= 0 (in '" + all + "')");
      return {};
    }
    out.push_back(v);
    start = comma + 1;
  }
  return out;
}

void CommandLine::printHelp(const char *tool, const char *usage) const {
  std::printf("Usage: %s %s\n\nOptions (long names may be abbreviated to a "
              "unique prefix):\n",
              tool, usage);
  for (const OptionSpec &s : specs_) {
    std::string left = "  ";
    left += s.shortName ? std::string("-") + s.shortName + ", " : "    ";
    left += "--" + s.name;
    if (s.arg == ArgKind::Required)
      left += "=VALUE";
    else if (s.arg == ArgKind::Optional)
      left += "[=VALUE]";
    std::printf("%-32s %s", left.c_str(), s.help.c_str());
    if (!s.defaultValue.empty())
      std::printf(" (default %s)", s.defaultValue.c_str());
    std::printf("\n");
  }
  std::printf("\n%s", exitStatusHelp());
}

std::string CommandLine::resultSettings() const {
  std::string out;
  for (const OptionSpec &o : specs_)
    if (o.effect == OptionEffect::Result && has(o.name))
      out += "--" + o.name + "=" + get(o.name) + "\n";
  return out;
}
