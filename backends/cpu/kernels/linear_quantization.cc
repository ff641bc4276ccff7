// quantize_linear, dequantize_linear (ops/linear_quantization.cc),
// qlinear_add (ops/qlinear_add.cc) and dynamic_quantize_linear
// (ops/dynamic_quantize_linear.cc): one pass over the elements (two for
// dynamic_quantize_linear: its range, then the quantization), split over
// the threads when large.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>

#include "backends/cpu/cpu_device.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/kernel_lists.h"
#include "ops/linear_quantization.h"

namespace switchyard {
namespace cpu {
namespace {

constexpr int64_t kMinParallelElements = int64_t{1} << 15;

// The scale and zero point, one element each (checked by the op).
float ScaleOf(const Tensor& scale) { return scale.data<float>()[0]; }
int32_t ZeroPointOf(const Tensor& zero_point) {
  return zero_point.dtype() == DType::kUInt8 ? zero_point.data<uint8_t>()[0]
                                             : zero_point.data<int8_t>()[0];
}

template <typename Fn>
void ForEachRange(const CpuContext& context, int64_t n, const Fn& fn) {
  if (n < kMinParallelElements) {
    fn(0, n);
  } else {
    context.ParallelRange(n, fn);
  }
}

class QuantizeKernel : public Kernel {
 public:
  explicit QuantizeKernel(std::shared_ptr<const CpuContext> context)
      : context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* x = inputs[0]->data<float>();
    const float scale = ScaleOf(*inputs[1]);
    const int32_t zero_point = ZeroPointOf(*inputs[2]);
    Tensor& y = *outputs[0];
    if (y.dtype() == DType::kUInt8) {
      Quantize(x, scale, zero_point, y.data<uint8_t>(), y.num_elements());
    } else {
      Quantize(x, scale, zero_point, y.data<int8_t>(), y.num_elements());
    }
    return absl::OkStatus();
  }

 private:
  template <typename Q>
  void Quantize(const float* x, float scale, int32_t zero_point, Q* y, int64_t n) const {
    ForEachRange(*context_, n, [&](int64_t begin, int64_t end) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) y[i] = QuantizeElement<Q>(x[i], scale, zero_point);
    });
  }

  std::shared_ptr<const CpuContext> context_;
};

class DequantizeKernel : public Kernel {
 public:
  explicit DequantizeKernel(std::shared_ptr<const CpuContext> context)
      : context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Tensor& q = *inputs[0];
    const float scale = ScaleOf(*inputs[1]);
    const int32_t zero_point = ZeroPointOf(*inputs[2]);
    float* y = outputs[0]->data<float>();
    if (q.dtype() == DType::kUInt8) {
      Dequantize(q.data<uint8_t>(), scale, zero_point, y, q.num_elements());
    } else {
      Dequantize(q.data<int8_t>(), scale, zero_point, y, q.num_elements());
    }
    return absl::OkStatus();
  }

 private:
  template <typename Q>
  void Dequantize(const Q* q, float scale, int32_t zero_point, float* y, int64_t n) const {
    ForEachRange(*context_, n, [&](int64_t begin, int64_t end) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) y[i] = DequantizeElement<Q>(q[i], scale, zero_point);
    });
  }

  std::shared_ptr<const CpuContext> context_;
};

class DynamicQuantizeKernel : public Kernel {
 public:
  explicit DynamicQuantizeKernel(std::shared_ptr<const CpuContext> context)
      : context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const float* x = inputs[0]->data<float>();
    const int64_t n = inputs[0]->num_elements();
    float lowest = std::numeric_limits<float>::infinity();
    float highest = -lowest;
    std::mutex mu;
    ForEachRange(*context_, n, [&](int64_t begin, int64_t end) {
      float lo = std::numeric_limits<float>::infinity(), hi = -lo;
      // std::min(lo, NaN) keeps lo: NaN takes no part in the range.
#pragma omp simd reduction(min : lo) reduction(max : hi)
      for (int64_t i = begin; i < end; ++i) {
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
      }
      std::lock_guard<std::mutex> lock(mu);
      lowest = std::min(lowest, lo);
      highest = std::max(highest, hi);
    });
    const DynamicQuantization q = DynamicQuantizationOf(lowest, highest);
    outputs[1]->data<float>()[0] = q.scale;
    outputs[2]->data<uint8_t>()[0] = static_cast<uint8_t>(q.zero_point);
    uint8_t* y = outputs[0]->data<uint8_t>();
    ForEachRange(*context_, n, [&](int64_t begin, int64_t end) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) {
        y[i] = QuantizeElement<uint8_t>(x[i], q.scale, q.zero_point);
      }
    });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeDynamicQuantize(const Node&, const Graph&,
                                                            CpuDevice& device) {
  return std::make_unique<DynamicQuantizeKernel>(device.context());
}

class QLinearAddKernel : public Kernel {
 public:
  explicit QLinearAddKernel(std::shared_ptr<const CpuContext> context)
      : context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    QLinearAddParams p;
    p.a_scale = ScaleOf(*inputs[2]);
    p.a_zero_point = ZeroPointOf(*inputs[3]);
    p.b_scale = ScaleOf(*inputs[4]);
    p.b_zero_point = ZeroPointOf(*inputs[5]);
    p.y_scale = ScaleOf(*inputs[6]);
    p.y_zero_point = ZeroPointOf(*inputs[7]);
    Tensor& y = *outputs[0];
    WithQLinearAddTypes(inputs[0]->dtype() == DType::kUInt8, y.dtype() == DType::kUInt8,
                        [&](auto q, auto out) {
                          using Q = decltype(q);
                          using Out = decltype(out);
                          const Q* a = inputs[0]->data<Q>();
                          const Q* b = inputs[1]->data<Q>();
                          Out* result = y.data<Out>();
                          ForEachRange(*context_, y.num_elements(),
                                       [&](int64_t begin, int64_t end) {
                                         QLinearAddRange(a, b, result, begin, end, p);
                                       });
                        });
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<const CpuContext> context_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeQLinearAdd(const Node&, const Graph&,
                                                       CpuDevice& device) {
  return std::make_unique<QLinearAddKernel>(device.context());
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeQuantize(const Node&, const Graph&,
                                                     CpuDevice& device) {
  return std::make_unique<QuantizeKernel>(device.context());
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeDequantize(const Node&, const Graph&,
                                                       CpuDevice& device) {
  return std::make_unique<DequantizeKernel>(device.context());
}

// The (op, dtype) list is ops/kernel_lists.h's, shared with the reference
// backend.
#define SY_REGISTER_QUANTIZATION(op, dtype, make) \
  SY_REGISTER_KERNEL(CpuKernels(), op, DType::dtype, &make);
SY_LINEAR_QUANTIZATION_KERNELS(SY_REGISTER_QUANTIZATION)
#undef SY_REGISTER_QUANTIZATION

}  // namespace
}  // namespace cpu
}  // namespace switchyard
