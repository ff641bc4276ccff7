#include "core/attributes.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using ::testing::HasSubstr;

TEST(AttrMapTest, TypedGettersAndDefaults) {
  AttrMap a;
  a.Set("groups", int64_t{2});
  a.Set("stride", std::vector<int64_t>{2, 1});
  a.Set("ceil_mode", true);
  a.Set("p", 0.25);
  a.Set("device", std::string("cuda:0"));
  EXPECT_EQ(*a.GetInt("groups"), 2);
  EXPECT_EQ(*a.GetInts("stride"), (std::vector<int64_t>{2, 1}));
  EXPECT_TRUE(*a.GetBool("ceil_mode"));
  EXPECT_DOUBLE_EQ(*a.GetFloat("p"), 0.25);
  EXPECT_DOUBLE_EQ(*a.GetFloat("groups"), 2.0);  // ints widen to float
  EXPECT_EQ(*a.GetString("device"), "cuda:0");
  EXPECT_EQ(*a.GetInt("missing", 7), 7);
  EXPECT_EQ(a.ToString(),
            "ceil_mode=true, device='cuda:0', groups=2, p=0.25, stride=[2, 1]");
}

TEST(AttrMapTest, WrongTypeAndMissingNameTheAttribute) {
  AttrMap a;
  a.Set("stride", int64_t{2});
  absl::StatusOr<std::vector<int64_t>> stride = a.GetInts("stride");
  EXPECT_EQ(stride.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(stride.status().message()),
              HasSubstr("attribute 'stride' must be an int list, got int 2"));
  // A default does not hide a wrongly typed attribute.
  EXPECT_FALSE(a.GetInts("stride", {1, 1}).ok());
  EXPECT_THAT(std::string(a.GetInt("groups").status().message()),
              HasSubstr("attribute 'groups' is missing"));
}

}  // namespace
}  // namespace switchyard
