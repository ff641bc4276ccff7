#ifndef SWITCHYARD_DATA_FLIP_H_
#define SWITCHYARD_DATA_FLIP_H_

#include "data/image.h"

namespace switchyard {
namespace data {

// Mirrors `image` left to right, in place (torchvision's hflip).
void FlipHorizontal(Image& image);

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_FLIP_H_
