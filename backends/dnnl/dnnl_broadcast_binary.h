#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_BROADCAST_BINARY_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_BROADCAST_BINARY_H_

// x op y for row-major float operands where y broadcasts against x in a
// pattern oneDNN 2.6's JIT binary kernels do not know, as a host pass. Its
// reference kernel is all that is left for, e.g., Swin's shifted-window
// mask, [B, nW, heads, 49, 49] + [1, nW, 1, 49, 49]: 84 ms at batch 8 on 2
// threads (AMD EPYC), a fifth of the whole forward pass.

#include <cstdint>
#include <vector>

namespace switchyard {
namespace onednn {

enum class BroadcastOp { kAdd, kSub, kMul, kDiv };

struct BroadcastBinaryPlan {
  // x's (and the output's) dims and y's, of one rank: each y_dims[i] is
  // dims[i] or 1. Fewer dims run faster (neighbours that y broadcasts
  // alike merged: the lowering's FlattenBroadcast), any work.
  std::vector<int64_t> dims;
  std::vector<int64_t> y_dims;
  BroadcastOp op = BroadcastOp::kAdd;
};

// out may be x (in place); it has x's elements.
void BroadcastBinary(const BroadcastBinaryPlan& plan, const float* x, const float* y,
                     float* out, int threads);

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_BROADCAST_BINARY_H_
