//===- Options.h - gengetopt-style command line for easyml-bench *- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// Long options may be abbreviated to any unique prefix (as openCARP's bench
// accepts), take their value as `--opt=value` or `--opt value`, and have an
// optional short form.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_BENCH_OPTIONS_H
#define EASYML_BENCH_OPTIONS_H

#include <map>
#include <string>
#include <vector>

namespace easyml {
namespace bench {

enum class ArgKind { None, Required, Optional };

struct OptionSpec {
  std::string name;
  char shortName;
  ArgKind arg;
  std::string help;
  std::string defaultValue;
};

class CommandLine {
public:
  explicit CommandLine(std::vector<OptionSpec> specs)
      : specs_(std::move(specs)) {}

  /// Parses argv; on error returns false with every problem in `errors`.
  bool parse(int argc, char **argv, std::vector<std::string> &errors);

  bool has(const std::string &name) const { return values_.count(name); }
  std::string get(const std::string &name) const;
  /// Numeric value; records an error naming the option on a bad number.
  double number(const std::string &name,
                std::vector<std::string> &errors) const;
  long integer(const std::string &name, std::vector<std::string> &errors) const;
  const std::vector<OptionSpec> &specs() const { return specs_; }
  void printHelp(const char *tool) const;

private:
  const OptionSpec *find(const std::string &name, std::string &error) const;
  std::vector<OptionSpec> specs_;
  std::map<std::string, std::string> values_;
};

} // namespace bench
} // namespace easyml

#endif // EASYML_BENCH_OPTIONS_H
