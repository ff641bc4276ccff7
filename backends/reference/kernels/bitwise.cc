// bitwise_not, bitwise_and, bitwise_or, bitwise_xor: each output element
// from its multi-index (ops/broadcast.h's BroadcastStrides), and each of its
// bits from the operands' bits at that position through the oracle's own
// truth table on bools (not the CPU's integer operators). Elements are read
// as their bytes, so one kernel serves every integer width.

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "backends/reference/kernels/broadcast_offset.h"
#include "backends/reference/kernels/kernels.h"
#include "backends/reference/kernels/truth_tables.h"
#include "ops/broadcast.h"
#include "ops/kernel_lists.h"

namespace switchyard {
namespace reference {
namespace {

// Element `i` of `data` (elements of `size` bytes) as its bits, and back.
uint64_t Load(const uint8_t* data, int64_t i, size_t size) {
  uint64_t bits = 0;
  for (size_t k = 0; k < size; ++k) {
    bits |= uint64_t{data[i * static_cast<int64_t>(size) + k]} << (8 * k);
  }
  return bits;
}
void Store(uint8_t* data, int64_t i, size_t size, uint64_t bits) {
  for (size_t k = 0; k < size; ++k) {
    data[i * static_cast<int64_t>(size) + k] = static_cast<uint8_t>(bits >> (8 * k));
  }
}

class BitwiseKernel : public RefKernel {
 public:
  BitwiseKernel(const RefDevice& device, DType dtype, int operands, Formula formula)
      : RefKernel(device, dtype, operands, operands),
        operands_(operands),
        size_(DTypeSize(dtype)),
        formula_(formula) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs, Tensor& output) override {
    const Shape& shape = output.shape();
    std::vector<std::vector<int64_t>> strides;
    for (int k = 0; k < operands_; ++k) {
      strides.push_back(BroadcastStrides(inputs[k]->shape(), shape));
    }
    uint8_t* out = output.data<uint8_t>();
    for (int64_t i = 0; i < output.num_elements(); ++i) {
      std::vector<int64_t> at(operands_, 0);
      for (int k = 0; k < operands_; ++k) at[k] = BroadcastOffset(i, shape, strides[k]);
      const uint64_t a = Load(inputs[0]->data<uint8_t>(), at[0], size_);
      const uint64_t b =
          operands_ > 1 ? Load(inputs[1]->data<uint8_t>(), at[1], size_) : 0;
      uint64_t result = 0;
      for (size_t bit = 0; bit < 8 * size_; ++bit) {
        if (formula_(((a >> bit) & 1) != 0, ((b >> bit) & 1) != 0)) {
          result |= uint64_t{1} << bit;
        }
      }
      Store(out, i, size_, result);
    }
  }

 private:
  int operands_;
  size_t size_;
  Formula formula_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeBitwise(const Node& node, const Graph& graph,
                                                    RefDevice& device) {
  const Formula formula = TruthTable(absl::StripPrefix(node.op, "bitwise_"));
  if (formula == nullptr) {
    return absl::InternalError(absl::StrCat(
        "the reference backend has no formula for '", node.op,
        "'; add one to backends/reference/kernels/bitwise.cc"));
  }
  const DType dtype = graph.value(node.inputs[0]).dtype;
  const int operands = node.op == "bitwise_not" ? 1 : 2;
  return std::make_unique<BitwiseKernel>(device, dtype, operands, formula);
}

// One kernel reads every integer width; the list is the cpu backend's
// (ops/kernel_lists.h).
bool RegisterAll() {
  bool ok = true;
  for (const char* op : {"bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor"}) {
    ok &= RegisterForTypes<SY_BITWISE_TYPES>(RefKernels(), op,
                                             [](auto) { return &MakeBitwise; });
  }
  return ok;
}

[[maybe_unused]] const bool kRegistered = RegisterAll();

}  // namespace
}  // namespace reference
}  // namespace switchyard
