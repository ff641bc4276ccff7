#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_CONV2D_ALGORITHM_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_CONV2D_ALGORITHM_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/graph.h"
#include "ops/conv_attrs.h"

namespace switchyard {
namespace cpu {

// How the cpu runs a float32 conv2d. Chosen per node when its kernel is
// created (compile time), from the shapes, unless the backend option
// cpu.conv_algorithm forces one:
//   kDirect: im2col per cache-sized column tile + GEMM (any conv2d).
//   kWinograd2 / kWinograd4: Winograd F(2x2,3x3) / F(4x4,3x3), for 3x3
//     stride-1 dilation-1 convolutions with groups == 1 (winograd.h).
enum class ConvAlgorithm { kAuto, kDirect, kWinograd2, kWinograd4 };

// "auto", "direct", "winograd2", "winograd4".
const char* ConvAlgorithmName(ConvAlgorithm algorithm);
// InvalidArgument naming the accepted values otherwise.
absl::StatusOr<ConvAlgorithm> ParseConvAlgorithm(absl::string_view name);

// A conv2d node's sizes, NCHW.
struct Conv2dGeometry {
  Conv2dAttrs attrs;
  int64_t n, c, h, w;      // input
  int64_t o, kh, kw;       // weight (per group: c / groups input channels)
  int64_t ho, wo;          // output
  int64_t groups, cg, og;  // channels per group in and out
  int64_t k, p;            // im2col GEMM inner size, columns per image

  // From a shape-inferred conv2d node.
  static absl::StatusOr<Conv2dGeometry> FromNode(const Node& node,
                                                 const Graph& graph);
};

// Whether Winograd F(m x m, 3x3) computes this convolution: 3x3, stride 1,
// dilation 1, groups 1 (any padding, any batch and size).
bool WinogradApplies(const Conv2dGeometry& geo);

// The algorithm a conv2d runs with `requested` (the backend option): a
// forced Winograd on a convolution it does not apply to runs direct. The
// auto rule, from measurements on a 2-core AMD EPYC (AVX2 code, 1 MB L2;
// benchmarks/conv_layers_benchmark.cc, VGG11's layers at batch 1):
//   - direct when Winograd does not apply, or with fewer than 8 input
//     channels (VGG's 3-channel first layer: 1.7x slower as winograd4 at
//     batch 8, even at batch 1: the transforms work on padding);
//   - else winograd4 (F(4x4,3x3): 4x fewer multiplications than direct,
//     2.25x fewer than winograd2) when the run has at least 16 tiles of
//     4x4 outputs (batch x ceil(H/4) x ceil(W/4)): it was the fastest on
//     every other VGG11 layer (2-3x direct, 1.2-1.6x winograd2);
//   - else winograd2: with fewer tiles (batch 1 at 12x12 and less)
//     winograd4 reads its 36 transformed weight matrices for too few tiles
//     (memory-bound) and wastes much of its border tiles.
ConvAlgorithm ChooseConvAlgorithm(const Conv2dGeometry& geo,
                                  ConvAlgorithm requested);

// Why `requested` (a Winograd) fell back to direct for this conv: "stride
// 2", "5x5 kernel", ...; empty when it applies.
std::string WhyNotWinograd(const Conv2dGeometry& geo);

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_CONV2D_ALGORITHM_H_
