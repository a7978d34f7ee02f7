//===- CommandLine.h - gengetopt-style command lines of the tools -*- C++
//-*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The command line of the runtime's tools (easyml-bench, easyml-drug,
// easyml-tissue): long options may be abbreviated to any unique prefix (as
// openCARP's bench accepts), take their value as `--opt=value` or `--opt
// value`, and have an optional short form; a tool may take positional
// arguments. Every problem is reported, not only the first.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_COMMANDLINE_H
#define EASYML_RUNTIME_COMMANDLINE_H

#include <map>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

enum class ArgKind { None, Required, Optional };

/// Whether an option changes what a run computes and writes (a restart
/// must be given the same value) or only how the run goes (devices,
/// threads, balancing, reports, checkpoints, progress).
enum class OptionEffect { Result, HowItRuns };

struct OptionSpec {
  std::string name;
  char shortName;
  ArgKind arg;
  std::string help;
  std::string defaultValue;
  OptionEffect effect = OptionEffect::Result;
};

class CommandLine {
public:
  /// `positionals`: how many arguments that are not options the tool
  /// takes (more are an error).
  explicit CommandLine(std::vector<OptionSpec> specs, size_t positionals = 0)
      : specs_(std::move(specs)), maxPositionals_(positionals) {}

  /// Parses argv; on error returns false with every problem in `errors`.
  bool parse(int argc, char **argv, std::vector<std::string> &errors);

  bool has(const std::string &name) const { return values_.count(name); }
  std::string get(const std::string &name) const;
  /// Numeric value; records an error naming the option on a bad number.
  double number(const std::string &name,
                std::vector<std::string> &errors) const;
  long integer(const std::string &name, std::vector<std::string> &errors) const;
  /// A comma-separated list of numbers >= 0; records an error naming the
  /// option and the bad item ("--doses: 'x' is not a number >= 0").
  std::vector<double> numbers(const std::string &name,
                              std::vector<std::string> &errors) const;
  const std::vector<OptionSpec> &specs() const { return specs_; }
  /// The arguments that are not options, in order.
  const std::vector<std::string> &positionals() const { return positionals_; }
  /// "Usage: TOOL USAGE", every option with its help and default, and the
  /// exit statuses.
  void printHelp(const char *tool, const char *usage) const;
  /// The options given that change the result, one "--name=value" line
  /// each in the order of the specs: what a restart must match.
  std::string resultSettings() const;

private:
  const OptionSpec *find(const std::string &name, std::string &error) const;
  std::vector<OptionSpec> specs_;
  size_t maxPositionals_ = 0;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positionals_;
};

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_COMMANDLINE_H
