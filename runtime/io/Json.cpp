//===- Json.cpp - a JSON reader that keeps positions ----------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/IO/Json.h"

#include <cerrno>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace easyml::rt::json;

const Value *Value::find(const std::string &key) const {
  for (auto &[k, v] : members)
    if (k == key)
      return &v;
  return nullptr;
}

const char *Value::kindName() const {
  switch (kind) {
  case Null:
    return "null";
  case Bool:
    return "a boolean";
  case Number:
    return "a number";
  case String:
    return "a string";
  case Array:
    return "an array";
  case Object:
    return "an object";
  }
  return "a value";
}

namespace {

class Parser {
public:
  explicit Parser(const std::string &text) : s_(text) {}

  bool document(Value &out) {
    if (!value(out, 0))
      return false;
    skipSpace();
    if (i_ < s_.size())
      return fail("unexpected '" + std::string(1, s_[i_]) +
                  "' after the document");
    return true;
  }
  const std::string &error() const { return error_; }

private:
  bool fail(const std::string &what) {
    error_ = std::to_string(line_) + ":" + std::to_string(column()) + ": " +
             what;
    return false;
  }
  int column() const { return static_cast<int>(i_ - lineStart_) + 1; }
  void skipSpace() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\n') {
        ++line_;
        lineStart_ = i_ + 1;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++i_;
    }
  }
  bool literal(const char *word) {
    size_t n = std::strlen(word);
    if (s_.compare(i_, n, word) != 0)
      return false;
    i_ += n;
    return true;
  }

  bool value(Value &v, int depth) {
    skipSpace();
    v.line = line_;
    v.column = column();
    if (depth > 64)
      return fail("nested too deeply");
    if (i_ >= s_.size())
      return fail("unexpected end of the document");
    char c = s_[i_];
    if (c == '{')
      return object(v, depth);
    if (c == '[')
      return array(v, depth);
    if (c == '"') {
      v.kind = Value::String;
      return string(v.string);
    }
    if (literal("true") || literal("false")) {
      v.kind = Value::Bool;
      v.boolean = c == 't';
      return true;
    }
    if (literal("null"))
      return true;
    return number(v);
  }

  bool number(Value &v) {
    const char *start = s_.c_str() + i_;
    char *end = nullptr;
    errno = 0;
    double d = std::strtod(start, &end);
    bool jsonShape = end != start && (std::isdigit(*start) || *start == '-');
    if (!jsonShape || errno == ERANGE || !std::isfinite(d))
      return fail("expected a value (number, string, true, false, null, "
                  "array or object)");
    v.kind = Value::Number;
    v.number = d;
    i_ += end - start;
    return true;
  }

  bool string(std::string &out) {
    ++i_; // the opening quote
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\n')
        return fail("unterminated string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size())
        break;
      char e = s_[i_++];
      const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
      if (const char *p = std::strchr(from, e); p && e)
        out += to[p - from];
      else
        return fail(std::string("unsupported escape '\\") + e + "'");
    }
    if (i_ >= s_.size())
      return fail("unterminated string");
    ++i_;
    return true;
  }

  bool array(Value &v, int depth) {
    v.kind = Value::Array;
    ++i_;
    skipSpace();
    if (i_ < s_.size() && s_[i_] == ']')
      return ++i_, true;
    while (true) {
      v.items.emplace_back();
      if (!value(v.items.back(), depth + 1))
        return false;
      skipSpace();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']')
        return ++i_, true;
      return fail("expected ',' or ']' in the array");
    }
  }

  bool object(Value &v, int depth) {
    v.kind = Value::Object;
    ++i_;
    skipSpace();
    if (i_ < s_.size() && s_[i_] == '}')
      return ++i_, true;
    while (true) {
      skipSpace();
      if (i_ >= s_.size() || s_[i_] != '"')
        return fail("expected a key (a string in double quotes)");
      std::string key;
      size_t keyAt = i_;
      if (!string(key))
        return false;
      for (auto &[k, ignored] : v.members)
        if (k == key) {
          i_ = keyAt;
          return fail("duplicate key '" + key + "'");
        }
      skipSpace();
      if (i_ >= s_.size() || s_[i_] != ':')
        return fail("expected ':' after the key '" + key + "'");
      ++i_;
      v.members.emplace_back(key, Value());
      if (!value(v.members.back().second, depth + 1))
        return false;
      skipSpace();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}')
        return ++i_, true;
      return fail("expected ',' or '}' in the object");
    }
  }

  const std::string &s_;
  size_t i_ = 0, lineStart_ = 0;
  int line_ = 1;
  std::string error_;
};

} // namespace

easyml::rt::Expected<Value> easyml::rt::json::parse(const std::string &text) {
  Parser p(text);
  Value out;
  if (!p.document(out))
    return Status::invalid(p.error());
  return out;
}

easyml::rt::Expected<Value>
easyml::rt::json::parseFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return Status::failed("cannot read '" + path + "': " +
                          std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  Expected<Value> v = parse(ss.str());
  if (!v.ok())
    return v.status().withContext(path + ":");
  return v;
}

std::string easyml::rt::json::write(const Value &v) {
  auto text = [](const std::string &s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\')
        out += '\\';
      if (c == '\n')
        out += "\\n";
      else
        out += c;
    }
    return out + "\"";
  };
  switch (v.kind) {
  case Value::Null:
    return "null";
  case Value::Bool:
    return v.boolean ? "true" : "false";
  case Value::Number: {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v.number);
    return buf;
  }
  case Value::String:
    return text(v.string);
  case Value::Array: {
    std::string out = "[";
    for (size_t i = 0; i < v.items.size(); ++i)
      out += (i ? "," : "") + write(v.items[i]);
    return out + "]";
  }
  case Value::Object: {
    std::string out = "{";
    for (size_t i = 0; i < v.members.size(); ++i)
      out += (i ? "," : "") + text(v.members[i].first) + ":" +
             write(v.members[i].second);
    return out + "}";
  }
  }
  return "null";
}
