#ifndef SWITCHYARD_OPS_OP_TEST_UTIL_H_
#define SWITCHYARD_OPS_OP_TEST_UTIL_H_

// Test helpers for op definitions: look ops up in the global registry (so
// every test also proves that the op registered itself), check a call as
// the shape-inference pass does, and match statuses. Op tests live in
// namespace op_testing, so these read unqualified:
//
//   EXPECT_THAT(Infer("relu", {}, {Shape({2, 3})}), IsOkAndHolds(Shape({2, 3})));
//   EXPECT_THAT(Infer("conv2d", Attrs({{"groups", int64_t{0}}}), {x, w}),
//               StatusIs(absl::StatusCode::kInvalidArgument, "'groups'"));

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/attributes.h"
#include "core/dtype.h"
#include "core/op_def.h"
#include "core/shape.h"
#include "gmock/gmock.h"

namespace switchyard {
namespace op_testing {

using Ints = std::vector<int64_t>;
// The code of nearly every rejection an op test expects.
inline constexpr absl::StatusCode kInvalid =
    absl::StatusCode::kInvalidArgument;

inline AttrMap Attrs(
    std::initializer_list<std::pair<std::string, AttrValue>> values) {
  AttrMap attrs;
  for (const auto& [name, value] : values) attrs.Set(name, value);
  return attrs;
}

// What the shape-inference pass does for one node of the op registered under
// `op` in OpRegistry::Global(): the operand count and attributes against the
// schema, then the op's InferTypes. Operands are float32 unless given as
// TensorTypes. The registry's NotFound when the op is not registered.
inline absl::StatusOr<std::vector<TensorType>> InferTypes(
    const std::string& op, const AttrMap& attrs,
    const std::vector<TensorType>& operands) {
  absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(op);
  if (!def.ok()) return def.status();
  const OpSchema& schema = (*def)->schema();
  absl::Status status =
      schema.CheckOperandCount(static_cast<int>(operands.size()), op);
  if (status.ok()) status = schema.CheckAttrs(attrs, op);
  if (!status.ok()) return status;
  return (*def)->InferTypes(attrs, operands);
}

// The shape of the single output, as above with float32 operands.
inline absl::StatusOr<Shape> Infer(const std::string& op, const AttrMap& attrs,
                                   const std::vector<Shape>& operands) {
  std::vector<TensorType> types;
  for (const Shape& shape : operands) types.push_back({shape, DType::kFloat32});
  absl::StatusOr<std::vector<TensorType>> out = InferTypes(op, attrs, types);
  if (!out.ok()) return out.status();
  if (out->size() != 1) {
    return absl::InternalError(
        absl::StrCat(op, " gave ", out->size(), " outputs, not 1"));
  }
  return (*out)[0].shape;
}

// Flops of the registered op, for operands that Infer accepts; -1 when
// either fails.
inline int64_t FlopsOf(const std::string& op, const AttrMap& attrs,
                       const std::vector<Shape>& operands) {
  absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(op);
  if (!def.ok()) return -1;
  absl::StatusOr<Shape> out = Infer(op, attrs, operands);
  if (!out.ok()) return -1;
  return (*def)->Flops(attrs, operands, *out);
}

inline const absl::Status& GetStatus(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// Matches a Status or StatusOr with `code` whose message contains `substring`.
MATCHER_P2(StatusIs, code, substring,
           std::string(negation ? "isn't" : "is") + " a status with code " +
               absl::StatusCodeToString(code) + " and a message containing \"" +
               std::string(substring) + "\"") {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status is " << status;
  return status.code() == code &&
         absl::StrContains(status.message(), substring);
}

// Matches an ok StatusOr whose value equals `expected`.
MATCHER_P(IsOkAndHolds, expected, "is ok and holds " + ::testing::PrintToString(expected)) {
  if (!arg.ok()) {
    *result_listener << "status is " << arg.status();
    return false;
  }
  *result_listener << "holds " << ::testing::PrintToString(*arg);
  return *arg == expected;
}

}  // namespace op_testing
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_OP_TEST_UTIL_H_
