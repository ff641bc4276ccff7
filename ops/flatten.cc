// flatten: merges dimensions start_dim..end_dim into one, as torch.flatten.
//   operands:   input (any shape)
//   attributes: start_dim = 1, end_dim = -1 (negative dims count from the
//               end; start_dim must not come after end_dim;
//               ops/tensor_attrs.h)
//   output:     e.g. [N, C, H, W] -> [N, C*H*W]; a rank-0 input gives [1]

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"
#include "ops/flatten_attrs.h"

namespace switchyard {
namespace {

class FlattenOp : public OpDef {
 public:
  std::string name() const override { return "flatten"; }
  const OpSchema& schema() const override {
    static const OpSchema* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}};
      FlattenAttrs::DeclareIn(*s);
      s->dtypes = {};  // any: it only reshapes
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckSchema(*this, attrs, operands));
    SY_ASSIGN_OR_RETURN(FlattenAttrs a, FlattenAttrs::FromAttrMap(attrs));
    const Shape& input = operands[0];
    const int64_t start_attr = a.start_dim;
    const int64_t end_attr = a.end_dim;
    SY_ASSIGN_OR_RETURN(
        int start, ops_internal::WrapDim(start_attr, input.rank(), "start_dim"));
    SY_ASSIGN_OR_RETURN(
        int end, ops_internal::WrapDim(end_attr, input.rank(), "end_dim"));
    if (start > end) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute 'start_dim' (", start_attr, ", dim ", start,
          ") must not come after attribute 'end_dim' (", end_attr, ", dim ",
          end, ") for input of rank ", input.rank()));
    }
    if (input.rank() == 0) return Shape({1});
    std::vector<int64_t> dims(input.dims().begin(),
                              input.dims().begin() + start);
    int64_t merged = 1;
    for (int i = start; i <= end; ++i) merged *= input.dim(i);
    dims.push_back(merged);
    dims.insert(dims.end(), input.dims().begin() + end + 1,
                input.dims().end());
    return Shape(std::move(dims));
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<FlattenOp>());

}  // namespace
}  // namespace switchyard
