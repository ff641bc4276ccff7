// Where: out = condition ? x : y with the three broadcast (ops/broadcast.h
// BroadcastLayout: runs along the innermost merged dim, each operand read
// with its own stride, 0 where broadcast). Registered under bool, the
// condition's dtype (the registry keys by the first operand), for x and y
// of every dtype, by element size. Spread over the threads when large.

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/broadcast.h"

namespace switchyard {
namespace cpu {
namespace {

constexpr int64_t kMinParallelElements = int64_t{1} << 16;

template <typename T>
void Select(const CpuContext& context, const BroadcastLayout& layout,
            const uint8_t* condition, const T* x, const T* y, T* out) {
  const int64_t total = layout.num_elements();
  auto range = [&](int64_t begin, int64_t end) {
    ForEachBroadcastRun(
        layout, begin, end,
        [&](int64_t o, const int64_t* offsets, const int64_t* strides,
            int64_t count) {
          const uint8_t* c = condition + offsets[0];
          const T* a = x + offsets[1];
          const T* b = y + offsets[2];
          T* dst = out + o;
          for (int64_t i = 0; i < count; ++i) {
            dst[i] = c[i * strides[0]] != 0 ? a[i * strides[1]] : b[i * strides[2]];
          }
        });
  };
  if (total < kMinParallelElements) {
    range(0, total);
  } else {
    context.ParallelRange(total, range);
  }
}

class WhereKernel : public Kernel {
 public:
  explicit WhereKernel(const CpuDevice& device)
      : context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    const std::vector<Shape> shapes = {inputs[0]->shape(), inputs[1]->shape(),
                                       inputs[2]->shape()};
    const BroadcastLayout layout = BroadcastLayout::Make(shapes, out.shape());
    const uint8_t* condition = inputs[0]->data<uint8_t>();
    switch (DTypeSize(out.dtype())) {
      case 1:
        Select(*context_, layout, condition, inputs[1]->data<uint8_t>(),
               inputs[2]->data<uint8_t>(), out.data<uint8_t>());
        break;
      case 2:
        Select(*context_, layout, condition, inputs[1]->data<uint16_t>(),
               inputs[2]->data<uint16_t>(), out.data<uint16_t>());
        break;
      case 4:
        Select(*context_, layout, condition, inputs[1]->data<uint32_t>(),
               inputs[2]->data<uint32_t>(), out.data<uint32_t>());
        break;
      default:
        Select(*context_, layout, condition, inputs[1]->data<uint64_t>(),
               inputs[2]->data<uint64_t>(), out.data<uint64_t>());
        break;
    }
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL(CpuKernels(), "where", DType::kBool,
                   &MakeKernel<WhereKernel, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
