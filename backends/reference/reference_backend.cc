#include "backends/reference/reference_backend.h"

#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "backends/reference/ref_device.h"

namespace switchyard {
namespace reference {
namespace {

constexpr char kDevicesOption[] = "devices";

class RefBackend : public Backend {
 public:
  explicit RefBackend(int device_count) {
    for (int i = 0; i < device_count; ++i) {
      devices_.push_back(
          std::make_unique<RefDevice>(*Device::Create(kReferenceType, i)));
    }
  }

  std::string type() const override { return kReferenceType; }
  int DeviceCount() const override { return static_cast<int>(devices_.size()); }
  std::string UnavailableReason() const override {
    if (!devices_.empty()) return "";
    return absl::StrCat("the reference backend was configured with 0 devices (",
                        kRefDevicesEnv, "=0); set ", kRefDevicesEnv,
                        " to 1..", kMaxRefDevices, " or unset it for ",
                        kDefaultRefDevices);
  }
  BackendDevice& GetDevice(int index) override { return *devices_[index]; }

  std::vector<BackendOption> Options() const override {
    return {{kDevicesOption, absl::StrCat(devices_.size()),
             absl::StrCat("number of ref devices (read-only: set ",
                          kRefDevicesEnv, " before the backend starts)")}};
  }

  absl::Status SetOption(const std::string& key,
                         const std::string& value) override {
    if (key == kDevicesOption) {
      // Devices are handed out by reference: their number cannot change
      // while the backend lives.
      return absl::InvalidArgumentError(
          absl::StrCat("option '", kDevicesOption,
                       "' of the reference backend is "
                       "read-only (it has ",
                       devices_.size(), "); set ", kRefDevicesEnv, "=", value,
                       " before the backend starts instead"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("the reference backend has no option '", key,
                     "'; its options: ", kDevicesOption, " (read-only)"));
  }

 private:
  std::vector<std::unique_ptr<RefDevice>> devices_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Backend>> CreateReferenceBackend(
    int device_count) {
  if (device_count < 0 || device_count > kMaxRefDevices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the reference backend takes 0 to ", kMaxRefDevices,
        " devices, got ", device_count));
  }
  return std::make_unique<RefBackend>(device_count);
}

absl::StatusOr<int> RefDeviceCountFromEnv() {
  const char* value = std::getenv(kRefDevicesEnv);
  if (value == nullptr || *value == '\0') return kDefaultRefDevices;
  int count = 0;
  if (!absl::SimpleAtoi(value, &count) || count < 0 || count > kMaxRefDevices) {
    return absl::InvalidArgumentError(absl::StrCat(
        kRefDevicesEnv, "='", value, "' is not a device count; set it to an ",
        "integer from 0 to ", kMaxRefDevices, ", or unset it for ",
        kDefaultRefDevices, " devices"));
  }
  return count;
}

absl::StatusOr<std::unique_ptr<Backend>> CreateReferenceBackendFromEnv() {
  absl::StatusOr<int> count = RefDeviceCountFromEnv();
  if (!count.ok()) return count.status();
  return CreateReferenceBackend(*count);
}

std::vector<std::pair<std::string, DType>> ReferenceKernelKeys() {
  return RefKernels().Keys();
}

}  // namespace reference
}  // namespace switchyard
