// gather_elements: every index is checked and wrapped first (an
// out-of-range one is InvalidArgument, ops/gather_scatter_geometry.h, and
// nothing is read); then the output, in indices' row-major order, is copied
// element by element from data at the index's offset along the axis plus
// the other coordinates' (kept as a running multi-index, no division per
// element). Elements are moved as bytes: every dtype.

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "core/kernel_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "ops/gather_scatter_attrs.h"
#include "ops/gather_scatter_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

// The indices wrapped into [0, n), or the error for the first bad one.
absl::StatusOr<std::vector<int64_t>> WrappedIndices(const Tensor& indices, int64_t n,
                                                    int axis) {
  std::vector<int64_t> out(indices.num_elements());
  for (int64_t k = 0; k < indices.num_elements(); ++k) {
    const int64_t v = indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[k]
                                                       : indices.data<int32_t>()[k];
    out[k] = WrapIndex(v, n);
    if (out[k] < 0) {
      return IndexOutOfRange("gather_elements", indices.shape(), k, v, axis, n);
    }
  }
  return out;
}

class GatherElementsKernel : public Kernel {
 public:
  GatherElementsKernel(const GatherElementsAttrs& attrs, const CpuDevice&)
      : attrs_(attrs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    const Shape& shape = data.shape();
    const int rank = shape.rank();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + rank : attrs_.axis);
    SY_ASSIGN_OR_RETURN(std::vector<int64_t> index,
                        WrappedIndices(indices, shape.dim(axis), axis));
    std::vector<int64_t> strides(rank, 1);
    for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dim(d + 1);
    const size_t size = DTypeSize(data.dtype());
    const char* src = data.data<char>();
    char* dst = outputs[0]->data<char>();
    std::vector<int64_t> coord(rank, 0);  // of the current index in indices
    int64_t base = 0;  // data offset of coord, without the axis' term
    for (int64_t k = 0; k < indices.num_elements(); ++k) {
      std::memcpy(dst + k * size, src + (base + index[k] * strides[axis]) * size, size);
      for (int d = rank - 1; d >= 0; --d) {  // the next coord
        if (++coord[d] < indices.shape().dim(d)) {
          if (d != axis) base += strides[d];
          break;
        }
        if (d != axis) base -= (coord[d] - 1) * strides[d];
        coord[d] = 0;
      }
    }
    return absl::OkStatus();
  }

 private:
  GatherElementsAttrs attrs_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    CpuKernels(), "gather_elements",
    &MakeKernelWithAttrs<GatherElementsKernel, GatherElementsAttrs, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
