// reduce_min: the minimum (NaN propagates) over the given axes, as ONNX
// ReduceMin with its axes as an attribute. Operands, attributes and shapes:
// ops/reduce_op.h.

#include <memory>

#include "ops/reduce_op.h"

namespace switchyard {
namespace {

static const bool kRegistered =
    RegisterOp(std::make_unique<ops_internal::ReduceOp>("reduce_min", 1));

}  // namespace
}  // namespace switchyard
