// Resize (nearest, N-linear, N-cubic; ops/resize.cc). Shapes are fixed
// when the kernel is built, so each axis's taps (ops/resize_geometry.h:
// the input indices and weights of every output index) are computed once,
// there. Two paths:
//   - only the last two axes change (NCHW images, the common case): each
//     output row combines its row taps with the precomputed column taps,
//     reading the input plane directly; rows of every plane are spread
//     over the threads.
//   - anything else: one axis at a time (resize is separable), each pass
//     [outer, in_d, inner] -> [outer, out_d, inner] into a scratch buffer,
//     the last one into the output.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "backends/cpu/cpu_device.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"
#include "ops/resize_attrs.h"
#include "ops/resize_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

constexpr int64_t kMinParallelBytes = int64_t{1} << 16;

// One axis's taps: output index o reads index[o * count + k] with weight
// weight[o * count + k], k < count.
template <typename T>
struct AxisTaps {
  int count = 1;
  std::vector<int64_t> index;
  std::vector<T> weight;
};

// Linear taps as ONNX Runtime's bilinear kernel takes them: the source
// coordinate in float (not double), clamped into the input before its two
// pixels are chosen (the last one twice, half each, past the end). The same
// interpolation, rounded as it rounds it, so that quantized models agree
// with it (DynamicQuantizeLinear turns a one-ulp difference into a whole
// step). Coordinate modes it has no float form for here keep the taps.
void LinearTapsAsOnnxRuntime(const ResizeAxis& a, int64_t o, int64_t* index,
                             double* weight) {
  const float x = static_cast<float>(o);
  const float scale = static_cast<float>(a.scale);
  float source;
  switch (a.coordinate) {
    case ResizeCoordinateMode::kHalfPixel:
      source = (x + 0.5f) / scale - 0.5f;
      break;
    case ResizeCoordinateMode::kPytorchHalfPixel:
      source = a.out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
      break;
    case ResizeCoordinateMode::kAsymmetric:
      source = x / scale;
      break;
    case ResizeCoordinateMode::kAlignCorners: {
      // ONNX's length_resized is the input's length times the scale.
      const float resized = scale * static_cast<float>(a.in);
      source = resized > 1.0f ? x * static_cast<float>(a.in - 1) / (resized - 1.0f) : 0.0f;
      break;
    }
    default:
      return;
  }
  if (!std::isfinite(source)) return;
  const float last = static_cast<float>(a.in - 1);
  source = source < 0.0f ? 0.0f : (source > last ? last : source);
  index[0] = std::min(static_cast<int64_t>(source), a.in - 1);
  index[1] = std::min(index[0] + 1, a.in - 1);
  float to_second = std::fabs(source - static_cast<float>(index[0]));
  float to_first = std::fabs(source - static_cast<float>(index[1]));
  if (index[0] == index[1]) to_first = to_second = 0.5f;
  weight[0] = to_first;
  weight[1] = to_second;
}

template <typename T>
AxisTaps<T> MakeTaps(const ResizeAxis& axis) {
  AxisTaps<T> taps;
  taps.count = ResizeTapCount(axis);
  taps.index.resize(axis.out * taps.count);
  taps.weight.resize(axis.out * taps.count);
  int64_t index[kMaxResizeTaps];
  double weight[kMaxResizeTaps];
  for (int64_t o = 0; o < axis.out; ++o) {
    ResizeTaps(axis, o, index, weight);
    if constexpr (std::is_same_v<T, float>) {
      if (taps.count == 2) LinearTapsAsOnnxRuntime(axis, o, index, weight);
    }
    for (int k = 0; k < taps.count; ++k) {
      taps.index[o * taps.count + k] = index[k];
      taps.weight[o * taps.count + k] = static_cast<T>(weight[k]);
    }
  }
  return taps;
}

// `v` as computed, kept from being fused into a multiply-add with what
// follows (the build lets the compiler contract a * b + c into one FMA,
// which rounds once instead of twice).
template <typename T>
inline T Rounded(T v) {
  asm("" : "+x"(v));
  return v;
}

// One output row of the last-two-axes path: row taps (R of them, fixed
// at compile time so the inner loops unroll) over the plane's rows, column
// taps (C) per output column.
template <typename T, int R, int C>
void ResizeRow(const T* plane, int64_t in_w, const int64_t* rows,
               const T* row_weights, const AxisTaps<T>& cols, int64_t out_w,
               T* out) {
  const T* src[R];
  for (int k = 0; k < R; ++k) src[k] = plane + rows[k] * in_w;
  const int64_t* ci = cols.index.data();
  const T* cw = cols.weight.data();
  for (int64_t x = 0; x < out_w; ++x, ci += C, cw += C) {
    if constexpr (R == 2 && C == 2) {
      // Bilinear: the four corner products, each rounded, summed in ONNX
      // Runtime's order, so that quantized models (DynamicQuantizeLinear
      // turns a one-ulp difference into a whole step) agree with it.
      const T top_left = Rounded(cw[0] * row_weights[0] * src[0][ci[0]]);
      const T top_right = Rounded(cw[1] * row_weights[0] * src[0][ci[1]]);
      const T bottom_left = Rounded(cw[0] * row_weights[1] * src[1][ci[0]]);
      const T bottom_right = Rounded(cw[1] * row_weights[1] * src[1][ci[1]]);
      out[x] = Rounded(Rounded(top_left + top_right) + bottom_left) + bottom_right;
      continue;
    }
    T acc = T(0);
    for (int k = 0; k < R; ++k) {
      T across = T(0);
      for (int j = 0; j < C; ++j) across += cw[j] * src[k][ci[j]];
      acc += row_weights[k] * across;
    }
    out[x] = acc;
  }
}

