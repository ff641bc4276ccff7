// logical_not, logical_and, logical_or, logical_xor: each output element
// from its multi-index (ops/broadcast.h's BroadcastStrides), with the
// oracle's own formulas on C++ bools (a byte other than 0 is true; results
// are written as 0 or 1).

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "backends/reference/kernels/broadcast_offset.h"
#include "backends/reference/kernels/kernels.h"
#include "backends/reference/kernels/truth_tables.h"
#include "ops/broadcast.h"
#include "ops/logical_functors.h"

namespace switchyard {
namespace reference {
namespace {

class NotKernel : public RefKernel {
 public:
  explicit NotKernel(const RefDevice& device) : RefKernel(device, DType::kBool, 1, 1) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const uint8_t* x = inputs[0]->data<uint8_t>();
    uint8_t* y = output.data<uint8_t>();
    for (int64_t i = 0; i < output.num_elements(); ++i) y[i] = x[i] == 0 ? 1 : 0;
  }
};

class BinaryKernel : public RefKernel {
 public:
  BinaryKernel(const RefDevice& device, Formula formula)
      : RefKernel(device, DType::kBool, 2, 2), formula_(formula) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const Shape& shape = output.shape();
    const std::vector<int64_t> sa = BroadcastStrides(inputs[0]->shape(), shape);
    const std::vector<int64_t> sb = BroadcastStrides(inputs[1]->shape(), shape);
    const uint8_t* a = inputs[0]->data<uint8_t>();
    const uint8_t* b = inputs[1]->data<uint8_t>();
    uint8_t* out = output.data<uint8_t>();
    for (int64_t i = 0; i < output.num_elements(); ++i) {
      const int64_t ia = BroadcastOffset(i, shape, sa);
      const int64_t ib = BroadcastOffset(i, shape, sb);
      out[i] = formula_(a[ia] != 0, b[ib] != 0) ? 1 : 0;
    }
  }

 private:
  Formula formula_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeBinary(const Node& node, const Graph&,
                                                   RefDevice& device) {
  const Formula formula = TruthTable(absl::StripPrefix(node.op, "logical_"));
  if (formula == nullptr) {
    return absl::InternalError(absl::StrCat(
        "the reference backend has no formula for '", node.op,
        "'; add one to backends/reference/kernels/logical.cc"));
  }
  return std::make_unique<BinaryKernel>(device, formula);
}

SY_REGISTER_KERNEL(RefKernels(), "logical_not", DType::kBool,
                   &MakeKernel<NotKernel, RefDevice>);
#define SY_REGISTER_LOGICAL(op, Functor) \
  SY_REGISTER_KERNEL(RefKernels(), op, DType::kBool, &MakeBinary);
SY_LOGICAL_BINARY_OPS(SY_REGISTER_LOGICAL)
#undef SY_REGISTER_LOGICAL

}  // namespace
}  // namespace reference
}  // namespace switchyard
