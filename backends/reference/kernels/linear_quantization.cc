// quantize_linear, dequantize_linear (ops/linear_quantization.cc),
// qlinear_add (ops/qlinear_add.cc) and dynamic_quantize_linear
// (ops/dynamic_quantize_linear.cc) by the formulas of
// ops/linear_quantization.h, element by element.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include "backends/reference/kernels/integer_products.h"
#include "backends/reference/kernels/kernels.h"
#include "ops/kernel_lists.h"
#include "ops/linear_quantization.h"

namespace switchyard {
namespace reference {
namespace {

class QuantizeKernel : public Kernel {
 public:
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& x = *inputs[0];
    const float scale = inputs[1]->data<float>()[0];
    const int32_t zero_point = ZeroPoint(*inputs[2], 0);
    Tensor& y = *outputs[0];
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const float v = x.data<float>()[i];
      if (y.dtype() == DType::kUInt8) {
        y.data<uint8_t>()[i] = QuantizeElement<uint8_t>(v, scale, zero_point);
      } else {
        y.data<int8_t>()[i] = QuantizeElement<int8_t>(v, scale, zero_point);
      }
    }
    return absl::OkStatus();
  }
};

class DequantizeKernel : public Kernel {
 public:
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& q = *inputs[0];
    const float scale = inputs[1]->data<float>()[0];
    const int32_t zero_point = ZeroPoint(*inputs[2], 0);
    float* y = outputs[0]->data<float>();
    for (int64_t i = 0; i < q.num_elements(); ++i) {
      y[i] = static_cast<float>(EightBit(q, i) - zero_point) * scale;
    }
    return absl::OkStatus();
  }
};

// qlinear_add (ops/qlinear_add.cc), element by element.
class QLinearAddKernel : public Kernel {
 public:
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    QLinearAddParams p;
    p.a_scale = inputs[2]->data<float>()[0];
    p.a_zero_point = static_cast<int32_t>(ZeroPoint(*inputs[3], 0));
    p.b_scale = inputs[4]->data<float>()[0];
    p.b_zero_point = static_cast<int32_t>(ZeroPoint(*inputs[5], 0));
    p.y_scale = inputs[6]->data<float>()[0];
    p.y_zero_point = static_cast<int32_t>(ZeroPoint(*inputs[7], 0));
    Tensor& y = *outputs[0];
    WithQLinearAddTypes(inputs[0]->dtype() == DType::kUInt8, y.dtype() == DType::kUInt8,
                        [&](auto q, auto out) {
                          using Q = decltype(q);
                          using Out = decltype(out);
                          for (int64_t i = 0; i < y.num_elements(); ++i) {
                            QLinearAddRange(inputs[0]->data<Q>(), inputs[1]->data<Q>(),
                                            y.data<Out>(), i, i + 1, p);
                          }
                        });
    return absl::OkStatus();
  }
};

class DynamicQuantizeKernel : public Kernel {
 public:
  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* x = inputs[0]->data<float>();
    const int64_t n = inputs[0]->num_elements();
    float lowest = std::numeric_limits<float>::infinity();
    float highest = -lowest;
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(x[i])) continue;
      lowest = std::min(lowest, x[i]);
      highest = std::max(highest, x[i]);
    }
    const DynamicQuantization q = DynamicQuantizationOf(lowest, highest);
    outputs[1]->data<float>()[0] = q.scale;
    outputs[2]->data<uint8_t>()[0] = static_cast<uint8_t>(q.zero_point);
    for (int64_t i = 0; i < n; ++i) {
      outputs[0]->data<uint8_t>()[i] = QuantizeElement<uint8_t>(x[i], q.scale, q.zero_point);
    }
    return absl::OkStatus();
  }
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeDynamicQuantize(const Node&, const Graph&,
                                                            RefDevice&) {
  return std::make_unique<DynamicQuantizeKernel>();
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeQLinearAdd(const Node&, const Graph&, RefDevice&) {
  return std::make_unique<QLinearAddKernel>();
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeQuantize(const Node&, const Graph&, RefDevice&) {
  return std::make_unique<QuantizeKernel>();
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeDequantize(const Node&, const Graph&, RefDevice&) {
  return std::make_unique<DequantizeKernel>();
}

// The (op, dtype) list is ops/kernel_lists.h's, shared with the cpu
// backend.
#define SY_REGISTER_QUANTIZATION(op, dtype, make) \
  SY_REGISTER_KERNEL(RefKernels(), op, DType::dtype, &make);
SY_LINEAR_QUANTIZATION_KERNELS(SY_REGISTER_QUANTIZATION)
#undef SY_REGISTER_QUANTIZATION

}  // namespace
}  // namespace reference
}  // namespace switchyard
