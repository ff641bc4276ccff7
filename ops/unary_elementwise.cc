// The unary elementwise ops, as ONNX's of the same meaning; each keeps its
// input's shape and dtype:
//   sigmoid      1 / (1 + exp(-x))
//   erf, sqrt, exp, tanh
//   neg          -x (integers wrap: -INT_MIN is INT_MIN)
//   abs          |x| (integers wrap: |INT_MIN| is INT_MIN)
//   reciprocal   1 / x
//   hard_sigmoid max(0, min(1, alpha * x + beta))    (HardSigmoidAttrs)
//   hard_swish   x * max(0, min(1, x / 6 + 0.5))
//   clip         min(max(x, min), max)                (ClipAttrs)
//   leaky_relu   x < 0 ? alpha * x : x                (LeakyReluAttrs)
// NaN stays NaN in every one of them.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/elementwise_attrs.h"
#include "ops/op_util.h"

namespace switchyard {
namespace {

// Checks an op's attributes through its typed struct.
template <typename Attrs>
absl::Status Validate(const AttrMap& attrs) {
  return Attrs::FromAttrMap(attrs).status();
}

struct UnaryOpInfo {
  const char* name;
  std::vector<DType> dtypes;
  std::vector<AttrSpec> attrs;
  std::function<absl::Status(const AttrMap&)> validate;  // null: no attrs
  int64_t flops_per_element;
  absl::StatusOr<AttrMap> (*canonical)(const AttrMap&, absl::string_view) =
      nullptr;
};

class UnaryElementwiseOp : public OpDef {
 public:
  explicit UnaryElementwiseOp(UnaryOpInfo info) {
    info_ = std::move(info);
    schema_.inputs = {{"input"}};
    schema_.attrs = info_.attrs;
    schema_.canonical_attrs = info_.canonical;
    schema_.dtypes = info_.dtypes;
  }
  std::string name() const override { return info_.name; }
  const OpSchema& schema() const override { return schema_; }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    if (info_.validate) SY_RETURN_IF_ERROR(info_.validate(attrs));
    return operands[0];
  }

  int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                const Shape& output) const override {
    return ops_internal::SaturatingProduct(
        {output.num_elements(), info_.flops_per_element});
  }

 private:
  UnaryOpInfo info_;
  OpSchema schema_;
};

std::vector<DType> With(std::vector<DType> dtypes,
                        std::initializer_list<DType> more) {
  dtypes.insert(dtypes.end(), more);
  return dtypes;
}

bool RegisterAll() {
  const std::vector<DType>& floating = ops_internal::FloatingDTypes();
  // Neg has no unsigned types in ONNX; abs and clip take every number.
  const std::vector<DType> signed_numbers =
      With(floating, {DType::kInt64, DType::kInt32, DType::kInt8});
  const std::vector<DType>& numbers = ops_internal::NumericDTypes();
  // Flops: a count that ranks the ops' costs for the profiler, not the
  // instructions of any one kernel.
  std::vector<UnaryOpInfo> ops = {
      {"sigmoid", floating, {}, nullptr, 4},
      {"erf", floating, {}, nullptr, 8},
      {"sqrt", floating, {}, nullptr, 1},
      {"exp", floating, {}, nullptr, 4},
      {"tanh", floating, {}, nullptr, 8},
      {"neg", signed_numbers, {}, nullptr, 1},
      {"abs", numbers, {}, nullptr, 1},
      {"reciprocal", floating, {}, nullptr, 1},
      {"hard_sigmoid", floating, HardSigmoidAttrs::Specs(),
       &Validate<HardSigmoidAttrs>, 4, &HardSigmoidAttrs::Canonical},
      {"hard_swish", floating, {}, nullptr, 5},
      {"clip", numbers, ClipAttrs::Specs(), &Validate<ClipAttrs>, 2,
       &ClipAttrs::Canonical},
      {"leaky_relu", floating, LeakyReluAttrs::Specs(),
       &Validate<LeakyReluAttrs>, 2, &LeakyReluAttrs::Canonical},
  };
  bool ok = true;
  for (UnaryOpInfo& info : ops) {
    ok &= RegisterOp(std::make_unique<UnaryElementwiseOp>(std::move(info)));
  }
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
