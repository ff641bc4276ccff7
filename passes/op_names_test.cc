// Every name in ops/op_names.h is an op ops/ registers, so a rename in ops
// cannot leave a pass or a fusion rule matching nothing.

#include "ops/op_names.h"

#include "core/op_def.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

TEST(OpNamesTest, EveryNameIsARegisteredOp) {
  for (const char* name :
       {op_names::kAdd, op_names::kBatchNorm, op_names::kConcat, op_names::kConv2d,
        op_names::kDiv, op_names::kErf, op_names::kExpand, op_names::kGelu,
        op_names::kLayerNorm, op_names::kLinear, op_names::kMul, op_names::kPow,
        op_names::kReduceMean, op_names::kRelu, op_names::kReshape,
        op_names::kScatterElements, op_names::kScatterNd, op_names::kSqrt,
        op_names::kSub}) {
    EXPECT_TRUE(OpRegistry::Global().Find(name).ok()) << name;
  }
}

}  // namespace
}  // namespace switchyard
