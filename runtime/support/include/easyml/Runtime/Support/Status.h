//===- Status.h - errors as values ------------------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// What the runtime's fallible calls return: `Status` (success, or an error
// with its kind and a message naming the offending thing: the file and
// line, the option, the cell) and `Expected<T>` (a value or such an error).
// The runtime never exits and never picks an exit status; the tools turn an
// error's kind into theirs in one place (Apps/ExitStatus.h).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_SUPPORT_STATUS_H
#define EASYML_RUNTIME_SUPPORT_STATUS_H

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace easyml::rt {

/// What went wrong, as far as a caller can act on it.
enum class ErrorKind {
  /// What was given is wrong: an option, a configuration, a model, a
  /// file's contents. Running again with the same input fails the same way.
  Invalid,
  /// The run could not go on: a file that cannot be written, a device lost
  /// beyond recovery, a rank that stopped.
  Failed,
  /// The simulation produced a non-finite value (the model blew up).
  NonFinite,
};

class [[nodiscard]] Status {
public:
  /// Success.
  Status() = default;
  static Status success() { return Status(); }
  static Status error(ErrorKind kind, std::string message) {
    return Status(kind, std::move(message));
  }
  static Status invalid(std::string message) {
    return error(ErrorKind::Invalid, std::move(message));
  }
  static Status failed(std::string message) {
    return error(ErrorKind::Failed, std::move(message));
  }
  static Status nonFinite(std::string message) {
    return error(ErrorKind::NonFinite, std::move(message));
  }

  bool ok() const { return !error_; }
  /// The error's kind (Failed for a success, which has none).
  ErrorKind kind() const {
    assert(error_ && "kind() of a success");
    return error_ ? error_->kind : ErrorKind::Failed;
  }
  const std::string &message() const {
    static const std::string none;
    return error_ ? error_->message : none;
  }
  /// The same error with `prefix` before its message ("cable.json: ...");
  /// a success stays one.
  Status withContext(const std::string &prefix) const {
    return ok() ? Status() : Status(kind(), prefix + message());
  }

private:
  struct Error {
    ErrorKind kind;
    std::string message;
  };
  Status(ErrorKind kind, std::string message)
      : error_(std::make_shared<const Error>(Error{kind, std::move(message)})) {
  }
  std::shared_ptr<const Error> error_;
};

/// A value, or the error that stopped it being made.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T &&value) : value_(std::move(value)) {}
  Expected(const T &value) : value_(value) {}
  /// An error. A success given here (a caller's mistake) becomes a Failed
  /// error, so that it is never taken for a value.
  Expected(Status status) : status_(std::move(status)) {
    assert(!status_.ok() && "an Expected made from a success");
    if (status_.ok())
      status_ = Status::failed("internal error: a result without its value");
  }

  bool ok() const { return value_.has_value(); }
  const Status &status() const { return status_; }
  /// The value; only where ok() (std::bad_optional_access otherwise).
  T &operator*() { return value_.value(); }
  const T &operator*() const { return value_.value(); }
  T *operator->() { return &value_.value(); }
  const T *operator->() const { return &value_.value(); }
  /// The value, moved out; only where ok().
  T take() { return std::move(value_.value()); }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace easyml::rt

#endif // EASYML_RUNTIME_SUPPORT_STATUS_H
