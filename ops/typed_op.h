#ifndef SWITCHYARD_OPS_TYPED_OP_H_
#define SWITCHYARD_OPS_TYPED_OP_H_

// The one way an op of this folder is defined: its interface (name,
// operands, dtypes, outputs) given once, the schema built from it and the
// op's typed attribute struct, and an inference function that receives the
// parsed struct after the operand count and attributes have passed
// CheckSchema (so it may index every required operand). Private to
// //ops:ops.
//
//   absl::StatusOr<Shape> SoftmaxShape(const SoftmaxAttrs& a,
//                                      absl::Span<const Shape> operands);
//   int64_t SoftmaxFlops(const AttrMap& attrs,
//                        absl::Span<const Shape> operands,
//                        const Shape& output);
//
//   static const bool kRegistered = RegisterOp(ops_internal::ShapeOp(
//       {"softmax", {{"input"}}, ops_internal::FloatingDTypes()},
//       &SoftmaxShape, &SoftmaxFlops));
//
// ShapeOp: one output whose dtype is the operands' (OpDef's InferTypes
// checks them against the schema). TypesOp: the function gives every
// output's shape and dtype. An op without attributes takes NoAttrs.

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/attributes.h"
#include "core/dtype.h"
#include "core/op_def.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "ops/elementwise_list_types.h"
#include "ops/functor_attrs.h"
#include "ops/op_util.h"

namespace switchyard {
namespace ops_internal {

// What the schema says besides the attributes.
struct OpInterface {
  std::string name;
  std::vector<OperandSpec> inputs;
  std::vector<DType> dtypes;  // empty: any (the op checks what it needs)
  std::vector<OperandSpec> outputs = {{"output"}};
};

template <typename Attrs>
using ShapeFn = absl::StatusOr<Shape> (*)(const Attrs& attrs,
                                          absl::Span<const Shape> operands);
template <typename Attrs>
using TypesFn = absl::StatusOr<std::vector<TensorType>> (*)(
    const Attrs& attrs, absl::Span<const TensorType> operands);
// OpDef::Flops as a function: the raw attributes, since a count that does
// not depend on them must not fail on them either.
using FlopsFn = int64_t (*)(const AttrMap& attrs,
                            absl::Span<const Shape> operands,
                            const Shape& output);

// The OpDef that ShapeOp and TypesOp return: exactly one of `shape` and
// `types` is set.
template <typename Attrs>
class TypedOp final : public OpDef {
 public:
  TypedOp(OpInterface interface, ShapeFn<Attrs> shape, TypesFn<Attrs> types,
          FlopsFn flops)
      : name_(std::move(interface.name)),
        shape_(shape),
        types_(types),
        flops_(flops) {
    schema_.inputs = std::move(interface.inputs);
    schema_.outputs = std::move(interface.outputs);
    DeclareAttrsIn<Attrs>(schema_);
    schema_.dtypes = std::move(interface.dtypes);
  }

  std::string name() const override { return name_; }
  const OpSchema& schema() const override { return schema_; }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    if (shape_ == nullptr) return OpDef::InferShape(attrs, operands);
    SY_ASSIGN_OR_RETURN(Attrs a, Parse(attrs, operands));
    return shape_(a, operands);
  }

  absl::StatusOr<std::vector<TensorType>> InferTypes(
      const AttrMap& attrs,
      absl::Span<const TensorType> operands) const override {
    // A shape op keeps OpDef's dtype checks, which call InferShape.
    if (types_ == nullptr) return OpDef::InferTypes(attrs, operands);
    SY_ASSIGN_OR_RETURN(Attrs a, Parse(attrs, operands));
    return types_(a, operands);
  }

  int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                const Shape& output) const override {
    return flops_ == nullptr ? 0 : flops_(attrs, operands, output);
  }

 private:
  // The schema checks, then the typed attributes; errors name this op (also
  // where ops share a struct, as the reduce ops do).
  template <typename Operand>
  absl::StatusOr<Attrs> Parse(const AttrMap& attrs,
                              absl::Span<const Operand> operands) const {
    SY_RETURN_IF_ERROR(CheckSchema(*this, attrs, operands));
    if constexpr (std::is_same_v<Attrs, NoAttrs>) {
      return NoAttrs{};
    } else {
      return Attrs::FromAttrMap(attrs, name_);
    }
  }

  std::string name_;
  OpSchema schema_;
  ShapeFn<Attrs> shape_;
  TypesFn<Attrs> types_;
  FlopsFn flops_;
};

// A single-output op whose output dtype is its operands'. No `flops`: 0.
template <typename Attrs>
std::unique_ptr<OpDef> ShapeOp(OpInterface interface, ShapeFn<Attrs> shape,
                               FlopsFn flops = nullptr) {
  return std::make_unique<TypedOp<Attrs>>(std::move(interface), shape,
                                          nullptr, flops);
}

// An op that gives each output's shape and dtype itself.
template <typename Attrs>
std::unique_ptr<OpDef> TypesOp(OpInterface interface, TypesFn<Attrs> types,
                               FlopsFn flops = nullptr) {
  return std::make_unique<TypedOp<Attrs>>(std::move(interface), nullptr,
                                          types, flops);
}

}  // namespace ops_internal
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_TYPED_OP_H_
