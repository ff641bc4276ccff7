// gather_nd: every tuple entry is checked and wrapped first (an
// out-of-range one is InvalidArgument, ops/gather_scatter_geometry.h, and
// nothing is read) into each tuple's row offset within its batch; then each
// tuple's slice data[batch, tuple..., :] is one memcpy. Elements are moved
// as bytes: every dtype.

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

class GatherNdKernel : public Kernel {
 public:
  GatherNdKernel(const GatherNdAttrs& attrs, const CpuDevice&) : attrs_(attrs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    const Shape& shape = data.shape();
    const int b = static_cast<int>(attrs_.batch_dims);
    const int64_t m = indices.shape().dim(indices.shape().rank() - 1);
    int64_t batches = 1, slice = 1;
    for (int d = 0; d < b; ++d) batches *= shape.dim(d);
    for (int d = b + static_cast<int>(m); d < shape.rank(); ++d) slice *= shape.dim(d);
    const int64_t tuples = indices.num_elements() / m;  // m >= 1
    const int64_t per_batch = batches == 0 ? 0 : tuples / batches;
    // Each tuple's slice offset within its batch, in slices.
    std::vector<int64_t> rows(tuples, 0);
    for (int64_t t = 0; t < tuples; ++t) {
      for (int64_t k = 0; k < m; ++k) {
        const int64_t p = t * m + k;
        const int64_t v = indices.dtype() == DType::kInt64 ? indices.data<int64_t>()[p]
                                                           : indices.data<int32_t>()[p];
        const int axis = b + static_cast<int>(k);
        const int64_t i = WrapIndex(v, shape.dim(axis));
        if (i < 0) {
          return IndexOutOfRange("gather_nd", indices.shape(), p, v, axis, shape.dim(axis));
        }
        rows[t] = rows[t] * shape.dim(axis) + i;
      }
    }
    int64_t batch_rows = 1;  // slices per batch of data
    for (int d = b; d < b + m; ++d) batch_rows *= shape.dim(d);
    const size_t run = slice * DTypeSize(data.dtype());
    const char* src = data.data<char>();
    char* dst = outputs[0]->data<char>();
    for (int64_t t = 0; t < tuples; ++t) {
      const int64_t batch = per_batch == 0 ? 0 : t / per_batch;
      std::memcpy(dst + t * run, src + (batch * batch_rows + rows[t]) * run, run);
    }
    return absl::OkStatus();
  }

 private:
  GatherNdAttrs attrs_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    CpuKernels(), "gather_nd",
    &MakeKernelWithAttrs<GatherNdKernel, GatherNdAttrs, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
