// quantize_linear and dequantize_linear on the oneDNN device: a host pass
// over the value in the layout its producer left it (an int8 conv's nhwc, a
// binary op's blocked one), writing the same layout in the other dtype, so
// that a QDQ model's activations go from one int8 convolution through its
// float residual add to the next without leaving the partition. The
// formulas are the ones every backend shares (ops/linear_quantization.h):
// the results equal cpu:0's bit for bit, which a reorder with scales would
// not promise (it multiplies by 1 / scale). A value whose layout pads its
// dims is made plain first. qlinear_add (the two operands read in one
// layout) and dynamic_quantize_linear (its range, then the quantization)
// are host passes of the same kind.

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "backends/dnnl/dnnl_support.h"
#include "core/status_macros.h"
#include "ops/linear_quantization.h"

namespace switchyard {
namespace onednn {

using dnnl::memory;

namespace {

size_t BytesOf(memory::data_type t) {
  switch (t) {
    case memory::data_type::u8:
    case memory::data_type::s8: return 1;
    default: return 4;
  }
}

// The layout holds exactly the dims' elements (no block padding).
bool Dense(const memory::desc& md) {
  return md.get_size() ==
         static_cast<size_t>(Product(md.dims())) * BytesOf(md.data_type());
}

// The element loops are compiled twice: for x86-64-v4 (AVX-512: 16 lanes
// and one-instruction saturating narrowing; ResNet-50's largest residual
// qlinear_add took 3.1 ms on one thread for x86-64-v3 and 1.2 ms for v4)
// and for the build's target, one chosen when the plugin loads by the
// CPU's features (target_clones). The formulas of ops/linear_quantization.h
// are inlined into each clone: both compute the same values. They hold no
// OpenMP region (its outlined body would not be cloned): the threads call
// them on their slices.
#define SWITCHYARD_AVX512_CLONES __attribute__((target_clones("arch=x86-64-v4", "default")))

SWITCHYARD_AVX512_CLONES
void QLinearAddSlice(const void* a, const void* b, void* y, int64_t begin, int64_t end,
                     const QLinearAddParams& p, bool a_unsigned, bool y_unsigned) {
  if (a_unsigned && y_unsigned) {
    QLinearAddRange(static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
                    static_cast<uint8_t*>(y), begin, end, p);
  } else if (a_unsigned) {
    QLinearAddRange(static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
                    static_cast<int8_t*>(y), begin, end, p);
  } else if (y_unsigned) {
    QLinearAddRange(static_cast<const int8_t*>(a), static_cast<const int8_t*>(b),
                    static_cast<uint8_t*>(y), begin, end, p);
  } else {
    QLinearAddRange(static_cast<const int8_t*>(a), static_cast<const int8_t*>(b),
                    static_cast<int8_t*>(y), begin, end, p);
  }
}

// The least and greatest of x[begin, end) into lo and hi (NaN left out:
// std::min(lo, NaN) keeps lo).
SWITCHYARD_AVX512_CLONES
void RangeOfSlice(const float* x, int64_t begin, int64_t end, float& lo, float& hi) {
  float l = lo;
  float h = hi;
#pragma omp simd reduction(min : l) reduction(max : h)
  for (int64_t i = begin; i < end; ++i) {
    l = std::min(l, x[i]);
    h = std::max(h, x[i]);
  }
  lo = l;
  hi = h;
}

template <typename Q>
inline void QuantizeLoop(const float* x, Q* q, int64_t begin, int64_t end, float scale,
                         int32_t zp) {
#pragma omp simd
  for (int64_t i = begin; i < end; ++i) q[i] = QuantizeElement<Q>(x[i], scale, zp);
}

template <typename Q>
inline void DequantizeLoop(const Q* q, float* x, int64_t begin, int64_t end, float scale,
                           int32_t zp) {
#pragma omp simd
  for (int64_t i = begin; i < end; ++i) x[i] = DequantizeElement<Q>(q[i], scale, zp);
}

// quantize_linear (float `in` to 8-bit `out`) or dequantize_linear (8-bit
// to float) of elements [begin, end), uint8 or int8.
SWITCHYARD_AVX512_CLONES
void LinearQuantizationSlice(const void* in, void* out, int64_t begin, int64_t end, float scale,
                             int32_t zp, bool quantize, bool is_unsigned) {
  if (quantize && is_unsigned) {
    QuantizeLoop(static_cast<const float*>(in), static_cast<uint8_t*>(out), begin, end, scale, zp);
  } else if (quantize) {
    QuantizeLoop(static_cast<const float*>(in), static_cast<int8_t*>(out), begin, end, scale, zp);
  } else if (is_unsigned) {
    DequantizeLoop(static_cast<const uint8_t*>(in), static_cast<float*>(out), begin, end, scale,
                   zp);
  } else {
    DequantizeLoop(static_cast<const int8_t*>(in), static_cast<float*>(out), begin, end, scale,
                   zp);
  }
}

// dynamic_quantize_linear of x[0, n) into q, and its parameters, in one
// parallel region: each thread finds the range of its own slice, the
// threads agree on the parameters, and each quantizes the slice it just
// read (still in its cache). One wake-up of the threads instead of two.
void DynamicallyQuantize(const float* x, uint8_t* q, int64_t n, int threads,
                         DynamicQuantization& params) {
  const int team = std::max(1, threads);
  std::vector<float> lowest(team, std::numeric_limits<float>::infinity());
  std::vector<float> highest(team, -std::numeric_limits<float>::infinity());
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num();
    const int size = omp_get_num_threads();
    const int64_t begin = n * t / size;
    const int64_t end = n * (t + 1) / size;
    float lo = std::numeric_limits<float>::infinity();
    float hi = -lo;
    RangeOfSlice(x, begin, end, lo, hi);
    lowest[t] = lo;
    highest[t] = hi;
#pragma omp barrier
    const DynamicQuantization p =
        DynamicQuantizationOf(*std::min_element(lowest.begin(), lowest.begin() + size),
                              *std::max_element(highest.begin(), highest.begin() + size));
    if (t == 0) params = p;
    LinearQuantizationSlice(x, q, begin, end, p.scale, p.zero_point, /*quantize=*/true,
                            /*is_unsigned=*/true);
  }
}

// Runs of this many elements per OpenMP task.
constexpr int64_t kRun = int64_t{1} << 14;

}  // namespace

absl::Status CheckLinearQuantization(const Node& node, const Graph& graph,
                                     const NodeShapes& /*shapes*/) {
  return CheckConstants(node, graph, 1);
}

absl::Status LowerLinearQuantization(PartitionBuilder& b, const FusionGroup& /*g*/,
                                     const Node& node, ValueId out) {
  SY_ASSIGN_OR_RETURN(MemRef src, b.Natural(node.inputs[0]));
  if (!Dense(src.md)) {
    SY_ASSIGN_OR_RETURN(src, b.PlainOf(node.inputs[0]));
  }
  SY_ASSIGN_OR_RETURN(std::vector<float> scale, b.ConstantValues(node.inputs[1]));
  SY_ASSIGN_OR_RETURN(std::vector<float> zero_point, b.ConstantValues(node.inputs[2]));
  const float s = scale[0];
  const int32_t zp = static_cast<int32_t>(zero_point[0]);
  const DType to = b.graph().value(node.outputs[0]).dtype;
  memory::desc dst_md = src.md;  // the same layout in the other dtype
  dst_md.data.data_type = memory::convert_to_c(DnnlType(to));
  const MemRef dst = b.NewBuffer(dst_md);
  const int64_t n = Product(src.md.dims());
  const int threads = b.threads();
  const bool quantize = node.op == "quantize_linear";
  const DType eight_bit = quantize ? to : b.graph().value(node.inputs[0]).dtype;
  b.AddHostStep(
      [=](const std::unordered_map<int, memory>& bound) {
        const void* in = bound.at(DNNL_ARG_SRC).get_data_handle();
        void* result = bound.at(DNNL_ARG_DST).get_data_handle();
        const int64_t runs = (n + kRun - 1) / kRun;
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static)
        for (int64_t r = 0; r < runs; ++r) {
          LinearQuantizationSlice(in, result, r * kRun, std::min(n, (r + 1) * kRun), s, zp,
                                  quantize, eight_bit == DType::kUInt8);
        }
      },
      {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, absl::StrCat(node.name, ": host ", node.op));
  b.Define(out, dst);
  return absl::OkStatus();
}

absl::Status LowerDynamicQuantizeLinear(PartitionBuilder& b, const FusionGroup& /*g*/,
                                        const Node& node, ValueId /*out*/) {
  SY_ASSIGN_OR_RETURN(MemRef x, b.Natural(node.inputs[0]));
  if (!Dense(x.md)) {
    SY_ASSIGN_OR_RETURN(x, b.PlainOf(node.inputs[0]));
  }
  memory::desc y_md = x.md;  // the same layout in uint8
  y_md.data.data_type = dnnl_u8;
  const MemRef y = b.NewBuffer(y_md);
  const MemRef scale = b.NewBuffer(Plain({1}));
  const MemRef zero_point = b.NewBuffer(Plain({1}, memory::data_type::u8));
  const int64_t n = Product(x.md.dims());
  const int threads = b.threads();
  b.AddHostStep(
      [n, threads](const std::unordered_map<int, memory>& bound) {
        const float* in = static_cast<const float*>(bound.at(DNNL_ARG_SRC).get_data_handle());
        uint8_t* q = static_cast<uint8_t*>(bound.at(DNNL_ARG_DST).get_data_handle());
        DynamicQuantization params;
        DynamicallyQuantize(in, q, n, threads, params);
        *static_cast<float*>(bound.at(DNNL_ARG_DST_1).get_data_handle()) = params.scale;
        *static_cast<uint8_t*>(bound.at(DNNL_ARG_DST_2).get_data_handle()) =
            static_cast<uint8_t>(params.zero_point);
      },
      {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}, {DNNL_ARG_DST_1, scale},
       {DNNL_ARG_DST_2, zero_point}},
      absl::StrCat(node.name, ": host dynamic_quantize_linear"));
  b.Define(node.outputs[0], y);
  b.Define(node.outputs[1], scale);
  b.Define(node.outputs[2], zero_point);
  return absl::OkStatus();
}

