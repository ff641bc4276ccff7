#include "backends/dnnl/dnnl_conv_algorithm.h"

#include "absl/strings/str_cat.h"

namespace switchyard {
namespace onednn {

namespace {
// Below this many channels in or out, auto stays direct (see the header).
constexpr int64_t kWinogradMinChannels = 64;
}  // namespace

const char* DnnlConvAlgorithmName(DnnlConvAlgorithm algorithm) {
  switch (algorithm) {
    case DnnlConvAlgorithm::kAuto: return "auto";
    case DnnlConvAlgorithm::kDirect: return "direct";
    case DnnlConvAlgorithm::kWinograd: return "winograd";
  }
  return "auto";
}

absl::StatusOr<DnnlConvAlgorithm> ParseDnnlConvAlgorithm(absl::string_view name) {
  for (DnnlConvAlgorithm a : {DnnlConvAlgorithm::kAuto, DnnlConvAlgorithm::kDirect,
                              DnnlConvAlgorithm::kWinograd}) {
    if (name == DnnlConvAlgorithmName(a)) return a;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "dnnl option 'conv_algorithm' wants auto, direct or winograd, got '", name,
      "'"));
}

bool WinogradShape(int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                   int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                   int64_t groups) {
  return kernel_h == 3 && kernel_w == 3 && stride_h == 1 && stride_w == 1 &&
         dilation_h == 1 && dilation_w == 1 && groups == 1;
}

bool WantsWinograd(DnnlConvAlgorithm requested, bool winograd_shape,
                   int64_t in_channels, int64_t out_channels) {
  if (!winograd_shape || requested == DnnlConvAlgorithm::kDirect) return false;
  if (requested == DnnlConvAlgorithm::kWinograd) return true;
  return in_channels >= kWinogradMinChannels && out_channels >= kWinogradMinChannels;
}

}  // namespace onednn
}  // namespace switchyard
