// The binary arithmetic ops, as ONNX Add, Sub, Mul, Div, Pow, Mod and the
// two-operand Max and Min (opset 13 to 15): output = input (op) other, elementwise, with numpy (multidirectional)
// broadcasting. Both operands have one dtype, which the output keeps; every
// numeric dtype is accepted (a backend without a kernel for one says so at
// placement). One OpDef per entry of SY_BINARY_ELEMENTWISE_OPS
// (ops/binary_functors.h, which has each op's formula, FLOPs and attribute
// struct).
//   operands: input, other; output: BroadcastShapes(input, other)
// Integer division truncates toward zero (as C++); an integer division by
// zero is the kernels' run-time InvalidArgument. max and min propagate NaN.

#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/binary_functors.h"
#include "ops/broadcast.h"
#include "ops/functor_attrs.h"
#include "ops/op_util.h"

namespace switchyard {
namespace {

class BinaryElementwiseOp : public OpDef {
 public:
  BinaryElementwiseOp(std::string name, void (*declare_attrs)(OpSchema&),
                      absl::Status (*validate)(const AttrMap&),
                      int64_t flops_per_element)
      : name_(std::move(name)),
        validate_(validate),
        flops_per_element_(flops_per_element) {
    schema_.inputs = {{"input"}, {"other"}};
    declare_attrs(schema_);
    schema_.dtypes = ops_internal::NumericDTypes();
  }
  std::string name() const override { return name_; }
  const OpSchema& schema() const override { return schema_; }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    SY_RETURN_IF_ERROR(validate_(attrs));
    static const auto* names = new std::vector<std::string>{"input", "other"};
    return BroadcastShapes(operands, *names);
  }

  int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                const Shape& output) const override {
    return ops_internal::SaturatingProduct(
        {output.num_elements(), flops_per_element_});
  }

 private:
  std::string name_;
  absl::Status (*validate_)(const AttrMap&);
  int64_t flops_per_element_;
  OpSchema schema_;
};

bool RegisterAll() {
  bool ok = true;
#define SY_REGISTER_BINARY_OP(op, Functor, Types, flops, Attrs)       \
  ok &= RegisterOp(std::make_unique<BinaryElementwiseOp>(            \
      op, &DeclareAttrsIn<Attrs>, &ValidateAttrs<Attrs>, flops));
  SY_BINARY_ELEMENTWISE_OPS(SY_REGISTER_BINARY_OP)
#undef SY_REGISTER_BINARY_OP
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
