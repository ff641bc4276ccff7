// TopK: the input viewed as [outer, n, inner]; each of the outer * inner
// rows picks its k best with nth_element and sorts those (O(n + k log k)),
// rows spread over the CPU's threads.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/axis_view.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/topk_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

// Rows below this many elements in all run on the calling thread.
constexpr int64_t kMinParallelElements = 1 << 15;

// a (at index ia) goes before b: better value first, NaN above every number,
// equal values by index.
template <typename T>
bool Before(T a, int64_t ia, T b, int64_t ib, bool largest) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return ia < ib;
      return largest ? a_nan : b_nan;
    }
  }
  if (a != b) return largest ? a > b : a < b;
  return ia < ib;
}

template <typename T>
class TopKKernel : public Kernel {
 public:
  TopKKernel(const TopKAttrs& attrs, const CpuDevice& device)
      : attrs_(attrs), context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    const AxisView view = AroundAxis(in.shape(), attrs_.axis);
    const int64_t outer = view.outer, n = view.n, inner = view.inner;
    const int64_t k = attrs_.k;
    const int64_t rows = outer * inner;
    if (rows == 0 || k == 0) return absl::OkStatus();
    const T* x = in.data<T>();
    T* values = outputs[0]->data<T>();
    int64_t* indices = outputs[1]->data<int64_t>();
    const bool largest = attrs_.largest;
    auto run_rows = [&](int64_t begin, int64_t end) {
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t r = begin; r < end; ++r) {
        const int64_t o = r / inner, i = r % inner;
        const T* row = x + o * n * inner + i;
        auto before = [&](int64_t a, int64_t b) {
          return Before(row[a * inner], a, row[b * inner], b, largest);
        };
        std::iota(order.begin(), order.end(), int64_t{0});
        if (k < n) std::nth_element(order.begin(), order.begin() + (k - 1), order.end(), before);
        std::sort(order.begin(), order.begin() + k, before);
        const int64_t out_base = o * k * inner + i;
        for (int64_t j = 0; j < k; ++j) {
          values[out_base + j * inner] = row[order[j] * inner];
          indices[out_base + j * inner] = order[j];
        }
      }
    };
    if (rows * n < kMinParallelElements || rows == 1) {
      run_rows(0, rows);
    } else {
      context_->ParallelRange(rows, run_rows);
    }
    return absl::OkStatus();
  }

 private:
  TopKAttrs attrs_;
  std::shared_ptr<const CpuContext> context_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeTopK(const Node& node, const Graph& graph,
                                                 CpuDevice& device) {
  return MakeKernelWithAttrs<TopKKernel<T>, TopKAttrs, CpuDevice>(node, graph, device);
}

SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), TopKAttrs::kOp, MakeTopK, float, double,
                             int64_t, int32_t);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
