// mul(x, s) -> conv2d 1x1 (FusionGroup::scaled_input) as the conv of x
// with scaled weights, conv(x * s) = (W diag(s)) x, where s is one factor
// per channel for the whole batch ([1, C, 1, 1]: every squeeze-and-
// excitation block at batch 1).
//
// The block scales its whole feature map (C*H*W floats per image) only for
// the 1x1 projection after it to read it; the projection's weights (Cout*C
// floats) are smaller wherever Cout < N*H*W, so scaling them skips a read
// and a write of x. Measured in efficientnet_b0 at batch 1 (2 threads, AMD
// EPYC): the 16 scalings of x took 0.71 ms of a 5.6 ms forward, most of it
// moving x between the two cores' caches. With a factor per image (batch >
// 1) the conv would have to run image by image, and that measured slower
// than scaling x (a 32->16 conv at 112x112, batch 8: 1.14 ms per image
// against 0.53 + 0.13 ms), so there the mul and the conv are lowered one by
// one, as they are where the weights are no smaller than x.
//
// The weights are scaled where they lie in the conv's own layout, one pass
// over them; scaling plain weights and reordering them took two (the 11
// projections of efficientnet_b0 at batch 1: 1.34 -> 0.97 ms a forward,
// per-step host timing, AMD EPYC, 2 threads).

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/dnnl/dnnl_lowering.h"
#include "core/status_macros.h"

namespace switchyard {
namespace onednn {
namespace {

using dnnl::memory;

// Where each input channel's weights sit in the conv's weights layout: runs
// of consecutive elements of one channel (oneDNN's 1x1 layouts keep a block
// of output channels innermost, so a run is that block). Padding elements
// (channel -1) stay zero.
struct ChannelRun {
  int64_t channel;
  int64_t length;
};

// Made once: a tensor holding c + 1 at every [o, c] is reordered into the
// conv's layout (exact in float for fewer than 2^24 channels) and read back.
std::vector<ChannelRun> ChannelRuns(const dnnl::engine& engine, const memory::desc& plain,
                                    const memory::desc& layout, int64_t out_channels,
                                    int64_t channels) {
  memory index(plain, engine);
  float* p = static_cast<float*>(index.get_data_handle());
  for (int64_t o = 0; o < out_channels; ++o) {
    for (int64_t c = 0; c < channels; ++c) p[o * channels + c] = static_cast<float>(c + 1);
  }
  memory placed(layout, engine);
  dnnl::stream stream(engine);
  dnnl::reorder(index, placed).execute(stream, index, placed);
  stream.wait();
  const float* q = static_cast<const float*>(placed.get_data_handle());
  const size_t n = layout.get_size() / sizeof(float);
  std::vector<ChannelRun> runs;
  for (size_t i = 0; i < n; ++i) {
    const int64_t channel = static_cast<int64_t>(q[i]) - 1;
    if (!runs.empty() && runs.back().channel == channel) {
      ++runs.back().length;
    } else {
      runs.push_back({channel, 1});
    }
  }
  return runs;
}

// What the host step keeps between runs: the conv, its weights in the
// conv's layout (as the graph has them, and scaled), and where each
// channel's weights are in that layout.
struct ScaledConv {
  dnnl::stream stream;
  dnnl::convolution_forward conv;
  memory weights;  // the graph's weights, in the conv's layout
  memory scaled;   // the same, times the factors of this run
  memory scratchpad;
  std::vector<ChannelRun> runs;
  // The conv's arguments, from the first run's bound memories: the kernel
  // binds the same memory objects every run (only their data handles move).
  std::unordered_map<int, memory> args;

