//===- EnumOption.h - enum options that report bad values late -*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The parser of command-line and pass options whose values are an enum's.
// Such an option is declared as any enum option, its spellings given with
// `llvm::cl::values(clEnumValN(...))`, and the code switches on the enum.
// What differs is an unknown spelling: LLVM's parser fails on it with
// "Cannot find option named ..." and stops at the first bad option, while
// EasyML's passes and pipelines report every bad option at once, each
// named with the values it takes. So the parser keeps the spelling instead
// (the option keeps the enum's first value) and the option's owner reports
// it with its other problems: `unknownValue(option)`.
//
// EASYML_ENUM_OPTION_PARSER(E) makes this the parser of every option over
// `E`; it is used at global scope, next to the enum, so that every option
// over `E` sees it.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_SUPPORT_ENUMOPTION_H
#define EASYML_SUPPORT_ENUMOPTION_H

#include "easyml/ABI/Backend.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>

namespace easyml {

/// llvm::cl::parser<E> for an enum `E`, keeping unknown spellings for the
/// option's owner to report. Laid out as LLVM's generic parser (the
/// `Values` MLIR's pass options print from).
template <typename E>
class EnumOptionParser : public llvm::cl::generic_parser_base {
protected:
  class OptionInfo : public GenericOptionInfo {
  public:
    OptionInfo(llvm::StringRef name, E value, llvm::StringRef help)
        : GenericOptionInfo(name, help), V(value) {}
    llvm::cl::OptionValue<E> V;
  };
  llvm::SmallVector<OptionInfo, 8> Values;

public:
  using parser_data_type = E;

  EnumOptionParser(llvm::cl::Option &owner) : generic_parser_base(owner) {}

  unsigned getNumOptions() const override { return Values.size(); }
  llvm::StringRef getOption(unsigned n) const override {
    return Values[n].Name;
  }
  llvm::StringRef getDescription(unsigned n) const override {
    return Values[n].HelpStr;
  }
  const llvm::cl::GenericOptionValue &getOptionValue(unsigned n) const override {
    return Values[n].V;
  }

  /// Never fails: an unknown spelling is kept (see getUnknownValue).
  bool parse(llvm::cl::Option &, llvm::StringRef, llvm::StringRef arg,
             E &value) {
    for (const OptionInfo &info : Values)
      if (info.Name == arg) {
        value = info.V.getValue();
        unknown.reset();
        return false;
      }
    unknown = arg.str();
    return false;
  }

  /// Called by llvm::cl::values.
  template <typename T>
  void addLiteralOption(llvm::StringRef name, const T &value,
                        llvm::StringRef help) {
    Values.emplace_back(name, static_cast<E>(value), help);
    llvm::cl::AddLiteralOption(Owner, name);
  }
  void removeLiteralOption(llvm::StringRef name) {
    unsigned n = findOption(name);
    assert(n != Values.size() && "no option to remove");
    Values.erase(Values.begin() + n);
  }

  /// The last spelling given that is none of the values, unless a known
  /// one followed it.
  const std::optional<std::string> &getUnknownValue() const { return unknown; }

private:
  std::optional<std::string> unknown;
};

/// The unknown spelling given to `option` (an llvm::cl::opt or a pass
/// option over an enum with EASYML_ENUM_OPTION_PARSER), if any.
template <typename OptionT>
const std::optional<std::string> &unknownValue(const OptionT &option) {
  // llvm::cl::opt has no const access to its parser; reading it changes
  // nothing.
  return const_cast<OptionT &>(option).getParser().getUnknownValue();
}

/// The spellings of options over the GPU backends.
inline llvm::cl::ValuesClass gpuBackendValues() {
  return llvm::cl::values(
      clEnumValN(Backend::Cuda, "cuda", "NVIDIA: NVVM, PTX, cubin"),
      clEnumValN(Backend::Rocm, "rocm", "AMD: ROCDL, hsaco"));
}

} // namespace easyml

/// Makes easyml::EnumOptionParser the parser of options over `ENUM` (a
/// fully qualified name); at global scope.
#define EASYML_ENUM_OPTION_PARSER(ENUM)                                        \
  template <>                                                                  \
  class llvm::cl::parser<ENUM> : public ::easyml::EnumOptionParser<ENUM> {     \
  public:                                                                      \
    parser(Option &owner) : ::easyml::EnumOptionParser<ENUM>(owner) {}         \
  }

// The backend is an option of passes in several layers (device math, the
// opaque lowering, the GPU pipelines).
EASYML_ENUM_OPTION_PARSER(easyml::Backend);

#endif // EASYML_SUPPORT_ENUMOPTION_H
