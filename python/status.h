#ifndef SWITCHYARD_PYTHON_STATUS_H_
#define SWITCHYARD_PYTHON_STATUS_H_

// absl::Status as Python exceptions. C++ code of the binding throws a
// StatusError (ThrowIfError, ValueOrThrow); a translator registered with
// pybind11 turns it into the exception class of its code from
// switchyard/_errors.py (switchyard.InvalidArgumentError, NotFoundError,
// ...), every one a switchyard.Error with `.code` ("INVALID_ARGUMENT") and
// the full message.
//
//   std::unique_ptr<runtime::Session> s = ValueOrThrow(runtime::Session::Open(path));
//   ThrowIfError(s->To(device));

#include <exception>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pybind11/pybind11.h"

namespace switchyard {
namespace python {

// A non-OK status on its way to Python.
class StatusError : public std::exception {
 public:
  explicit StatusError(absl::Status status)
      : status_(std::move(status)), what_(status_.ToString()) {}
  const absl::Status& status() const { return status_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  absl::Status status_;
  std::string what_;
};

inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw StatusError(status);
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) throw StatusError(value.status());
  return *std::move(value);
}

// "INVALID_ARGUMENT", as Python's switchyard.Error.code spells it.
std::string StatusCodeName(absl::StatusCode code);

// Registers the StatusError translator (and the code names, as
// `_switchyard.status_codes`) on `m`.
void RegisterStatus(pybind11::module_& m);

}  // namespace python
}  // namespace switchyard

#endif  // SWITCHYARD_PYTHON_STATUS_H_
