// The `_switchyard` extension module: the C++ half of the Python package
// `switchyard` (python/switchyard_py/__init__.py re-exports it). Linked into
// it: the CPU backend, the CUDA backend (or its stand-in that says why
// there is no cuda device), the ONNX importer and the built-in models.

#include "core/version.h"
#include "pybind11/pybind11.h"
#include "python/registration.h"
#include "python/status.h"

PYBIND11_MODULE(_switchyard, m) {
  m.doc() = "Switchyard, a C++17 inference runtime: the extension module behind "
            "the `switchyard` package.";
  m.attr("__version__") = switchyard::kVersion;
  switchyard::python::RegisterStatus(m);
  switchyard::python::RegisterBench(m);
  switchyard::python::RegisterDevices(m);
  switchyard::python::RegisterMpi(m);
  switchyard::python::RegisterPlugins(m);
  switchyard::python::RegisterProfile(m);
  switchyard::python::RegisterSession(m);
}
