#include "core/device.h"

#include <sstream>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

struct GoodCase {
  std::string text;
  std::string type;
  int index;
  std::string canonical;
};

class GoodDeviceStringTest : public ::testing::TestWithParam<GoodCase> {};

TEST_P(GoodDeviceStringTest, ParsesToCanonicalForm) {
  const GoodCase& c = GetParam();
  absl::StatusOr<Device> device = Device::Parse(c.text);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ(device->type(), c.type);
  EXPECT_EQ(device->index(), c.index);
  EXPECT_EQ(device->ToString(), c.canonical);
  // The canonical spelling parses back to the same device.
  EXPECT_EQ(*Device::Parse(device->ToString()), *device);
}

INSTANTIATE_TEST_SUITE_P(
    Table, GoodDeviceStringTest,
    ::testing::Values(GoodCase{"cpu", "cpu", 0, "cpu:0"},
                      GoodCase{"cpu:0", "cpu", 0, "cpu:0"},
                      GoodCase{"cuda", "cuda", 0, "cuda:0"},
                      GoodCase{"cuda:0", "cuda", 0, "cuda:0"},
                      GoodCase{"cuda:7", "cuda", 7, "cuda:7"},
                      GoodCase{"cuda:10", "cuda", 10, "cuda:10"},
                      GoodCase{"ref:1", "ref", 1, "ref:1"},
                      GoodCase{"my_npu2:1023", "my_npu2", 1023,
                               "my_npu2:1023"}));

struct BadCase {
  std::string text;
  std::string message;
};

class BadDeviceStringTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadDeviceStringTest, IsInvalidArgumentWithReason) {
  const BadCase& c = GetParam();
  absl::StatusOr<Device> device = Device::Parse(c.text);
  ASSERT_FALSE(device.ok()) << "parsed '" << c.text << "' as " << *device;
  EXPECT_EQ(device.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(device.status().message()), HasSubstr(c.message));
  EXPECT_THAT(std::string(device.status().message()),
              HasSubstr("e.g. 'cpu', 'cuda', 'cuda:1'"));
}

INSTANTIATE_TEST_SUITE_P(
    Table, BadDeviceStringTest,
    ::testing::Values(
        BadCase{"", "device type is empty"},
        BadCase{":0", "device type is empty"},
        BadCase{"cuda:", "index after ':' is missing"},
        BadCase{"cuda:-1", "non-negative decimal"},
        BadCase{"cuda:+1", "non-negative decimal"},
        BadCase{"cuda:x", "non-negative decimal"},
        BadCase{"cuda:1.5", "non-negative decimal"},
        BadCase{"cuda:0:1", "non-negative decimal"},
        BadCase{"cuda: 1", "non-negative decimal"},
        BadCase{"cuda:01", "leading zeros"},
        BadCase{"cuda:1024", "larger than 1023"},
        BadCase{"cuda:99999999999999999999", "larger than 1023"},
        BadCase{"CUDA:0", "did you mean 'cuda:0'?"},
        BadCase{"Cpu", "did you mean 'cpu'?"},
        BadCase{" cuda", "must start with a lowercase letter"},
        BadCase{"0cuda", "must start with a lowercase letter"},
        BadCase{"cu-da", "only lowercase letters, digits and '_'"},
        BadCase{std::string("cu\0da", 5), "only lowercase letters"},
        BadCase{std::string(33, 'a'), "longer than 32"}));

TEST(DeviceTest, EqualityAndHashing) {
  Device a = *Device::Parse("cuda:1");
  Device b = *Device::Parse("cuda:1");
  Device c = *Device::Parse("cuda:0");
  Device d = *Device::Parse("cuda");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(c, d);
  EXPECT_NE(Device::Cpu(), c);
  absl::flat_hash_set<Device> set = {a, b, c, d, Device::Cpu()};
  EXPECT_EQ(set.size(), 3u);
}

TEST(DeviceTest, PrintsCanonicalSpelling) {
  std::ostringstream os;
  os << *Device::Parse("ref:2") << " " << Device::Cpu();
  EXPECT_EQ(os.str(), "ref:2 cpu:0");
}

TEST(DeviceTest, CreateValidatesParts) {
  EXPECT_TRUE(Device::Create("cuda", 3).ok());
  EXPECT_EQ(Device::Create("cuda", -1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Device::Create("Bad", 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace switchyard
