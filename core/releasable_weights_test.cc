// Weights given back and read again (core/releasable_weights.h): pins keep
// them, a release takes whole pages, a restore checks out, views count as
// the buffer they look into, and a failed restore is an error.

#include "core/releasable_weights.h"

#include <cstring>
#include <memory>
#include <vector>

#include "core/backend_registry.h"
#include "core/shared_memory.h"
#include "core/testing/host_backend.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

constexpr int64_t kFloats = 1 << 18;  // 1 MiB

class ReleasableWeightsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_
                    .Register("host",
                              [this] {
                                return testing::MakeHostBackend("host", 2, counters_,
                                                                /*host_memory=*/true);
                              })
                    .ok());
    for (int64_t i = 0; i < kFloats; ++i) values_[i] = static_cast<float>(i % 1000) + 0.5f;
    weight_ = *Tensor::FromVector(Shape({kFloats}), values_, *Device::Parse("host:0"), registry_);
  }

  // Registers weight_, restored from values_, counting the restores.
  void Register() {
    ReleasableWeights::Global().Register(weight_, [this](void* dst, size_t bytes) {
      ++restores_;
      if (fail_restore_) return absl::DataLossError("the file changed");
      std::memcpy(dst, values_.data(), bytes);
      return absl::OkStatus();
    });
  }
  // weight_ registered, in a graph that no longer pins it, given back.
  std::shared_ptr<ConstantResidency> GivenBack() {
    Register();
    absl::StatusOr<std::shared_ptr<ConstantResidency>> r =
        ReleasableWeights::Global().Residency(weight_);
    if (!r.ok() || *r == nullptr) return nullptr;
    (*r)->Unpin();
    (*r)->ReleaseIfUnread();
    return *r;
  }
  // Whether the weight's bytes are its values.
  bool Intact() const {
    return std::memcmp(weight_.buffer()->data(), values_.data(), weight_.size_bytes()) == 0;
  }

  std::shared_ptr<testing::HostBackendCounters> counters_ =
      std::make_shared<testing::HostBackendCounters>();
  BackendRegistry registry_;
  std::vector<float> values_ = std::vector<float>(kFloats);
  Tensor weight_;
  int restores_ = 0;
  bool fail_restore_ = false;
};

TEST_F(ReleasableWeightsTest, AnUnregisteredTensorIsNeverGivenBack) {
  absl::StatusOr<std::shared_ptr<ConstantResidency>> r =
      ReleasableWeights::Global().Residency(weight_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, nullptr);
  absl::StatusOr<std::shared_ptr<const void>> pin = ReleasableWeights::Global().Pin(weight_);
  ASSERT_TRUE(pin.ok()) << pin.status();
  EXPECT_EQ(*pin, nullptr);
}

TEST_F(ReleasableWeightsTest, GivenBackOnlyWhenUnpinnedAndReadBackWhenPinned) {
  Register();
  absl::StatusOr<std::shared_ptr<ConstantResidency>> r =
      ReleasableWeights::Global().Residency(weight_);
  ASSERT_TRUE(r.ok() && *r != nullptr) << r.status();
  const ReleasableWeights::Stats before = ReleasableWeights::Global().stats();
  (*r)->ReleaseIfUnread();  // the graph still pins it
  EXPECT_EQ(ReleasableWeights::Global().stats().released, before.released);
  EXPECT_TRUE(Intact());

  (*r)->Unpin();
  (*r)->ReleaseIfUnread();
  EXPECT_EQ(ReleasableWeights::Global().stats().released, before.released + 1);
  EXPECT_GT(ReleasableWeights::Global().stats().released_bytes, before.released_bytes);
  EXPECT_FALSE(Intact());  // its pages are gone (they read as zeros)

  // A plan that reads it while running pins it: read back first.
  absl::StatusOr<std::shared_ptr<const void>> pin = ReleasableWeights::Global().Pin(weight_);
  ASSERT_TRUE(pin.ok() && *pin != nullptr) << pin.status();
  EXPECT_EQ(restores_, 1);
  EXPECT_TRUE(Intact());
  (*r)->ReleaseIfUnread();  // pinned: stays
  EXPECT_TRUE(Intact());
  // Read back once, it is kept: a workload of many shapes would read it
  // from the file for every one.
  pin->reset();
  (*r)->ReleaseIfUnread();
  EXPECT_TRUE(Intact());
  ASSERT_TRUE((*r)->MakeResident().ok());
  EXPECT_EQ(restores_, 1);
}

TEST_F(ReleasableWeightsTest, AViewOfTheBufferPinsIt) {
  Register();
  absl::StatusOr<Tensor> view =
      ShareWith(weight_, **registry_.GetDevice(*Device::Parse("host:1")));
  ASSERT_TRUE(view.ok()) << view.status();
  absl::StatusOr<std::shared_ptr<ConstantResidency>> r =
      ReleasableWeights::Global().Residency(weight_);
  ASSERT_TRUE(r.ok() && *r != nullptr);
  (*r)->Unpin();
  absl::StatusOr<std::shared_ptr<const void>> pin = ReleasableWeights::Global().Pin(*view);
  ASSERT_TRUE(pin.ok() && *pin != nullptr) << pin.status();
  (*r)->ReleaseIfUnread();
  EXPECT_TRUE(Intact());
}

TEST_F(ReleasableWeightsTest, AFailedRestoreIsAnErrorNotWrongValues) {
  std::shared_ptr<ConstantResidency> r = GivenBack();
  ASSERT_NE(r, nullptr);
  fail_restore_ = true;
  absl::StatusOr<std::shared_ptr<const void>> pin = ReleasableWeights::Global().Pin(weight_);
  EXPECT_EQ(pin.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(r->MakeResident().code(), absl::StatusCode::kDataLoss);
  fail_restore_ = false;
  EXPECT_TRUE(r->MakeResident().ok());
  EXPECT_TRUE(Intact());
}

TEST_F(ReleasableWeightsTest, MakeResidentRestoresAfterARelease) {
  std::shared_ptr<ConstantResidency> r = GivenBack();
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(Intact());
  ASSERT_TRUE(r->MakeResident().ok());
  EXPECT_EQ(restores_, 1);
  EXPECT_TRUE(Intact());
}

TEST_F(ReleasableWeightsTest, SmallTensorsAndGoneBuffersAreNotTracked) {
  Tensor small = *Tensor::FromVector(Shape({4}), std::vector<float>{1, 2, 3, 4},
                                     *Device::Parse("host:0"), registry_);
  ReleasableWeights::Global().Register(small, [](void*, size_t) { return absl::OkStatus(); });
  EXPECT_EQ(*ReleasableWeights::Global().Pin(small), nullptr);
  Register();
  weight_ = Tensor();  // the buffer is gone; whatever takes its place is not it
  Tensor fresh = *Tensor::FromVector(Shape({kFloats}), values_, *Device::Parse("host:0"),
                                     registry_);
  EXPECT_EQ(*ReleasableWeights::Global().Pin(fresh), nullptr);
}

}  // namespace
}  // namespace switchyard