  void Run(const std::unordered_map<int, memory>& bound) {
    const float* factors = static_cast<const float*>(bound.at(DNNL_ARG_SRC_1).get_data_handle());
    const float* from = static_cast<const float*>(weights.get_data_handle());
    float* to = static_cast<float*>(scaled.get_data_handle());
    for (const ChannelRun& r : runs) {
      if (r.channel >= 0) {
        const float f = factors[r.channel];
#pragma omp simd
        for (int64_t i = 0; i < r.length; ++i) to[i] = from[i] * f;
      }
      from += r.length;
      to += r.length;
    }
    if (args.empty()) {
      args = {{DNNL_ARG_SRC, bound.at(DNNL_ARG_SRC)},
              {DNNL_ARG_WEIGHTS, scaled},
              {DNNL_ARG_DST, bound.at(DNNL_ARG_DST)},
              {DNNL_ARG_SCRATCHPAD, scratchpad}};
      auto bias = bound.find(DNNL_ARG_BIAS);
      if (bias != bound.end()) args.emplace(DNNL_ARG_BIAS, bias->second);
    }
    conv.execute(stream, args);
    stream.wait();
  }
};

}  // namespace

absl::Status LowerScaledConv2d(PartitionBuilder& b, const FusionGroup& g, ValueId out) {
  const Graph& graph = b.graph();
  const Node& mul = b.GroupNode(g, 0);
  const Node& node = b.GroupNode(g, 1);
  FusionGroup conv_group = g;
  conv_group.first = g.first + 1;
  conv_group.count = g.count - 1;
  conv_group.scaled_input = false;
  const Shape& y = *graph.value(mul.outputs[0]).shape;
  const int xi = *graph.value(mul.inputs[0]).shape == y ? 0 : 1;
  const ValueId x = mul.inputs[xi];
  const ValueId s = mul.inputs[1 - xi];
  const Dims xd = ToDims(y);
  const Dims wd = ToDims(*graph.value(node.inputs[1]).shape);
  const Dims od = ToDims(*graph.value(node.outputs[0]).shape);
  const bool shared_factors = graph.value(s).shape->dim(0) == 1;
  // Channel indices travel through a float reorder (ChannelRuns): exact
  // below 2^24.
  constexpr int64_t kMaxChannels = int64_t{1} << 24;
  auto one_by_one = [&] {
    FusionGroup alone;
    alone.first = g.first;
    SY_RETURN_IF_ERROR(LowerBinary(b, alone, mul, mul.outputs[0]));
    return LowerConv2d(b, conv_group, node, out);
  };
  if (!shared_factors || wd[0] >= xd[0] * xd[2] * xd[3] || xd[1] >= kMaxChannels) {
    return one_by_one();
  }
  SY_ASSIGN_OR_RETURN(const MemRef a, b.Natural(x));
  auto any = [](const Dims& d) { return memory::desc(d, kF32, Tag::any); };
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, a.md, any(wd),
      BiasDesc(graph, node), any(od), {1, 1}, {0, 0}, {0, 0}, {0, 0});
  const dnnl::convolution_forward::primitive_desc pd(desc, PrimitiveAttr(conv_group),
                                                     b.engine());
  // x's own layout (plain, say) may leave oneDNN only its GEMM-based or
  // reference convolution, which cost more than the scaling saves
  // (MobileNetV3-Large's projections at batch 1: 1.1 ms of a 2.7 ms
  // forward); the conv alone, on a layout of its choice, is faster then.
  const std::string impl = pd.impl_info_str();
  if (absl::StrContains(impl, "gemm") || absl::StartsWith(impl, "ref")) return one_by_one();
  SY_ASSIGN_OR_RETURN(const MemRef factors, RowMajorFactors(b, s));
  SY_ASSIGN_OR_RETURN(std::vector<float> plain_weights, b.ConstantValues(node.inputs[1]));
  if (plain_weights.size() != static_cast<size_t>(wd[0] * xd[1])) {
    return absl::InternalError(absl::StrCat(DescribeNode(node), "'s weights hold ",
                                            plain_weights.size(), " values, not ",
                                            wd[0] * xd[1]));
  }
  const dnnl::engine& engine = b.engine();
  auto state = std::make_shared<ScaledConv>();
  state->stream = dnnl::stream(engine);
  state->conv = dnnl::convolution_forward(pd);
  memory plain(Plain(wd), engine, plain_weights.data());
  state->weights = memory(pd.weights_desc(), engine);
  dnnl::reorder(plain, state->weights).execute(state->stream, plain, state->weights);
  state->stream.wait();
  // A copy keeps the layout's zero padding, which runs never write.
  state->scaled = memory(pd.weights_desc(), engine);
  std::memcpy(state->scaled.get_data_handle(), state->weights.get_data_handle(),
              pd.weights_desc().get_size());
  state->runs = ChannelRuns(engine, Plain(wd), pd.weights_desc(), wd[0], xd[1]);
  state->scratchpad = memory(pd.scratchpad_desc(), engine);

  SY_ASSIGN_OR_RETURN(const MemRef d, ConvDestination(b, g, 2, node, a, pd.dst_desc()));
  std::vector<std::pair<int, MemRef>> args = {
      {DNNL_ARG_SRC, a}, {DNNL_ARG_SRC_1, factors}, {DNNL_ARG_DST, d}};
  if (node.inputs.size() > 2) {
    const memory::desc bias_md = BiasDesc(graph, node);
    SY_ASSIGN_OR_RETURN(MemRef bias, b.Owned(node.inputs[2], bias_md, bias_md));
    args.push_back({DNNL_ARG_BIAS, bias});
  }
  b.AddHostStep([state](const std::unordered_map<int, memory>& bound) { state->Run(bound); },
                std::move(args),
                absl::StrCat(node.name, ": ", pd.impl_info_str(), " on scaled weights"));
  b.Define(out, d);
  return absl::OkStatus();
}

}  // namespace onednn
}  // namespace switchyard
