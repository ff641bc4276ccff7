// Replicas on the reference backend's devices (ref:0, ref:1, linked in):
// splitting, joining, and outputs equal to one device's bit for bit.

#include "runtime/replicas.h"

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "core/backend_registry.h"
#include "core/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/linear.h"
#include "models/parameterless_layers.h"
#include "models/sequential.h"

namespace switchyard {
namespace runtime {
namespace {

using ::testing::HasSubstr;

std::vector<int64_t> Counts(const std::vector<BatchSlice>& slices) {
  std::vector<int64_t> counts;
  int64_t next = 0;
  for (const BatchSlice& s : slices) {
    EXPECT_EQ(s.offset, next);
    next += s.count;
    counts.push_back(s.count);
  }
  return counts;
}

TEST(SplitBatchTest, EvenAsPossibleInOrder) {
  EXPECT_EQ(Counts(SplitBatch(8, 2)), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(Counts(SplitBatch(5, 2)), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Counts(SplitBatch(7, 4)), (std::vector<int64_t>{2, 2, 2, 1}));
  EXPECT_EQ(Counts(SplitBatch(1, 4)), (std::vector<int64_t>{1, 0, 0, 0}));
}

TEST(SliceRowsTest, SliceAndJoinRoundTrip) {
  HostArray a(Shape({5, 2}), std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  std::vector<HostArray> parts;
  for (const BatchSlice& s : SplitBatch(5, 3)) parts.push_back(SliceRows(a, s));
  EXPECT_EQ(parts[0].shape, Shape({2, 2}));
  EXPECT_EQ(parts[2].shape, Shape({1, 2}));
  absl::StatusOr<HostArray> joined = JoinRows(parts, "output 0");
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(joined->shape, a.shape);
  EXPECT_EQ(joined->bytes, a.bytes);
  HostArray other(Shape({1, 3}), std::vector<float>{0, 1, 2});
  parts.push_back(other);
  EXPECT_EQ(JoinRows(parts, "output 0").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ParseReplicaDevicesTest, RefusesDuplicatesAndMissingDevices) {
  BackendRegistry& registry = BackendRegistry::Global();
  absl::StatusOr<std::vector<Device>> ok = ParseReplicaDevices("ref:0,ref:1", registry);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->size(), 2u);
  absl::StatusOr<std::vector<Device>> twice = ParseReplicaDevices("ref:1,ref:0,ref:1", registry);
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(twice.status().message(), HasSubstr("ref:1 is named twice"));
  absl::StatusOr<std::vector<Device>> missing = ParseReplicaDevices("ref:0,ref:63", registry);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(missing.status().message(), HasSubstr("ref:63 is not available"));
  EXPECT_EQ(ParseReplicaDevices(",", registry).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseReplicaDevices("ref:x", registry).status().code(),
            absl::StatusCode::kInvalidArgument);
}

std::unique_ptr<Module> SmallNet() {
  auto net = std::make_unique<nn::Sequential>(BackendRegistry::Global());
  net->Add(std::make_unique<nn::Linear>(6, 16));
  net->Add(std::make_unique<nn::ReLU>());
  net->Add(std::make_unique<nn::Linear>(16, 3));
  return net;
}

absl::StatusOr<std::shared_ptr<Module>> MakeOn(const Device& device, int) {
  std::shared_ptr<Module> net = SmallNet();
  SY_RETURN_IF_ERROR(net->To(device));
  SY_RETURN_IF_ERROR(net->InitializeParameters(/*seed=*/7));
  return net;
}

TEST(ReplicaSetTest, OutputsEqualOneDeviceBitForBit) {
  BackendRegistry& registry = BackendRegistry::Global();
  for (int64_t batch : {1, 2, 5}) {
    std::vector<float> values(batch * 6);
    for (size_t i = 0; i < values.size(); ++i) values[i] = 0.37f * i - 3.1f;
    const HostArray input(Shape({batch, 6}), values);
    absl::StatusOr<std::unique_ptr<ReplicaSet>> one =
        ReplicaSet::Create({*Device::Parse("ref:0")}, MakeOn, registry);
    ASSERT_TRUE(one.ok()) << one.status();
    absl::StatusOr<ReplicaRun> want = (*one)->Run({input});
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<std::unique_ptr<ReplicaSet>> two = ReplicaSet::Create(
        {*Device::Parse("ref:0"), *Device::Parse("ref:1")}, MakeOn, registry);
    ASSERT_TRUE(two.ok()) << two.status();
    absl::StatusOr<ReplicaRun> got = (*two)->Run({input});
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->outputs.size(), 1u);
    EXPECT_EQ(got->outputs[0].shape, Shape({batch, 3}));
    EXPECT_EQ(got->outputs[0].bytes, want->outputs[0].bytes) << "batch " << batch;
    EXPECT_EQ(got->samples, (std::vector<int64_t>{(batch + 1) / 2, batch / 2}));
    if (batch == 1) EXPECT_EQ(got->busy_ms[1], 0.0);  // idle
    ReplicaSummary summary((*two)->devices());
    summary.Add(*got);
    EXPECT_THAT(summary.Table(), HasSubstr("ref:1"));
    EXPECT_THAT(summary.Table(), HasSubstr("busy share"));
    EXPECT_EQ(summary.Json()["devices"].size(), 2u);
  }
}

TEST(ReplicaSetTest, ErrorsNameTheDevice) {
  BackendRegistry& registry = BackendRegistry::Global();
  absl::StatusOr<std::unique_ptr<ReplicaSet>> set = ReplicaSet::Create(
      {*Device::Parse("ref:0"), *Device::Parse("ref:1")}, MakeOn, registry);
  ASSERT_TRUE(set.ok()) << set.status();
  // 7 features where the net takes 6.
  const HostArray bad(Shape({2, 7}), std::vector<float>(14, 1.0f));
  absl::Status status = (*set)->Run({bad}).status();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("replica on ref:0"));
  const HostArray a(Shape({2, 6}), std::vector<float>(12, 1.0f));
  const HostArray b(Shape({3, 6}), std::vector<float>(18, 1.0f));
  EXPECT_EQ((*set)->Run({a, b}).status().code(), absl::StatusCode::kInvalidArgument);
  // No samples: no replica would run, nothing to join.
  const HostArray empty(Shape({0, 6}), std::vector<float>());
  status = (*set)->Run({empty}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("at least one sample"));
}

}  // namespace
}  // namespace runtime
}  // namespace switchyard
