#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_CONV_ALGORITHM_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_CONV_ALGORITHM_H_

// Which oneDNN algorithm a dnnl conv2d uses (backend option
// dnnl.conv_algorithm), chosen per node when its partition is built:
//   kDirect: convolution_direct (brgemm kernels on AVX-512, channels-last).
//   kWinograd: convolution_winograd, F(4x4,3x3), for 3x3 stride-1
//     dilation-1 convolutions with groups 1, where oneDNN has it (AVX-512
//     only in oneDNN 2.6); direct otherwise.
//   kAuto: winograd where it applies with at least 64 input and 64 output
//     channels, else direct. Measured on a 2-core AMD EPYC (Zen 5,
//     avx512_core_bf16), median of 9: resnet50 batch 8 177 -> 154 ms;
//     Faster R-CNN 800x800 (256-channel 3x3 at 200x200) 751 -> 566 ms;
//     densenet121's 128 -> 32 channel 3x3 convolutions 2.5x slower at
//     batch 1 (its blocked layout needs reorders around each), hence the
//     channel floor.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace switchyard {
namespace onednn {

enum class DnnlConvAlgorithm { kAuto, kDirect, kWinograd };

// "auto", "direct", "winograd".
const char* DnnlConvAlgorithmName(DnnlConvAlgorithm algorithm);
// InvalidArgument naming the accepted values otherwise.
absl::StatusOr<DnnlConvAlgorithm> ParseDnnlConvAlgorithm(absl::string_view name);

// Whether Winograd F(4x4,3x3) computes a convolution of these sizes.
bool WinogradShape(int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                   int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                   int64_t groups);

// Whether a convolution of these sizes asks oneDNN for Winograd under
// `requested`.
bool WantsWinograd(DnnlConvAlgorithm requested, bool winograd_shape,
                   int64_t in_channels, int64_t out_channels);

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_CONV_ALGORITHM_H_