absl::Status CheckQLinearAdd(const Node& node, const Graph& graph, const NodeShapes& /*shapes*/) {
  return CheckConstants(node, graph, 2);
}

absl::Status LowerQLinearAdd(PartitionBuilder& b, const FusionGroup& /*g*/, const Node& node,
                             ValueId out) {
  SY_ASSIGN_OR_RETURN(MemRef a, b.Natural(node.inputs[0]));
  if (!Dense(a.md)) {
    SY_ASSIGN_OR_RETURN(a, b.PlainOf(node.inputs[0]));
  }
  // b in a's layout: the two are read element for element.
  SY_ASSIGN_OR_RETURN(const MemRef other, b.As(node.inputs[1], a.md));
  std::vector<float> v[6];
  for (int i = 0; i < 6; ++i) {
    SY_ASSIGN_OR_RETURN(v[i], b.ConstantValues(node.inputs[2 + i]));
  }
  QLinearAddParams p;
  p.a_scale = v[0][0];
  p.a_zero_point = static_cast<int32_t>(v[1][0]);
  p.b_scale = v[2][0];
  p.b_zero_point = static_cast<int32_t>(v[3][0]);
  p.y_scale = v[4][0];
  p.y_zero_point = static_cast<int32_t>(v[5][0]);
  const DType to = b.graph().value(node.outputs[0]).dtype;
  memory::desc dst_md = a.md;
  dst_md.data.data_type = memory::convert_to_c(DnnlType(to));
  // Into a's own buffer when nothing reads a later: each element is read
  // before it is written, and no new buffer's lines are fetched to be
  // overwritten.
  const MemRef dst = InPlaceOr(b, node, node.inputs[0], a, dst_md);
  const int64_t n = Product(a.md.dims());
  const int threads = b.threads();
  const bool a_unsigned = b.graph().value(node.inputs[0]).dtype == DType::kUInt8;
  const bool y_unsigned = to == DType::kUInt8;
  b.AddHostStep(
      [=](const std::unordered_map<int, memory>& bound) {
        const void* x0 = bound.at(DNNL_ARG_SRC_0).get_data_handle();
        const void* x1 = bound.at(DNNL_ARG_SRC_1).get_data_handle();
        void* y = bound.at(DNNL_ARG_DST).get_data_handle();
        const int64_t runs = (n + kRun - 1) / kRun;
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static)
        for (int64_t r = 0; r < runs; ++r) {
          QLinearAddSlice(x0, x1, y, r * kRun, std::min(n, (r + 1) * kRun), p, a_unsigned,
                          y_unsigned);
        }
      },
      {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, other}, {DNNL_ARG_DST, dst}},
      absl::StrCat(node.name, ": host qlinear_add"));
  b.Define(out, dst);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
