#include "onnx/raw_data_ranges.h"

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "onnx/testing/model_proto_builder.h"

namespace switchyard {
namespace onnx_import {
namespace {

using onnx_testing::AddInitializer;
using onnx_testing::AddInt64Initializer;
using onnx_testing::NewModel;

std::string SmallModel() {
  onnx::ModelProto m = NewModel(17);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("g");
  AddInitializer(g, "w", {2, 3}, {1, 2, 3, 4, 5, 6});
  onnx::TensorProto* typed = g.add_initializer();  // values in float_data
  typed->set_name("typed");
  typed->set_data_type(onnx::TensorProto::FLOAT);
  typed->add_dims(2);
  typed->add_float_data(7);
  typed->add_float_data(8);
  AddInt64Initializer(g, "shape", {2}, {1, 6});
  return m.SerializeAsString();
}

TEST(RawDataRangesTest, FindsEachInitializersRawBytesByName) {
  const std::string bytes = SmallModel();
  onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  const std::vector<InitializerBytes> ranges = InitializerRawDataRanges(bytes);
  ASSERT_EQ(ranges.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const onnx::TensorProto& t = parsed.graph().initializer(i);
    EXPECT_EQ(ranges[i].name, t.name());
    ASSERT_EQ(ranges[i].raw_data.has_value(), t.has_raw_data()) << t.name();
    if (t.has_raw_data()) {
      EXPECT_EQ(bytes.substr(ranges[i].raw_data->offset, ranges[i].raw_data->size), t.raw_data());
    }
  }
  EXPECT_FALSE(ranges[1].raw_data.has_value());  // "typed"
}

// Hostile bytes: every truncation of a model and random bytes give a list
// or nothing, and never read outside the bytes (ASan checks the latter).
TEST(RawDataRangesTest, MalformedBytesGiveNoRanges) {
  const std::string bytes = SmallModel();
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::string cut = bytes.substr(0, n);
    for (const InitializerBytes& r : InitializerRawDataRanges(cut)) {
      if (r.raw_data) EXPECT_LE(r.raw_data->offset + r.raw_data->size, n);
    }
  }
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string noise(1 + rng() % 64, '\0');
    for (char& c : noise) c = static_cast<char>(rng());
    for (const InitializerBytes& r : InitializerRawDataRanges(noise)) {
      if (r.raw_data) EXPECT_LE(r.raw_data->offset + r.raw_data->size, noise.size());
    }
  }
  // A length that claims more than there is, at each level.
  EXPECT_TRUE(InitializerRawDataRanges(std::string("\x3a\xff\xff\xff\x0f", 5)).empty());
  EXPECT_TRUE(InitializerRawDataRanges(std::string("\x3a\x03\x2a\x09\x00", 5)).empty());
}

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
