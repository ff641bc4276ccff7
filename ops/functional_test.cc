// Eager calls (functional.h) on the reference backend, in a registry of the
// test's own: values computed by hand, typed attributes, and the errors a
// model would give.

#include "ops/functional.h"

#include <cmath>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "backends/reference/reference_backend.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/op_test_util.h"

namespace switchyard {
namespace {

using op_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::FloatNear;

class FunctionalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        registry_
            .Register("ref",
                      [] { return reference::CreateReferenceBackend(2); })
            .ok());
  }

  Tensor Make(const Shape& shape, const std::vector<float>& values,
              const char* device = "ref:0") {
    absl::StatusOr<Tensor> t =
        Tensor::FromVector(shape, values, *Device::Parse(device), registry_);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : Tensor();
  }

  static std::vector<float> Values(const absl::StatusOr<Tensor>& t) {
    EXPECT_TRUE(t.ok()) << t.status();
    if (!t.ok()) return {};
    absl::StatusOr<std::vector<float>> v = t->ToVector();
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : std::vector<float>{};
  }

  BackendRegistry registry_;
};

TEST_F(FunctionalTest, BatchNormByHand) {
  // [1, 2, 1, 2]: channel 0 holds 1, 2 and channel 1 holds 3, 4.
  const Tensor x = Make(Shape({1, 2, 1, 2}), {1, 2, 3, 4});
  const Tensor weight = Make(Shape({2}), {2, 0.5});
  const Tensor bias = Make(Shape({2}), {0.1f, -1});
  const Tensor mean = Make(Shape({2}), {1, 2});
  const Tensor var = Make(Shape({2}), {3, 3});
  BatchNormAttrs eps_one;
  eps_one.epsilon = 1.0;  // sqrt(3 + 1) = 2
  absl::StatusOr<Tensor> y =
      functional::BatchNorm(x, weight, bias, mean, var, eps_one, registry_);
  // (x - mean) / 2 * weight + bias.
  EXPECT_THAT(Values(y),
              ElementsAre(FloatNear(0.1f, 1e-6f), FloatNear(1.1f, 1e-6f),
                          FloatNear(-0.75f, 1e-6f), FloatNear(-0.5f, 1e-6f)));
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape(), Shape({1, 2, 1, 2}));
  EXPECT_EQ(y->device(), *Device::Parse("ref:0"));
}

TEST_F(FunctionalTest, BatchNormDefaultEpsilonIsPyTorchs) {
  const Tensor one = Make(Shape({1}), {1});
  const Tensor zero = Make(Shape({1}), {0});
  // (2 - 1) / sqrt(1 + 1e-5).
  absl::StatusOr<Tensor> y = functional::BatchNorm(
      Make(Shape({1, 1}), {2}), one, zero, one, one, {}, registry_);
  EXPECT_THAT(Values(y),
              ElementsAre(FloatNear(static_cast<float>(1 / std::sqrt(1.00001)),
                                    1e-7f)));
}

TEST_F(FunctionalTest, BatchNormRejectsBadEpsilonBeforeRunning) {
  const Tensor c = Make(Shape({2}), {1, 1});
  BatchNormAttrs zero;
  zero.epsilon = 0;
  EXPECT_THAT(functional::BatchNorm(Make(Shape({1, 2}), {1, 2}), c, c, c, c,
                                    zero, registry_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "attribute 'epsilon' must be > 0 and finite, got 0"));
}

