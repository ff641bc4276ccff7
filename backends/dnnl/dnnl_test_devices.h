#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_TEST_DEVICES_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_TEST_DEVICES_H_

// The devices the dnnl tests compare: dnnl:0 and the reference backend's
// ref:0 (the oracle), in one registry per test binary.

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backends/dnnl/dnnl_backend.h"
#include "backends/reference/reference_backend.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace onednn {
namespace testing {

inline BackendRegistry& Registry() {
  static BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();
    EXPECT_TRUE(r->Register(kDnnlType, &CreateDnnlBackend).ok());
    EXPECT_TRUE(
        r->Register("ref", [] { return reference::CreateReferenceBackend(1); })
            .ok());
    return r;
  }();
  return *registry;
}

inline BackendDevice& Dnnl() { return **Registry().GetDevice(*Device::Parse("dnnl:0")); }
inline BackendDevice& Ref() { return **Registry().GetDevice(*Device::Parse("ref:0")); }

// Sets registry option `setting` ("dnnl.silu=auto") when it goes out of
// scope: a test that changes an option of the registry, which later tests
// share, puts it back however the test ends.
class RestoreOptionAtExit {
 public:
  explicit RestoreOptionAtExit(std::string setting) : setting_(std::move(setting)) {}
  ~RestoreOptionAtExit() { EXPECT_TRUE(Registry().SetOption(setting_).ok()) << setting_; }

 private:
  std::string setting_;
};

// `n` values uniform in [-scale, scale).
inline std::vector<float> Random(int64_t n, std::mt19937& rng, float scale = 1.0f) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace testing
}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_TEST_DEVICES_H_
