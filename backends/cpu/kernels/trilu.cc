// trilu: row by row of each [rows, cols] matrix, the kept run of a row is
// one memcpy and the rest is zeroed (zero bytes are 0 in every dtype), so
// one kernel serves every dtype by element size.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "backends/cpu/cpu_device.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/trilu_attrs.h"

namespace switchyard {
namespace cpu {
namespace {

class TriluKernel : public Kernel {
 public:
  TriluKernel(const TriluAttrs& attrs, const CpuDevice&) : attrs_(attrs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& shape = inputs[0]->shape();
    const int64_t rows = shape.dim(shape.rank() - 2), cols = shape.dim(shape.rank() - 1);
    const int64_t matrices = rows * cols == 0 ? 0 : shape.num_elements() / (rows * cols);
    const size_t size = DTypeSize(inputs[0]->dtype());
    const char* x = inputs[0]->data<char>();
    char* y = outputs[0]->data<char>();
    // k beyond the matrix keeps all or nothing; clamped, i + k cannot
    // overflow.
    const int64_t k = std::clamp<int64_t>(attrs_.k, -rows - 1, cols + 1);
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t i = 0; i < rows; ++i) {
        // Kept columns [begin, end): j >= i + k (upper) or j <= i + k (lower).
        const int64_t begin = attrs_.upper ? std::clamp<int64_t>(i + k, 0, cols) : 0;
        const int64_t end = attrs_.upper ? cols : std::clamp<int64_t>(i + k + 1, 0, cols);
        const int64_t row = (m * rows + i) * cols;
        std::memset(y + row * size, 0, cols * size);
        if (end > begin) {
          std::memcpy(y + (row + begin) * size, x + (row + begin) * size,
                      (end - begin) * size);
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  TriluAttrs attrs_;
};

SY_REGISTER_KERNEL_FOR_DTYPES(CpuKernels(), "trilu",
                              &MakeKernelWithAttrs<TriluKernel, TriluAttrs, CpuDevice>);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
