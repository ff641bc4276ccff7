#ifndef SWITCHYARD_BACKENDS_REFERENCE_REFERENCE_BACKEND_H_
#define SWITCHYARD_BACKENDS_REFERENCE_REFERENCE_BACKEND_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backend.h"
#include "core/dtype.h"

namespace switchyard {
namespace reference {

// The reference backend: plain loops for every op in ops/, written to be
// read, not to be fast, and accumulating in double where that makes the
// result closer to exact. It is the oracle of the conformance suite
// (tests/conformance_test.cc), and with several devices it lets placement
// between devices be tested on any machine.
//
// Devices "ref:0", "ref:1", ... (kDefaultRefDevices unless the environment
// variable SWITCHYARD_REF_DEVICES says otherwise), each with its own host
// memory allocations: a copy between two of them is a real copy (memcpy,
// CopyToDevice), never shared memory.
//
// Kernels: float32 for every op, accumulating in double; the pure data
// movement ops (flatten, dropout) in every dtype; relu and add also in
// float64 (ReferenceKernelKeys() lists them).
//
// Options: "devices", read-only (the device count, set by
// SWITCHYARD_REF_DEVICES before the backend starts).
//
// Linking //backends/reference registers it in BackendRegistry::Global() as
// type "ref"; //backends/reference:libswitchyard_ref_plugin.so is the same
// backend as a plugin (core/plugin.h). Tests make their own:
//
//   BackendRegistry registry;
//   registry.Register("ref", [] { return reference::CreateReferenceBackend(3);
//   }); BackendDevice* ref2 = *registry.GetDevice(*Device::Parse("ref:2"));
inline constexpr char kReferenceType[] = "ref";
inline constexpr int kDefaultRefDevices = 2;
inline constexpr int kMaxRefDevices = 64;
inline constexpr char kRefDevicesEnv[] = "SWITCHYARD_REF_DEVICES";

// `device_count` devices, 0 to kMaxRefDevices; InvalidArgument otherwise.
absl::StatusOr<std::unique_ptr<Backend>> CreateReferenceBackend(
    int device_count);

// The device count SWITCHYARD_REF_DEVICES asks for (kDefaultRefDevices when
// unset or empty); InvalidArgument naming the variable for anything but an
// integer from 0 to kMaxRefDevices.
absl::StatusOr<int> RefDeviceCountFromEnv();

// CreateReferenceBackend(RefDeviceCountFromEnv()): what the static registrar
// and the plugin register.
absl::StatusOr<std::unique_ptr<Backend>> CreateReferenceBackendFromEnv();

// Every (op, dtype) it has a kernel for, sorted: what the conformance suite
// runs, and the oracle it compares other backends with.
std::vector<std::pair<std::string, DType>> ReferenceKernelKeys();

}  // namespace reference
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_REFERENCE_REFERENCE_BACKEND_H_