TEST_F(FunctionalTest, Conv2dWithTypedAttributes) {
  // A 3x3 image of 1..9, a 3x3 kernel of ones, padding 1, stride 2: the
  // four corner windows.
  const Tensor x = Make(Shape({1, 1, 3, 3}), {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor w = Make(Shape({1, 1, 3, 3}), std::vector<float>(9, 1.0f));
  Conv2dAttrs attrs;
  attrs.pad_h = attrs.pad_w = 1;
  attrs.stride_h = attrs.stride_w = 2;
  EXPECT_THAT(
      Values(functional::Conv2d(x, w, Tensor(), attrs, registry_)),
      ElementsAre(1 + 2 + 4 + 5, 2 + 3 + 5 + 6, 4 + 5 + 7 + 8, 5 + 6 + 8 + 9));
  // With a bias and the defaults: one window, the sum of 1..9, plus 0.5.
  EXPECT_THAT(
      Values(functional::Conv2d(x, w, Make(Shape({1}), {0.5f}), {}, registry_)),
      ElementsAre(45.5f));
}

TEST_F(FunctionalTest, PoolingFlattenSoftmax) {
  const Tensor x = Make(Shape({1, 1, 2, 4}), {1, 5, 2, 0, 3, 4, 8, 7});
  EXPECT_THAT(
      Values(functional::MaxPool2d(x, MaxPool2dAttrs::Square(2, 2), registry_)),
      ElementsAre(5, 8));
  EXPECT_THAT(Values(functional::AdaptiveAvgPool2d(x, {1, 2}, registry_)),
              ElementsAre(3.25f, 4.25f));
  absl::StatusOr<Tensor> flat = functional::Flatten(x, {}, registry_);
  ASSERT_TRUE(flat.ok()) << flat.status();
  EXPECT_EQ(flat->shape(), Shape({1, 8}));
  absl::StatusOr<Tensor> soft = functional::Softmax(
      Make(Shape({2}), {0, static_cast<float>(std::log(3.0))}), {0}, registry_);
  EXPECT_THAT(Values(soft),
              ElementsAre(FloatNear(0.25f, 1e-6f), FloatNear(0.75f, 1e-6f)));
  EXPECT_THAT(Values(functional::Dropout(x, {}, registry_)),
              ElementsAre(1, 5, 2, 0, 3, 4, 8, 7));
}

TEST_F(FunctionalTest, CallRunsAnyOpByName) {
  absl::StatusOr<std::vector<Tensor>> out = functional::Call(
      "relu", {Make(Shape({3}), {-1, 0, 2})}, AttrMap(), registry_);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_THAT(Values((*out)[0]), ElementsAre(0, 0, 2));
  EXPECT_THAT(
      functional::Call("selu", {Make(Shape({1}), {1})}, AttrMap(), registry_),
      StatusIs(absl::StatusCode::kNotFound, "unknown op 'selu'"));
}

// Split makes one output per size: Call gives each (the importer folds
// ONNX Split of host constants through it).
TEST_F(FunctionalTest, CallGivesEveryOutputOfAVariadicOp) {
  AttrMap attrs;
  attrs.Set("axis", int64_t{0});
  attrs.Set("sizes", std::vector<int64_t>{1, 2});
  absl::StatusOr<std::vector<Tensor>> out =
      functional::Call("split", {Make(Shape({3}), {4, 5, 6})}, attrs, registry_);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_THAT(Values((*out)[0]), ElementsAre(4));
  EXPECT_THAT(Values((*out)[1]), ElementsAre(5, 6));
}

TEST_F(FunctionalTest, UndefinedRequiredOperandIsNamed) {
  EXPECT_THAT(functional::Linear(Make(Shape({1, 2}), {1, 2}), Tensor(),
                                 Tensor(), registry_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "linear: operand 'weight' is an undefined tensor; only "
                       "optional operands (input, weight, bias?) may be left "
                       "out"));
}

TEST_F(FunctionalTest, OperandsOnTwoDevicesFailAsAModelWould) {
  absl::StatusOr<Tensor> sum =
      functional::Add(Make(Shape({2}), {1, 2}, "ref:0"),
                      Make(Shape({2}), {3, 4}, "ref:1"), registry_);
  EXPECT_THAT(sum, StatusIs(absl::StatusCode::kInvalidArgument, "ref:1"));
  EXPECT_THAT(sum, StatusIs(absl::StatusCode::kInvalidArgument, "other"));
}

}  // namespace
}  // namespace switchyard
