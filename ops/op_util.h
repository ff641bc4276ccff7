#ifndef SWITCHYARD_OPS_OP_UTIL_H_
#define SWITCHYARD_OPS_OP_UTIL_H_

// Helpers shared by the op definitions in this folder; private to //ops:ops.
// They build the error messages, so every op words the same mistake the same
// way:
//
//   SY_RETURN_IF_ERROR(CheckRank(input, "input", 4, "(N, C, H, W)"));

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/attributes.h"
#include "core/dtype.h"
#include "core/op_def.h"
#include "core/shape.h"

namespace switchyard {
namespace ops_internal {

// What the shape-inference pass checks before calling InferTypes, again
// for a direct caller of InferShape (tests, the fuzzer), so an op never
// reads past its operand span: the operand count ("conv2d takes 2 to 3
// operands (input, weight, bias?), got 1") and the attributes' names and
// types against the op's schema.
absl::Status CheckSchema(const OpDef& op, const AttrMap& attrs,
                         absl::Span<const Shape> operands);
// The same for InferTypes, whose operands carry their dtypes too.
absl::Status CheckSchema(const OpDef& op, const AttrMap& attrs,
                         absl::Span<const TensorType> operands);

// The dtypes op schemas declare (which of them a device runs is up to its
// kernels): float32, float16, bfloat16, float64; and those plus the integer
// types (int64, int32, int8, uint8).
const std::vector<DType>& FloatingDTypes();
const std::vector<DType>& NumericDTypes();

// For TypesOp functions, which check their operands' dtypes themselves:
// OK when `dtype` is one of `allowed`, else "indices is float32;
// gather_elements takes int64, int32".
absl::Status CheckDType(DType dtype, absl::string_view operand,
                        absl::string_view op, absl::Span<const DType> allowed);

// "input must be rank 4 (N, C, H, W), got [1, 3, 224]".
absl::Status CheckRank(const Shape& shape, absl::string_view operand, int rank,
                       absl::string_view layout);

// For NCHW operands of conv and pooling: rank 4 ("input must be rank 4 (N,
// C, H, W), got ...") with C, H and W non-zero (N may be 0, as in PyTorch).
absl::Status CheckNchw(const Shape& shape, absl::string_view operand);

// Wraps a possibly negative dimension index into [0, rank) (a rank-0 input
// counts as rank 1, as in PyTorch). Error: "attribute 'dim' is 4, out of
// range [-4, 3] for input of rank 4".
absl::StatusOr<int> WrapDim(int64_t dim, int rank, absl::string_view attr);

// For FLOP counts, which for huge (valid) shapes exceed int64: the product
// or sum of non-negative values, INT64_MAX when it would overflow (signed
// overflow is undefined; found by tests/fuzz/graph_fuzzer).
int64_t SaturatingProduct(std::initializer_list<int64_t> factors);
int64_t SaturatingSum(std::initializer_list<int64_t> terms);

}  // namespace ops_internal
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_OP_UTIL_H_
