#include "ops/op_util.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

namespace switchyard {
namespace ops_internal {

absl::Status CheckSchema(const OpDef& op, const AttrMap& attrs,
                         absl::Span<const Shape> operands) {
  const OpSchema& schema = op.schema();
  SY_RETURN_IF_ERROR(
      schema.CheckOperandCount(static_cast<int>(operands.size()), op.name()));
  return schema.CheckAttrs(attrs, op.name());
}

absl::Status CheckSchema(const OpDef& op, const AttrMap& attrs,
                         absl::Span<const TensorType> operands) {
  std::vector<Shape> shapes;
  for (const TensorType& t : operands) shapes.push_back(t.shape);
  return CheckSchema(op, attrs, shapes);
}

const std::vector<DType>& FloatingDTypes() {
  static const auto* dtypes = new std::vector<DType>{
      DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64};
  return *dtypes;
}

const std::vector<DType>& NumericDTypes() {
  static const auto* dtypes = [] {
    auto* d = new std::vector<DType>(FloatingDTypes());
    d->insert(d->end(),
              {DType::kInt64, DType::kInt32, DType::kInt8, DType::kUInt8});
    return d;
  }();
  return *dtypes;
}

absl::Status CheckDType(DType dtype, absl::string_view operand,
                        absl::string_view op, absl::Span<const DType> allowed) {
  if (std::find(allowed.begin(), allowed.end(), dtype) != allowed.end()) {
    return absl::OkStatus();
  }
  std::vector<std::string> names;
  for (DType d : allowed) names.push_back(DTypeName(d));
  return absl::InvalidArgumentError(absl::StrCat(operand, " is ", DTypeName(dtype),
                                                 "; ", op, " takes ",
                                                 absl::StrJoin(names, ", ")));
}

absl::Status CheckRank(const Shape& shape, absl::string_view operand, int rank,
                       absl::string_view layout) {
  if (shape.rank() == rank) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(operand, " must be rank ", rank,
                   layout.empty() ? "" : " ", layout, ", got ",
                   shape.ToString()));
}

absl::Status CheckNchw(const Shape& shape, absl::string_view operand) {
  SY_RETURN_IF_ERROR(CheckRank(shape, operand, 4, "(N, C, H, W)"));
  if (shape.dim(1) > 0 && shape.dim(2) > 0 && shape.dim(3) > 0) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      operand, " ", shape.ToString(),
      " has an empty channel or spatial dimension; only N may be 0"));
}

absl::StatusOr<int> WrapDim(int64_t dim, int rank, absl::string_view attr) {
  const int64_t wrap = rank > 0 ? rank : 1;
  if (dim < -wrap || dim >= wrap) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute '", attr, "' is ", dim, ", out of range [", -wrap, ", ",
        wrap - 1, "] for input of rank ", rank));
  }
  return static_cast<int>(dim < 0 ? dim + wrap : dim);
}

int64_t SaturatingProduct(std::initializer_list<int64_t> factors) {
  int64_t product = 1;
  for (int64_t f : factors) {
    if (f == 0) return 0;
  }
  for (int64_t f : factors) {
    if (__builtin_mul_overflow(product, f, &product)) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return product;
}

int64_t SaturatingSum(std::initializer_list<int64_t> terms) {
  int64_t sum = 0;
  for (int64_t t : terms) {
    if (__builtin_add_overflow(sum, t, &sum)) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return sum;
}

}  // namespace ops_internal
}  // namespace switchyard
