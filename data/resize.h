#ifndef SWITCHYARD_DATA_RESIZE_H_
#define SWITCHYARD_DATA_RESIZE_H_

#include "data/image.h"

namespace switchyard {
namespace data {

// Bilinear resize to `width` x `height`, exactly as torchvision's
// transforms.Resize on a uint8 tensor with antialias off (PyTorch's
// interpolate(mode="bilinear", align_corners=False) in float32, then
// rounded half to even): source coordinate (x + 0.5) * in / out - 0.5,
// clamped at 0, the last row and column repeated. Measured against
// torchvision 0.14 on tests/images: within 1 of 255 per channel
// (tests/images/reference, data/transforms_test.cc). Not PIL's resize,
// which antialiases when shrinking (up to 0.4 apart after normalization on a
// 500x375 photo shrunk to 256; tools/make_test_images.py prints it).
//
//   Image small = ResizeBilinear(img, 224, 224);
Image ResizeBilinear(const Image& image, int width, int height);

// The size torchvision's Resize(size) gives an image: the shorter side
// becomes `size`, the longer one int(size * long / short) (truncated).
void ShorterSideSize(int width, int height, int size, int* out_width, int* out_height);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_RESIZE_H_
