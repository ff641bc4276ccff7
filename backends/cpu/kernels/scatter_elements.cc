// scatter_elements: every index is checked first (an out-of-range one is
// InvalidArgument, ops/gather_scatter_geometry.h, and nothing is written);
// then the output is a copy of data, and updates land in indices'
// row-major order (so duplicates combine, or the last one wins, as the
// reference does), each at the index's offset along the axis plus the
// other coordinates' (a running multi-index), threads taking disjoint
// slices of a dimension other than the axis.

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/cpu/kernels/elementwise.h"
#include "backends/cpu/kernels/scatter_update.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/gather_scatter_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

// The index at `k` of `indices` (int64 or int32).
int64_t IndexAt(const Tensor& indices, int64_t k) {
  return indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[k]
                                          : indices.data<int32_t>()[k];
}

template <typename T>
class ScatterElementsKernel : public Kernel {
 public:
  ScatterElementsKernel(const ScatterElementsAttrs& attrs,
                        std::shared_ptr<const CpuContext> context)
      : attrs_(attrs), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    const Shape& shape = data.shape();
    const int rank = shape.rank();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + rank : attrs_.axis);
    const int64_t n = shape.dim(axis);
    // Checked before anything is written, and not kept: a kept copy would be
    // 8 bytes per update (100 MB of fresh memory for a detector's RoI
    // features, every run).
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
      const int64_t v = IndexAt(indices, k);
      if (WrapIndex(v, n) < 0) {
        return IndexOutOfRange("scatter_elements", indices.shape(), k, v, axis, n);
      }
    }
    T* out = outputs[0]->data<T>();
    const int64_t count = data.num_elements();
    const auto copy = [&](int64_t begin, int64_t end) {
      std::memcpy(out + begin, data.data<T>() + begin, (end - begin) * sizeof(T));
    };
    if (count < kMinParallelElements) {
      copy(0, count);
    } else {
      context_->ParallelRange(count, copy);
    }
    if (indices.num_elements() == 0) return absl::OkStatus();
    // Updates that differ in a coordinate other than the axis' land on
    // different output elements, so the outermost such dimension is split
    // among the threads; within a part, indices' row-major order is kept
    // (duplicates combine, or the last wins, as in one pass).
    int split = -1;
    for (int d = 0; d < rank && split < 0; ++d) {
      if (d != axis && indices.shape().dim(d) > 1) split = d;
    }
    if (split < 0 || indices.num_elements() < kMinParallelElements) {
      ScatterBox(inputs, out, axis, n, -1, 0, 1);
      return absl::OkStatus();
    }
    context_->ParallelRange(indices.shape().dim(split), [&](int64_t begin, int64_t end) {
      ScatterBox(inputs, out, axis, n, split, begin, end);
    });
    return absl::OkStatus();
  }

 private:
  // The updates whose coordinate in dimension `split` is in [lo, hi) (all of
  // them when split is -1), in indices' row-major order, with a running
  // multi-index: `base` is the output offset without the axis' term, `k`
  // the offset in indices and updates.
  void ScatterBox(absl::Span<const Tensor* const> inputs, T* out, int axis,
                  int64_t n, int split, int64_t lo, int64_t hi) const {
    const Tensor& indices = *inputs[1];
    const T* updates = inputs[2]->data<T>();
    const Shape& shape = inputs[0]->shape();
    const Shape& ishape = indices.shape();
    const int rank = shape.rank();
    std::vector<int64_t> out_stride(rank, 1), in_stride(rank, 1), first(rank, 0),
        last(rank), coord(rank);
    for (int d = rank - 2; d >= 0; --d) {
      out_stride[d] = out_stride[d + 1] * shape.dim(d + 1);
      in_stride[d] = in_stride[d + 1] * ishape.dim(d + 1);
    }
    for (int d = 0; d < rank; ++d) last[d] = ishape.dim(d);
    if (split >= 0) first[split] = lo, last[split] = hi;
    int64_t base = 0, k = 0, total = 1;
    for (int d = 0; d < rank; ++d) {
      coord[d] = first[d];
      if (d != axis) base += first[d] * out_stride[d];
      k += first[d] * in_stride[d];
      total *= last[d] - first[d];
    }
    for (int64_t done = 0; done < total; ++done) {
      const int64_t at = WrapIndex(IndexAt(indices, k), n);
      ApplyUpdate(attrs_.reduction, out[base + at * out_stride[axis]], updates[k]);
      for (int d = rank - 1; d >= 0; --d) {  // the next coord in the box
        if (++coord[d] < last[d]) {
          if (d != axis) base += out_stride[d];
          k += in_stride[d];
          break;
        }
        const int64_t back = coord[d] - 1 - first[d];
        if (d != axis) base -= back * out_stride[d];
        k -= back * in_stride[d];
        coord[d] = first[d];
      }
    }
  }

  ScatterElementsAttrs attrs_;
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeScatterElements(const Node& node,
                                                            const Graph& graph,
                                                            CpuDevice& device) {
  SY_ASSIGN_OR_RETURN(ScatterElementsAttrs attrs,
                      ScatterElementsAttrs::FromAttrMap(node.attrs));
  return WithScatterType(
      graph.value(node.inputs[0]).dtype, attrs.reduction, "scatter_elements",
      [&](auto tag) -> absl::StatusOr<std::unique_ptr<Kernel>> {
        return std::make_unique<ScatterElementsKernel<typename decltype(tag)::type>>(
            attrs, device.context());
      });
}

SY_REGISTER_KERNEL_FOR_DTYPES(CpuKernels(), "scatter_elements", &MakeScatterElements);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
