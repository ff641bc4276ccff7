// The StatusError -> Python exception translator.

#include "python/status.h"

#include <string>


namespace switchyard {
namespace python {

namespace py = pybind11;

std::string StatusCodeName(absl::StatusCode code) {
  // absl's names are "INVALID_ARGUMENT" etc.
  return absl::StatusCodeToString(code);
}

void RegisterStatus(py::module_& m) {
  py::dict codes;
  for (int c = 1; c <= 16; ++c) {
    const auto code = static_cast<absl::StatusCode>(c);
    codes[py::str(StatusCodeName(code))] = c;
  }
  m.attr("status_codes") = codes;
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const StatusError& e) {
      // The class for the code, made in Python (switchyard/_errors.py): its
      // error_for(code_name, message) returns the exception instance.
      const std::string code = StatusCodeName(e.status().code());
      const std::string message(e.status().message());
      // A message may quote bytes that are not UTF-8 (a model given as
      // bytes, a file name): they become U+FFFD, never a decoding error.
      const py::str text = py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(
          message.data(), static_cast<Py_ssize_t>(message.size()), "replace"));
      try {
        py::object error =
            py::module_::import("switchyard._errors").attr("error_for")(code, text);
        PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
      } catch (py::error_already_set& nested) {
        // switchyard._errors could not be imported (the module was loaded
        // outside its package): a RuntimeError with the code still says all.
        nested.discard_as_unraisable("switchyard: importing switchyard._errors");
        PyErr_Format(PyExc_RuntimeError, "%s: %U", code.c_str(), text.ptr());
      }
    }
  });
}

}  // namespace python
}  // namespace switchyard
