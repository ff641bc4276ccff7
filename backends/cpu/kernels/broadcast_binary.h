// One kernel for the binary ops whose output element is f(a, b) of the
// operands' elements under numpy broadcasting, with no attributes and no
// failure: bitwise, logical and comparison ops. One loop over the output
// along the runs of ops/broadcast.h's BroadcastLayout (a same-shape pair is
// one run); large outputs are split across the context's threads.

#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_BROADCAST_BINARY_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_BROADCAST_BINARY_H_

#include <cstdint>
#include <memory>
#include <utility>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/broadcast.h"

namespace switchyard {
namespace cpu {

// In: how the operands' elements are read (the stored type, or its unsigned
// bits); Out: how the output's are written. F is default-constructed.
template <typename In, typename Out, typename F>
class BroadcastBinaryKernel : public Kernel {
 public:
  BroadcastBinaryKernel(std::shared_ptr<const CpuContext> context,
                        BroadcastLayout layout)
      : context_(std::move(context)), layout_(std::move(layout)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const In* a = static_cast<const In*>(inputs[0]->data<void>());
    const In* b = static_cast<const In*>(inputs[1]->data<void>());
    Out* out = static_cast<Out*>(outputs[0]->data<void>());
    const F f;
    ForEachRange(*context_, outputs[0]->num_elements(), [&](int64_t begin, int64_t end) {
      if (layout_.SameShape()) {
        for (int64_t i = begin; i < end; ++i) out[i] = f(a[i], b[i]);
        return;
      }
      ForEachBroadcastRun(layout_, begin, end,
                          [&](int64_t o, const int64_t* offsets, const int64_t* strides,
                              int64_t count) {
                            const In* x = a + offsets[0];
                            const In* y = b + offsets[1];
                            for (int64_t i = 0; i < count; ++i) {
                              out[o + i] = f(x[i * strides[0]], y[i * strides[1]]);
                            }
                          });
    });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
  BroadcastLayout layout_;
};

template <typename In, typename Out, typename F>
absl::StatusOr<std::unique_ptr<Kernel>> MakeBroadcastBinary(const Node& node,
                                                            const Graph& graph,
                                                            CpuDevice& device) {
  SY_ASSIGN_OR_RETURN(BroadcastLayout layout, BinaryBroadcastLayout(node, graph));
  return std::make_unique<BroadcastBinaryKernel<In, Out, F>>(device.context(),
                                                             std::move(layout));
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_BROADCAST_BINARY_H_