template <typename T, int R>
void ResizeRowC(const T* plane, int64_t in_w, const int64_t* rows,
                const T* row_weights, const AxisTaps<T>& cols, int64_t out_w,
                T* out) {
  switch (cols.count) {
    case 1:
      return ResizeRow<T, R, 1>(plane, in_w, rows, row_weights, cols, out_w, out);
    case 2:
      return ResizeRow<T, R, 2>(plane, in_w, rows, row_weights, cols, out_w, out);
    default:
      return ResizeRow<T, R, 4>(plane, in_w, rows, row_weights, cols, out_w, out);
  }
}

template <typename T>
class ResizeKernel : public Kernel {
 public:
  ResizeKernel(const ResizeAttrs& attrs, const Shape& in, const Shape& out,
               const CpuDevice& device)
      : in_(in), out_(out), context_(device.context()) {
    for (int d = 0; d < in.rank(); ++d) {
      const ResizeAxis axis = attrs.Axis(in, d);
      if (!axis.identity) changing_.push_back(d);
      taps_.push_back(MakeTaps<T>(axis));
    }
    const int rank = in.rank();
    last_two_ = rank >= 2 && !changing_.empty() && changing_[0] >= rank - 2;
  }

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const T* src = inputs[0]->data<T>();
    T* dst = outputs[0]->data<T>();
    if (changing_.empty()) {
      std::memcpy(dst, src, outputs[0]->size_bytes());
    } else if (last_two_) {
      RunLastTwo(src, dst);
    } else {
      RunByAxis(src, dst);
    }
    return absl::OkStatus();
  }

 private:
  // [0, n) in one go when small, else over the threads.
  void Spread(int64_t n, int64_t bytes,
              const std::function<void(int64_t, int64_t)>& fn) const {
    if (bytes < kMinParallelBytes) {
      fn(0, n);
    } else {
      context_->ParallelRange(n, fn);
    }
  }

  void RunLastTwo(const T* src, T* dst) const {
    const int rank = in_.rank();
    const int64_t in_h = in_.dim(rank - 2), in_w = in_.dim(rank - 1);
    const int64_t out_h = out_.dim(rank - 2), out_w = out_.dim(rank - 1);
    int64_t planes = 1;
    for (int d = 0; d < rank - 2; ++d) planes *= in_.dim(d);
    const AxisTaps<T>& rows = taps_[rank - 2];
    const AxisTaps<T>& cols = taps_[rank - 1];
    const int64_t bytes = planes * out_h * out_w * static_cast<int64_t>(sizeof(T));
    Spread(planes * out_h, bytes, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t p = r / out_h, y = r % out_h;
        const T* plane = src + p * in_h * in_w;
        const int64_t* ri = rows.index.data() + y * rows.count;
        const T* rw = rows.weight.data() + y * rows.count;
        T* out = dst + r * out_w;
        switch (rows.count) {
          case 1:
            ResizeRowC<T, 1>(plane, in_w, ri, rw, cols, out_w, out);
            break;
          case 2:
            ResizeRowC<T, 2>(plane, in_w, ri, rw, cols, out_w, out);
            break;
          default:
            ResizeRowC<T, 4>(plane, in_w, ri, rw, cols, out_w, out);
            break;
        }
      }
    });
  }

  void RunByAxis(const T* src, T* dst) const {
    std::vector<int64_t> dims = in_.dims();
    std::vector<T> scratch[2];
    const T* from = src;
    for (size_t step = 0; step < changing_.size(); ++step) {
      const int d = changing_[step];
      int64_t outer = 1, inner = 1;
      for (int k = 0; k < d; ++k) outer *= dims[k];
      for (int k = d + 1; k < static_cast<int>(dims.size()); ++k) inner *= dims[k];
      const int64_t n_in = dims[d], n_out = out_.dim(d);
      T* to = dst;
      if (step + 1 < changing_.size()) {
        scratch[step % 2].assign(outer * n_out * inner, T(0));
        to = scratch[step % 2].data();
      }
      const AxisTaps<T>& taps = taps_[d];
      const int64_t bytes = outer * n_out * inner * static_cast<int64_t>(sizeof(T));
      Spread(outer * n_out, bytes, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t o = r / n_out, y = r % n_out;
          T* line = to + r * inner;
          for (int64_t i = 0; i < inner; ++i) line[i] = T(0);
          for (int k = 0; k < taps.count; ++k) {
            const T w = taps.weight[y * taps.count + k];
            const T* in_line =
                from + (o * n_in + taps.index[y * taps.count + k]) * inner;
            for (int64_t i = 0; i < inner; ++i) line[i] += w * in_line[i];
          }
        }
      });
      dims[d] = n_out;
      from = to;
    }
  }

  Shape in_, out_;
  std::shared_ptr<const CpuContext> context_;
  std::vector<AxisTaps<T>> taps_;
  std::vector<int> changing_;  // the axes that are not identity, in order
  bool last_two_ = false;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeResize(const Node& node,
                                                   const Graph& graph,
                                                   CpuDevice& device) {
  absl::StatusOr<ResizeAttrs> attrs = ResizeAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<ResizeKernel<T>>(
      *attrs, *graph.value(node.inputs[0]).shape,
      *graph.value(node.outputs[0]).shape, device);
}

SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), "resize", MakeResize, float, double);

}  // namespace
}  // namespace cpu
}  // namespace switchyard
