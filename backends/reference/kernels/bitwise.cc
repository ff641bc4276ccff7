// bitwise_not, bitwise_and, bitwise_or, bitwise_xor: each output element
// from its multi-index (ops/broadcast.h's BroadcastStrides), and each of its
// bits from the operands' bits at that position through the oracle's own
// truth table on bools (not the CPU's integer operators). Elements are read
// as their bytes, so one kernel serves every integer width.

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/reference/kernels/kernels.h"
#include "ops/broadcast.h"

namespace switchyard {
namespace reference {
namespace {

using Formula = bool (*)(bool a, bool b);

const std::map<std::string, Formula>& Formulas() {
  static const auto* formulas = new std::map<std::string, Formula>{
      {"bitwise_and", [](bool a, bool b) { return a && b; }},
      {"bitwise_or", [](bool a, bool b) { return a || b; }},
      {"bitwise_xor", [](bool a, bool b) { return a != b; }},
      // Unary: b is unused.
      {"bitwise_not", [](bool a, bool) { return !a; }},
  };
  return *formulas;
}

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
      int64_t rest = i;
      std::vector<int64_t> at(operands_, 0);
      for (int d = shape.rank() - 1; d >= 0; --d) {
        const int64_t index = rest % shape.dim(d);
        rest /= shape.dim(d);
        for (int k = 0; k < operands_; ++k) at[k] += index * strides[k][d];
      }
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
  const auto it = Formulas().find(node.op);
  if (it == Formulas().end()) {
    return absl::InternalError(absl::StrCat(
        "the reference backend has no formula for '", node.op,
        "'; add one to backends/reference/kernels/bitwise.cc"));
  }
  const DType dtype = graph.value(node.inputs[0]).dtype;
  const int operands = node.op == "bitwise_not" ? 1 : 2;
  return std::make_unique<BitwiseKernel>(device, dtype, operands, it->second);
}

const std::vector<DType> kIntegerDTypes = {DType::kInt64, DType::kInt32, DType::kInt8,
                                           DType::kUInt8};
SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "bitwise_not", &MakeBitwise, kIntegerDTypes);
SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "bitwise_and", &MakeBitwise, kIntegerDTypes);
SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "bitwise_or", &MakeBitwise, kIntegerDTypes);
SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "bitwise_xor", &MakeBitwise, kIntegerDTypes);

}  // namespace
}  // namespace reference
}  // namespace switchyard
