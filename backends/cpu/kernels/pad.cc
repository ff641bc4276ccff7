// Pad (constant, reflect, edge; negative pads crop): per output dim, a
// table of the input index each output index copies (ops/shape_geometry.h
// PadSourceIndex; -1: the fill). Each output row (every dim but the last)
// is the fill when an outer dim says so; else one memcpy of the part copied
// in order, and single elements for the padded ends. Rows are spread over
// the threads when large.

#include <cstring>
#include <memory>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/shape_attrs.h"
#include "ops/shape_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

constexpr int64_t kMinParallelBytes = int64_t{1} << 18;

class PadKernel : public Kernel {
 public:
  PadKernel(PadAttrs attrs, const CpuDevice& device)
      : attrs_(std::move(attrs)), context_(device.context()) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& in = *inputs[0];
    Tensor& out = *outputs[0];
    if (out.num_elements() == 0) return absl::OkStatus();
    const size_t element = DTypeSize(in.dtype());
    // The fill, one element of the dtype (C++ conversion of the value).
    char fill[8] = {};
    SetElementFromDouble(fill, in.dtype(), 0, attrs_.value);
    // A scalar is one dim of 1 with no padding.
    std::vector<int64_t> in_dims = in.shape().dims();
    std::vector<int64_t> out_dims = out.shape().dims();
    std::vector<int64_t> pads = attrs_.pads;
    if (in_dims.empty()) {
      in_dims = out_dims = {1};
      pads = {0, 0};
    }
    const int rank = static_cast<int>(in_dims.size());
    std::vector<int64_t> in_strides(rank, 1);
    for (int d = rank - 2; d >= 0; --d) {
      in_strides[d] = in_strides[d + 1] * in_dims[d + 1];
    }
    // source[d][o]: the input index output index o of dim d copies, or -1.
    std::vector<std::vector<int64_t>> source(rank);
    for (int d = 0; d < rank; ++d) {
      source[d].resize(out_dims[d]);
      for (int64_t o = 0; o < out_dims[d]; ++o) {
        source[d][o] = PadSourceIndex(attrs_.mode, o, pads[d], in_dims[d]);
      }
    }
    // Along the last dim, [lo, hi) copies input lo - begin ... in order.
    const int last = rank - 1;
    const int64_t width = out_dims[last];
    const int64_t begin = pads[last];
    const int64_t lo = std::max<int64_t>(0, begin);
    const int64_t hi = std::min<int64_t>(width, begin + in_dims[last]);
    int64_t rows = 1;
    for (int d = 0; d < last; ++d) rows *= out_dims[d];
    const char* src = in.data<char>();
    char* dst = out.data<char>();

    auto run = [&](int64_t row_begin, int64_t row_end) {
      for (int64_t r = row_begin; r < row_end; ++r) {
        char* row = dst + r * width * element;
        // The input row this output row reads, if any.
        int64_t offset = 0, rest = r;
        bool filled = false;
        for (int d = last - 1; d >= 0; --d) {
          const int64_t s = source[d][rest % out_dims[d]];
          rest /= out_dims[d];
          if (s < 0) {
            filled = true;
            break;
          }
          offset += s * in_strides[d];
        }
        if (filled) {
          for (int64_t k = 0; k < width; ++k) {
            std::memcpy(row + k * element, fill, element);
          }
          continue;
        }
        const char* in_row = src + offset * element;
        for (int64_t k = 0; k < width; ++k) {
          if (k == lo && hi > lo) {
            std::memcpy(row + k * element, in_row + (k - begin) * element,
                        (hi - lo) * element);
            k = hi - 1;
            continue;
          }
          const int64_t s = source[last][k];
          std::memcpy(row + k * element, s < 0 ? fill : in_row + s * element,
                      element);
        }
      }
    };
    if (out.size_bytes() < kMinParallelBytes) {
      run(0, rows);
    } else {
      context_->ParallelRange(rows, run);
    }
    return absl::OkStatus();
  }

 private:
  PadAttrs attrs_;
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(
    CpuKernels(), "pad",
    &MakeKernelWithAttrs<PadKernel, PadAttrs, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
