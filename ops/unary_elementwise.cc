// The unary elementwise ops, as ONNX's of the same meaning; each keeps its
// input's shape and dtype. One OpDef per entry of SY_UNARY_ELEMENTWISE_OPS
// (ops/unary_functors.h, which has each op's formula, dtypes, FLOPs and
// attribute struct):
//   sigmoid      1 / (1 + exp(-x))
//   erf, sqrt, exp, tanh
//   gelu         0.5 * x * (1 + erf(x / sqrt(2)))     (exact, not tanh's)
//   neg          -x (integers wrap: -INT_MIN is INT_MIN)
//   abs          |x| (integers wrap: |INT_MIN| is INT_MIN)
//   reciprocal   1 / x
//   hard_sigmoid max(0, min(1, alpha * x + beta))    (HardSigmoidAttrs)
//   hard_swish   x * max(0, min(1, x / 6 + 0.5))
//   clip         min(max(x, min), max)                (ClipAttrs)
//   leaky_relu   x < 0 ? alpha * x : x                (LeakyReluAttrs)
// NaN stays NaN in every one of them.

#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/functor_attrs.h"
#include "ops/op_util.h"
#include "ops/unary_functors.h"

namespace switchyard {
namespace {

struct UnaryOpInfo {
  const char* name;
  std::vector<DType> dtypes;
  void (*declare_attrs)(OpSchema&);
  absl::Status (*validate)(const AttrMap&);
  int64_t flops_per_element;
};

class UnaryElementwiseOp : public OpDef {
 public:
  explicit UnaryElementwiseOp(UnaryOpInfo info) : info_(std::move(info)) {
    schema_.inputs = {{"input"}};
    info_.declare_attrs(schema_);
    schema_.dtypes = info_.dtypes;
  }
  std::string name() const override { return info_.name; }
  const OpSchema& schema() const override { return schema_; }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    SY_RETURN_IF_ERROR(info_.validate(attrs));
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

// The op's dtypes from its kernels' element types: floating ones stand for
// every floating dtype (FloatingDTypes: float16 and bfloat16 too), then the
// integer types in order.
template <typename... Ts>
std::vector<DType> SchemaDTypes(ElementTypes<Ts...>) {
  std::vector<DType> dtypes;
  for (DType dtype : {DTypeOf<Ts>()...}) {
    if (!IsFloatingPoint(dtype)) {
      dtypes.push_back(dtype);
    } else if (dtypes.empty()) {
      dtypes = ops_internal::FloatingDTypes();
    }
  }
  return dtypes;
}

bool RegisterAll() {
  bool ok = true;
#define SY_REGISTER_UNARY_OP(op, Functor, Types, flops, Attrs)         \
  ok &= RegisterOp(std::make_unique<UnaryElementwiseOp>(UnaryOpInfo{  \
      op, SchemaDTypes(Types{}), &DeclareAttrsIn<Attrs>,                \
      &ValidateAttrs<Attrs>, flops}));
  SY_UNARY_ELEMENTWISE_OPS(SY_REGISTER_UNARY_OP)
#undef SY_REGISTER_UNARY_OP
  return ok;
}

static const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace switchyard
