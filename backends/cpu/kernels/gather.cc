// Gather: data viewed as [outer, n, inner] and the indices as K values;
// output row (o, k) is the contiguous run data[o, indices[k], :], one
// memcpy each, spread over the threads when large. Every index is checked
// before anything is copied (an out-of-range one is InvalidArgument, ops/
// gather.cc), so a bad index never reads outside the data.

#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/axis_view.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/shape_attrs.h"
#include "ops/shape_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

// Below this many bytes one thread copies everything.
constexpr int64_t kMinParallelBytes = int64_t{1} << 18;

// The indices as int64 in [0, n), or the error for the first bad one.
template <typename Index>
absl::StatusOr<std::vector<int64_t>> Normalize(const Tensor& indices,
                                               int64_t n, int axis) {
  const Index* values = indices.data<Index>();
  const int64_t count = indices.num_elements();
  std::vector<int64_t> out(count);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t v = values[k];
    if (v < -n || v >= n) {
      return GatherIndexError(v, k, indices.shape(), n, axis);
    }
    out[k] = v < 0 ? v + n : v;
  }
  return out;
}

class GatherKernel : public Kernel {
 public:
  GatherKernel(const GatherAttrs& attrs, const CpuDevice& device)
      : axis_(attrs.axis), context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    Tensor& out = *outputs[0];
    const AxisView view = AroundAxis(data.shape(), axis_);
    const int64_t outer = view.outer, n = view.n, inner = view.inner;
    const int axis = view.axis;
    absl::StatusOr<std::vector<int64_t>> rows =
        indices.dtype() == DType::kInt64
            ? Normalize<int64_t>(indices, n, axis)
            : Normalize<int32_t>(indices, n, axis);
    SY_RETURN_IF_ERROR(rows.status());
    if (out.num_elements() == 0) return absl::OkStatus();
    const int64_t count = static_cast<int64_t>(rows->size());
    const size_t run = inner * DTypeSize(data.dtype());
    const char* src = data.data<char>();
    char* dst = out.data<char>();
    const std::vector<int64_t>& index = *rows;
    auto copy = [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t o = r / count, k = r % count;
        std::memcpy(dst + r * run, src + (o * n + index[k]) * run, run);
      }
    };
    if (out.size_bytes() < kMinParallelBytes) {
      copy(0, outer * count);
    } else {
      context_->ParallelRange(outer * count, copy);
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    CpuKernels(), "gather",
    &MakeKernelWithAttrs<GatherKernel, GatherAttrs, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
