#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_CHANNEL_SCALE_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_CHANNEL_SCALE_H_

// x * s with x channels-last [N, H, W, C] and s one factor per image and
// channel ([N, C, 1, 1] or [1, C, 1, 1]), as a host pass: the excitation of
// every squeeze-and-excitation block (EfficientNet, MobileNetV3, RegNet).
// oneDNN 2.6's binary primitive runs this broadcast on one thread at batch
// 1 (1x32x112x112 by 1x32x1x1: 0.19 ms, 2 threads, AMD EPYC); here the
// pixels are split among the threads.

#include <cstdint>

namespace switchyard {
namespace onednn {

struct ChannelScalePlan {
  int64_t batch = 1, pixels = 1, channels = 1;
  bool per_image = true;  // s is [N, C]; else [1, C] for every image
};

// out may be x (in place).
void ChannelScale(const ChannelScalePlan& plan, const float* x, const float* s,
                  float* out, int threads);

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_CHANNEL_SCALE_H_
