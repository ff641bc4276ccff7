#ifndef SWITCHYARD_DATA_IMAGE_H_
#define SWITCHYARD_DATA_IMAGE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace switchyard {
namespace data {

// An 8-bit RGB image, rows top to bottom, pixels interleaved (HWC): what
// every decoder returns, whatever the file held (grayscale, CMYK, palette,
// alpha, 16 bits), and what resize, crop and flip work on.
//
//   Image img(640, 480);
//   img.at(y, x)[0] = 255;  // red of the pixel in row y, column x
struct Image {
  Image() = default;
  Image(int w, int h) : width(w), height(h), pixels(static_cast<size_t>(w) * h * 3) {}

  uint8_t* at(int y, int x) { return &pixels[(static_cast<size_t>(y) * width + x) * 3]; }
  const uint8_t* at(int y, int x) const {
    return &pixels[(static_cast<size_t>(y) * width + x) * 3];
  }
  bool empty() const { return width == 0 || height == 0; }

  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // width * height * 3
};

// What a decoder accepts before it allocates: a header's dimensions are
// checked against these, so a 100000 x 100000 header costs nothing.
struct DecodeLimits {
  int max_dimension = 16384;           // width and height each
  int64_t max_pixels = int64_t{50} << 20;  // width * height: 150 MiB as RGB8
};

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_IMAGE_H_
