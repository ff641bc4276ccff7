#include "core/near_miss.h"

#include "gtest/gtest.h"

namespace switchyard {
namespace {

TEST(NearMissTest, EditDistanceIgnoresCaseAndDashes) {
  EXPECT_EQ(EditDistance("input", "input"), 0);
  EXPECT_EQ(EditDistance("inputs", "input"), 1);
  EXPECT_EQ(EditDistance("Input-Shape", "input_shape"), 0);
  EXPECT_EQ(EditDistance("itreations", "iterations"), 2);
  EXPECT_EQ(EditDistance("", "abc"), 3);
}

TEST(NearMissTest, SuggestsOnlyCloseUnambiguousNames) {
  const std::vector<std::string> flags = {"input", "input_shape", "iterations", "device"};
  EXPECT_EQ(NearestName("inputs", flags), "input");
  EXPECT_EQ(NearestName("itreations", flags), "iterations");
  EXPECT_EQ(NearestName("devise", flags), "device");
  EXPECT_EQ(NearestName("batchsize", flags), "");  // nothing close
  EXPECT_EQ(NearestName("input", flags), "");      // not a typo
  // Short names: one edit only.
  EXPECT_EQ(NearestName("cpuu", {"cpu", "cuda", "dnnl"}), "cpu");
}

TEST(NearMissTest, DevicesMeantByCommonSlips) {
  const std::vector<std::string> types = {"cpu", "cuda", "dnnl"};
  EXPECT_EQ(MeantDevice("cuda0", types), "cuda:0");
  EXPECT_EQ(MeantDevice("CUDA1", types), "cuda:1");
  EXPECT_EQ(MeantDevice("gpu", types), "cuda:0");
  EXPECT_EQ(MeantDevice("gpu:1", types), "cuda:1");
  EXPECT_EQ(MeantDevice("mkldnn", types), "dnnl:0");
  EXPECT_EQ(MeantDevice("dnn:0", types), "dnnl:0");
  EXPECT_EQ(MeantDevice("tpu", types), "");  // a short name one letter from cpu: no
  EXPECT_EQ(MeantDevice("npu0", {"cpu"}), "");    // not a registered type's index
  EXPECT_EQ(MeantDevice("gpu", {"cpu", "dnnl"}), "");  // no GPU backend: not "cpu"
  EXPECT_EQ(MeantDevice("metal", types), "");
}

TEST(NearMissTest, TiesGiveNoSuggestion) {
  EXPECT_EQ(NearestName("ab", {"aa", "bb"}), "");
}

}  // namespace
}  // namespace switchyard
