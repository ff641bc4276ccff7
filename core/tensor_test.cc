#include "core/tensor.h"

#include "core/testing/host_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

class TensorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_
                    .Register("host", [] { return testing::MakeHostBackend("host", 2); })
                    .ok());
  }
  Device Host(int i) { return *Device::Create("host", i); }
  BackendRegistry registry_;
};

TEST_F(TensorTest, FromVectorToVectorRoundTrip) {
  absl::StatusOr<Tensor> t =
      Tensor::FromVector({2, 3}, {1, 2, 3, 4, 5, 6}, Host(0), registry_);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), Shape({2, 3}));
  EXPECT_EQ(t->device(), Host(0));
  EXPECT_EQ(*t->ToVector(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(TensorTest, ToAnotherDeviceCopiesAndSameDeviceShares) {
  Tensor t = *Tensor::FromVector({3}, {1, -2, 3}, Host(0), registry_);
  Tensor same = *t.To(Host(0), registry_);
  EXPECT_EQ(same.buffer(), t.buffer());
  Tensor moved = *t.To(Host(1), registry_);
  EXPECT_EQ(moved.device(), Host(1));
  EXPECT_NE(moved.buffer(), t.buffer());
  EXPECT_EQ(*moved.ToVector(), (std::vector<float>{1, -2, 3}));
}

// A copy with host memory on one side is one call on the other device,
// straight into or out of the host buffer; between two devices without it,
// each device is called once, through a staging buffer.
TEST(CopyTensorTest, HostMemorySideSkipsTheStagingBuffer) {
  auto host = std::make_shared<testing::HostBackendCounters>();
  auto other = std::make_shared<testing::HostBackendCounters>();
  BackendRegistry registry;
  ASSERT_TRUE(registry
                  .Register("host", [host] {
                    return testing::MakeHostBackend("host", 1, host, true);
                  })
                  .ok());
  ASSERT_TRUE(registry
                  .Register("other", [other] {
                    return testing::MakeHostBackend("other", 2, other);
                  })
                  .ok());
  const Device host0 = *Device::Create("host", 0);
  const Device other0 = *Device::Create("other", 0);
  const Device other1 = *Device::Create("other", 1);
  const Tensor t = *Tensor::FromVector({3}, {1, -2, 3}, other0, registry);
  const int to_host = other->copies_to_host, from_host = other->copies_from_host;

  const Tensor on_host = *t.To(host0, registry);
  EXPECT_EQ(other->copies_to_host - to_host, 1);
  EXPECT_EQ(host->copies_from_host.load(), 0);  // no staging buffer between
  const Tensor back = *on_host.To(other1, registry);
  EXPECT_EQ(other->copies_from_host - from_host, 1);
  EXPECT_EQ(host->copies_to_host.load(), 0);
  EXPECT_EQ(*back.ToVector(), (std::vector<float>{1, -2, 3}));

  // other:1 -> other:0: neither is host memory, so staged (one call each).
  const int staged_to = other->copies_to_host, staged_from = other->copies_from_host;
  const Tensor staged = *back.To(other0, registry);
  EXPECT_EQ(other->copies_to_host - staged_to, 1);
  EXPECT_EQ(other->copies_from_host - staged_from, 1);
  EXPECT_EQ(*staged.ToVector(), (std::vector<float>{1, -2, 3}));
}

TEST_F(TensorTest, PrintsLikePyTorch) {
  Tensor t = *Tensor::FromVector({2, 2}, {1, 2, -3, 0.5f}, Host(1), registry_);
  EXPECT_EQ(t.ToString(),
            "tensor([[1.0000, 2.0000],\n"
            "        [-3.0000, 0.5000]], device='host:1')");
  Tensor big = *Tensor::FromVector(
      {2000}, std::vector<float>(2000, 1.0f), Host(0), registry_);
  EXPECT_EQ(big.ToString(),
            "tensor([1.0000, 1.0000, 1.0000, ..., 1.0000, 1.0000, 1.0000], "
            "device='host:0')");
}

TEST_F(TensorTest, ErrorsNameTheProblem) {
  absl::StatusOr<Tensor> wrong_count =
      Tensor::FromVector({2, 2}, {1, 2, 3}, Host(0), registry_);
  EXPECT_EQ(wrong_count.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong_count.status().message()),
              HasSubstr("holds 4 elements but 3 values"));

  absl::StatusOr<Tensor> no_device =
      Tensor::FromVector({1}, {1}, Host(2), registry_);
  EXPECT_EQ(no_device.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(no_device.status().message()),
              HasSubstr("device host:2 is not available: backend 'host' has 2 "
                        "devices; use host:0 to host:1"));

  absl::StatusOr<Tensor> no_backend =
      Tensor::FromVector({1}, {1}, *Device::Parse("cuda:0"), registry_);
  EXPECT_EQ(no_backend.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(no_backend.status().message()),
              HasSubstr("no backend is registered for device type 'cuda'; "
                        "registered types: [host]"));
}

TEST(BackendRegistryTest, RejectsDuplicatesAndReportsFailedStart) {
  BackendRegistry registry;
  ASSERT_TRUE(registry.Register("a", [] { return testing::MakeHostBackend("a", 1); }).ok());
  EXPECT_EQ(registry.Register("a", [] { return testing::MakeHostBackend("a", 1); }).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.Register("Bad", nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(registry
                  .Register("broken",
                            []() -> absl::StatusOr<std::unique_ptr<Backend>> {
                              return absl::InternalError("driver exploded");
                            })
                  .ok());
  absl::StatusOr<Backend*> broken = registry.GetBackend("broken");
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(broken.status().message()), HasSubstr("driver exploded"));
  // The others keep working.
  EXPECT_EQ(registry.AvailableDevices(), std::vector<Device>{*Device::Parse("a:0")});
}

}  // namespace
}  // namespace switchyard
