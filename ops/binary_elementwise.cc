// The binary arithmetic ops, as ONNX Add, Sub, Mul, Div and Pow (opset 14,
// 15): output = input (op) other, elementwise, with numpy (multidirectional)
// broadcasting. Both operands have one dtype, which the output keeps.
//   operands: input, other; output: BroadcastShapes(input, other)
// Integer division truncates toward zero (as C++); an integer division by
// zero is the kernels' run-time InvalidArgument.

#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/broadcast.h"
#include "ops/op_util.h"

namespace switchyard {
namespace {

class BinaryElementwiseOp : public OpDef {
 public:
  explicit BinaryElementwiseOp(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}, {"other"}};
      s->dtypes = ops_internal::NumericDTypes();
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    static const auto* names = new std::vector<std::string>{"input", "other"};
    return BroadcastShapes(operands, *names);
  }

  int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                const Shape& output) const override {
    return output.num_elements();
  }

 private:
  std::string name_;
};

bool RegisterAll() {
  bool ok = true;
  for (const char* op : {"add", "sub", "mul", "div", "pow"}) {
    ok &= RegisterOp(std::make_unique<BinaryElementwiseOp>(op));
  }
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
