#include "backends/cpu/kernels/conv2d_algorithm.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {
namespace cpu {

const char* ConvAlgorithmName(ConvAlgorithm algorithm) {
  switch (algorithm) {
    case ConvAlgorithm::kAuto:
      return "auto";
    case ConvAlgorithm::kDirect:
      return "direct";
    case ConvAlgorithm::kWinograd2:
      return "winograd2";
    case ConvAlgorithm::kWinograd4:
      return "winograd4";
  }
  return "auto";
}

absl::StatusOr<ConvAlgorithm> ParseConvAlgorithm(absl::string_view name) {
  for (ConvAlgorithm a : {ConvAlgorithm::kAuto, ConvAlgorithm::kDirect,
                          ConvAlgorithm::kWinograd2, ConvAlgorithm::kWinograd4}) {
    if (name == ConvAlgorithmName(a)) return a;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "cpu option 'conv_algorithm' wants auto, direct, winograd2 or "
      "winograd4, got '", name, "'"));
}

absl::StatusOr<Conv2dGeometry> Conv2dGeometry::FromNode(const Node& node,
                                                        const Graph& graph) {
  absl::StatusOr<Conv2dAttrs> attrs = Conv2dAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  const Value& in_value = graph.value(node.inputs[0]);
  const Value& wt_value = graph.value(node.inputs[1]);
  const Value& out_value = graph.value(node.outputs[0]);
  if (!in_value.shape || !wt_value.shape || !out_value.shape ||
      in_value.shape->rank() != 4 || wt_value.shape->rank() != 4 ||
      out_value.shape->rank() != 4) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cpu conv2d '", node.name,
        "' needs shape-inferred 4-d input, weight and output; run shape "
        "inference before creating its kernel"));
  }
  const Shape& in = *in_value.shape;
  const Shape& wt = *wt_value.shape;
  const Shape& out = *out_value.shape;
  Conv2dGeometry geo;
  geo.attrs = *attrs;
  geo.n = in.dim(0);
  geo.c = in.dim(1);
  geo.h = in.dim(2);
  geo.w = in.dim(3);
  geo.o = wt.dim(0);
  geo.kh = wt.dim(2);
  geo.kw = wt.dim(3);
  geo.ho = out.dim(2);
  geo.wo = out.dim(3);
  geo.groups = attrs->groups;
  geo.cg = geo.c / geo.groups;
  geo.og = geo.o / geo.groups;
  geo.k = geo.cg * geo.kh * geo.kw;
  geo.p = geo.ho * geo.wo;
  return geo;
}

std::string WhyNotWinograd(const Conv2dGeometry& geo) {
  std::vector<std::string> reasons;
  if (geo.kh != 3 || geo.kw != 3) {
    reasons.push_back(absl::StrCat(geo.kh, "x", geo.kw, " kernel"));
  }
  if (geo.attrs.stride_h != 1 || geo.attrs.stride_w != 1) {
    reasons.push_back(absl::StrCat("stride ", geo.attrs.stride_h, "x",
                                   geo.attrs.stride_w));
  }
  if (geo.attrs.dilation_h != 1 || geo.attrs.dilation_w != 1) {
    reasons.push_back(absl::StrCat("dilation ", geo.attrs.dilation_h, "x",
                                   geo.attrs.dilation_w));
  }
  if (geo.groups != 1) reasons.push_back(absl::StrCat(geo.groups, " groups"));
  if (geo.ho <= 0 || geo.wo <= 0 || geo.n <= 0) reasons.push_back("empty output");
  return absl::StrJoin(reasons, ", ");
}

bool WinogradApplies(const Conv2dGeometry& geo) {
  return WhyNotWinograd(geo).empty();
}

// Below this many 4x4 output tiles per run (batch 1 at 12x12 and less:
// ResNet's 7x7 stage has 4), F(4x4,3x3) reads its 36 transformed weight
// matrices for too few tiles (memory-bound) and wastes much of its border
// tiles; F(2x2,3x3) reads 16. At VGG11's 14x14 (16 tiles) winograd4 was
// still the faster (4.3-4.4 ms against 5.0-5.3 ms, 512 channels, batch 1).
constexpr int64_t kMinWinograd4Tiles = 16;

// Below this many input channels the transforms work on padding (8
// channels per vector) and the GEMMs are too thin: VGG11's 3-channel first
// layer was 1.7x slower as winograd4 than direct at batch 8 (even at
// batch 1).
constexpr int64_t kMinWinogradChannels = 8;

ConvAlgorithm ChooseConvAlgorithm(const Conv2dGeometry& geo,
                                  ConvAlgorithm requested) {
  if (!WinogradApplies(geo)) return ConvAlgorithm::kDirect;
  if (requested != ConvAlgorithm::kAuto) return requested;
  if (geo.c < kMinWinogradChannels) return ConvAlgorithm::kDirect;
  const int64_t tiles4 = geo.n * ((geo.ho + 3) / 4) * ((geo.wo + 3) / 4);
  return tiles4 >= kMinWinograd4Tiles ? ConvAlgorithm::kWinograd4
                                      : ConvAlgorithm::kWinograd2;
}

}  // namespace cpu
}  // namespace switchyard
