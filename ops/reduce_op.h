#ifndef SWITCHYARD_OPS_REDUCE_OP_H_
#define SWITCHYARD_OPS_REDUCE_OP_H_

// The definition the four reduce ops share (reduce_mean.cc, reduce_sum.cc,
// reduce_max.cc, reduce_min.cc register one each): ONNX ReduceMean, Sum,
// Max and Min with the axes as an attribute.
//   operands:   input (any rank)
//   attributes: axes = [] (every axis), keepdims = true (ops/reduce_attrs.h)
//   output:     input's shape with each reduced axis 1 or removed
//               (ops/reduce_geometry.h), input's dtype
// An empty reduction gives sum 0, mean NaN (0 / 0), max -inf, min +inf.
//
//   static const bool kRegistered = RegisterOp(
//       std::make_unique<ops_internal::ReduceOp>("reduce_sum", 1));

#include <cstdint>
#include <string>
#include <utility>

#include "core/op_def.h"

namespace switchyard {
namespace ops_internal {

class ReduceOp : public OpDef {
 public:
  // `flops_per_element`: per input element (an add or a compare: 1).
  ReduceOp(std::string name, int64_t flops_per_element)
      : name_(std::move(name)), flops_per_element_(flops_per_element) {}

  std::string name() const override { return name_; }
  const OpSchema& schema() const override;
  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override;
  int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                const Shape& output) const override;

 private:
  std::string name_;
  int64_t flops_per_element_;
};

}  // namespace ops_internal
}  // namespace switchyard

#endif  // SWITCHYARD_OPS_REDUCE_OP_H_
