#ifndef SWITCHYARD_CORE_VERSION_H_
#define SWITCHYARD_CORE_VERSION_H_

// Switchyard's version: `switchyard --version`, the JSON reports' "build"
// object and Python's `switchyard.__version__` all read it here.

namespace switchyard {

inline constexpr char kVersion[] = "0.1.0-dev";

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_VERSION_H_
