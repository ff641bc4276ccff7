// reduce_sum: the sum over the given axes, as ONNX ReduceSum
// with its axes as an attribute. Operands, attributes and shapes:
// ops/reduce_op.h.

#include <memory>

#include "ops/reduce_op.h"

namespace switchyard {
namespace {

static const bool kRegistered =
    RegisterOp(std::make_unique<ops_internal::ReduceOp>("reduce_sum", 1));

}  // namespace
}  // namespace switchyard
