// Gather (gather.cu): one thread per output element over data viewed as
// [outer, n, inner]. Out-of-range indices (ops/gather.cc) are caught two
// ways:
//   * indices that are a graph constant are checked on the host when the
//     kernel is created (the error then comes from compiling), and Run
//     launches the kernel alone;
//   * indices computed or fed at run time: the kernel never reads through a
//     bad index and lowers a device flag to the first bad position
//     (atomicMin); Run copies the flag back and synchronizes the stream
//     (one 8-byte copy and a wait per gather), and returns InvalidArgument
//     naming that index, its position and the bound (ops/shape_geometry.h
//     GatherIndexError).

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/gather.cuh"
#include "ops/shape_attrs.h"
#include "ops/shape_geometry.h"

namespace switchyard {
namespace cuda {
namespace {

constexpr unsigned long long kNoBadIndex =
    std::numeric_limits<unsigned long long>::max();

// The first index of `values` outside [-n, n), as GatherIndexError.
template <typename Index>
absl::Status CheckIndices(const std::vector<Index>& values,
                          const Shape& indices, int64_t n, int axis) {
  for (size_t k = 0; k < values.size(); ++k) {
    const int64_t v = values[k];
    if (v < -n || v >= n) {
      return GatherIndexError(v, static_cast<int64_t>(k), indices, n, axis);
    }
  }
  return absl::OkStatus();
}

class GatherKernel : public Kernel {
 public:
  GatherKernel(CudaDevice& device, int axis, bool checked)
      : device_(device), axis_(axis), checked_(checked) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& data = *inputs[0];
    const Tensor& indices = *inputs[1];
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    const Shape& shape = data.shape();
    const int64_t n = shape.dim(axis_);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis_; ++d) outer *= shape.dim(d);
    for (int d = axis_ + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
    const bool int64_indices = indices.dtype() == DType::kInt64;
    SY_RETURN_IF_ERROR(device_.Activate());
    // Indices checked at creation need no flag (null: the kernel zeroes a
    // bad index's output without reporting, which cannot happen then).
    std::shared_ptr<Buffer> flag;
    unsigned long long* bad = nullptr;
    if (!checked_) {
      SY_ASSIGN_OR_RETURN(flag, device_.Allocate(sizeof(unsigned long long)));
      bad = static_cast<unsigned long long*>(flag->data());
      SY_CUDA_RETURN_IF_ERROR(
          cudaMemsetAsync(bad, 0xFF, sizeof(*bad), device_.stream()),
          device_.name());
    }
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchGather(out.data<void>(), data.data<void>(),
                              indices.data<void>(), int64_indices, outer, n,
                              indices.num_elements(), inner,
                              DTypeSize(data.dtype()), bad, device_.stream()),
        device_.name());
    if (checked_) return absl::OkStatus();
    unsigned long long position = kNoBadIndex;
    SY_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(&position, bad, sizeof(position),
                        cudaMemcpyDeviceToHost, device_.stream()),
        device_.name());
    SY_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(device_.stream()),
                            device_.name());
    if (position == kNoBadIndex) return absl::OkStatus();
    // Read the offending value back for the message.
    int64_t value = 0;
    const size_t size = int64_indices ? sizeof(int64_t) : sizeof(int32_t);
    int32_t value32 = 0;
    SY_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(int64_indices ? static_cast<void*>(&value)
                                 : static_cast<void*>(&value32),
                   indices.data<char>() + position * size, size,
                   cudaMemcpyDeviceToHost),
        device_.name());
    if (!int64_indices) value = value32;
    return GatherIndexError(value, static_cast<int64_t>(position),
                            indices.shape(), n, axis_);
  }

 private:
  CudaDevice& device_;
  int axis_;
  bool checked_;  // the indices are a constant checked at creation
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeGather(const Node& node,
                                                   const Graph& graph,
                                                   CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(GatherAttrs attrs, GatherAttrs::FromAttrMap(node.attrs));
  const Shape& data = *graph.value(node.inputs[0]).shape;
  const int axis = static_cast<int>(attrs.axis < 0 ? attrs.axis + data.rank()
                                                   : attrs.axis);
  const Value& indices = graph.value(node.inputs[1]);
  bool checked = false;
  if (indices.constant.has_value()) {
    const int64_t n = data.dim(axis);
    if (indices.dtype == DType::kInt64) {
      SY_ASSIGN_OR_RETURN(std::vector<int64_t> values,
                          indices.constant->ToHost<int64_t>());
      SY_RETURN_IF_ERROR(CheckIndices(values, *indices.shape, n, axis));
    } else {
      SY_ASSIGN_OR_RETURN(std::vector<int32_t> values,
                          indices.constant->ToHost<int32_t>());
      SY_RETURN_IF_ERROR(CheckIndices(values, *indices.shape, n, axis));
    }
    checked = true;
  }
  return std::make_unique<GatherKernel>(device, axis, checked);
}

[[maybe_unused]] const bool kRegistered = RegisterEveryDType("gather", &MakeGather);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
