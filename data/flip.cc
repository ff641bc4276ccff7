#include "data/flip.h"

#include <algorithm>

namespace switchyard {
namespace data {

void FlipHorizontal(Image& image) {
  for (int y = 0; y < image.height; ++y) {
    uint8_t* row = image.at(y, 0);
    for (int a = 0, b = image.width - 1; a < b; ++a, --b) {
      std::swap_ranges(row + a * 3, row + a * 3 + 3, row + b * 3);
    }
  }
}

}  // namespace data
}  // namespace switchyard
