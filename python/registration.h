#ifndef SWITCHYARD_PYTHON_REGISTRATION_H_
#define SWITCHYARD_PYTHON_REGISTRATION_H_

// What each file of the binding adds to the `_switchyard` extension module
// (python/module.cc calls them in order).

#include <string>

#include "pybind11/pybind11.h"

namespace switchyard {
namespace python {

// bench.cc: switchyard.bench(), `switchyard bench` with its JSON's fields.
void RegisterBench(pybind11::module_& m);
// devices.cc: devices(), backends(), device_count(), get_device_name(), ...
void RegisterDevices(pybind11::module_& m);
// mpi.cc: the MpiWorld class switchyard.mpi_world() returns.
void RegisterMpi(pybind11::module_& m);
// plugins.cc: load_plugin(path), SWITCHYARD_PLUGIN_PATH.
void RegisterPlugins(pybind11::module_& m);
// profile.cc: the Profile class session.run(..., profile=True) returns.
void RegisterProfile(pybind11::module_& m);
// session.cc: Session and ValueInfo.
void RegisterSession(pybind11::module_& m);

// devices.cc: sets backend option "type.key" from a Python value (True ->
// "true", 2 -> "2").
void SetOption(const std::string& name, const pybind11::handle& value);

}  // namespace python
}  // namespace switchyard

#endif  // SWITCHYARD_PYTHON_REGISTRATION_H_
