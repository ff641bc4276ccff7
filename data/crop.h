#ifndef SWITCHYARD_DATA_CROP_H_
#define SWITCHYARD_DATA_CROP_H_

#include "data/image.h"
#include "data/sample_random.h"

namespace switchyard {
namespace data {

// A rectangle of an image: rows [top, top + height), columns
// [left, left + width).
struct CropBox {
  int top = 0, left = 0, height = 0, width = 0;
};

// The pixels of `box`; parts outside the image are black (zero), which is
// what torchvision's CenterCrop pads a too-small image with.
Image Crop(const Image& image, const CropBox& box);

// torchvision's CenterCrop(size): top = round((H - size) / 2), rounded half
// to even like Python's round, on the image padded with zeros when it is
// smaller than the crop.
CropBox CenterCropBox(int width, int height, int size);

// The parameters of torchvision's RandomResizedCrop (its get_params, with
// `random` instead of torch's generator): up to 10 tries of an area share in
// [scale_min, scale_max] and a log-uniform aspect ratio in
// [ratio_min, ratio_max], then the centered fallback.
CropBox RandomResizedCropBox(int width, int height, SampleRandom& random,
                             double scale_min = 0.08, double scale_max = 1.0,
                             double ratio_min = 3.0 / 4, double ratio_max = 4.0 / 3);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_CROP_H_
