//===- Json.h - JSON documents with positions -------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// A small JSON reader for configuration files: every value keeps the line
// and column it starts at, so a reader of the document can say where a bad
// value is; object members keep their order.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_JSON_H
#define EASYML_RUNTIME_JSON_H

#include "easyml/Runtime/Support/Status.h"

#include <string>
#include <utility>
#include <vector>

namespace easyml {
namespace rt {
namespace json {

struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> members;
  /// Where the value starts (1-based).
  int line = 0, column = 0;

  bool isNumber() const { return kind == Number; }
  bool isString() const { return kind == String; }
  bool isArray() const { return kind == Array; }
  bool isObject() const { return kind == Object; }
  /// The member named `key` of an object, or null.
  const Value *find(const std::string &key) const;
  /// "a number", "an object", ... for messages.
  const char *kindName() const;
};

/// Parses `text`; an Invalid error ("LINE:COLUMN: what") on bad JSON.
Expected<Value> parse(const std::string &text);

/// Reads and parses the file at `path`; an Invalid error ("PATH:LINE:
/// COLUMN: what"), or a Failed one when it cannot be read.
Expected<Value> parseFile(const std::string &path);

/// `v` as compact JSON on one line (members in their order, numbers to
/// 17 significant digits): equal values give equal text.
std::string write(const Value &v);

} // namespace json
} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_JSON_H
