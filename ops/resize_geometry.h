#ifndef SWITCHYARD_OPS_RESIZE_GEOMETRY_H_
#define SWITCHYARD_OPS_RESIZE_GEOMETRY_H_

// Which input elements an output element of resize reads along one axis,
// and with what weights ("taps"), shared by the cpu kernel and the CUDA
// device code (backends/cuda/kernels/resize.cu) so both read the same
// elements. Resize is separable: an output element is the sum, over every
// combination of one tap per axis, of the product of the taps' weights
// times the input element they name. The reference backend keeps formulas
// of its own (it is the oracle). Inline SY_HOST_DEVICE and free of absl,
// std::vector and Status: nvcc compiles this header.
//
//   ResizeAxis a;  // in 4, out 8, scale 2, linear, half_pixel
//   int64_t index[kMaxResizeTaps]; double weight[kMaxResizeTaps];
//   int n = ResizeTaps(a, 3, index, weight);
//   // x = (3 + 0.5) / 2 - 0.5 = 1.25: n == 2, {1, 0.75}, {2, 0.25}

#include <cstdint>

#include "ops/host_device.h"

namespace switchyard {

// ONNX Resize's modes (ops/resize_attrs.h spells them).
enum class ResizeMode { kNearest, kLinear, kCubic };
enum class ResizeCoordinateMode {
  kHalfPixel,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kHalfPixelSymmetric,
};
enum class ResizeNearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

// Cubic reads 4 elements per axis, linear 2, nearest (and identity) 1.
inline constexpr int kMaxResizeTaps = 4;

// One axis of a resize, as ResizeAttrs::Axis fills it.
struct ResizeAxis {
  int64_t in = 1;      // input length (>= 1)
  int64_t out = 1;     // output length (>= 1)
  double scale = 1.0;  // ONNX's scale: given, or out / in
  // Size kept and scale 1: output index o copies input index o.
  bool identity = true;
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoordinateMode coordinate = ResizeCoordinateMode::kHalfPixel;
  ResizeNearestMode nearest = ResizeNearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
};

SY_HOST_DEVICE inline double ResizeFloor(double x) {
  const double t = static_cast<double>(static_cast<int64_t>(x));
  return t > x ? t - 1.0 : t;
}

SY_HOST_DEVICE inline int64_t ResizeClampIndex(int64_t i, int64_t n) {
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

// ONNX's x_original for output index x. length_resized is in * scale (a
// fraction when scales were given: ONNX's reference implementation and
// node tests use it so), not the integer output length.
SY_HOST_DEVICE inline double ResizeSourceCoordinate(const ResizeAxis& a,
                                                    int64_t x) {
  const double xr = static_cast<double>(x);
  const double resized = a.scale * static_cast<double>(a.in);
  switch (a.coordinate) {
    case ResizeCoordinateMode::kPytorchHalfPixel:
      return a.out > 1 ? (xr + 0.5) / a.scale - 0.5 : 0.0;
    case ResizeCoordinateMode::kAlignCorners:
      return resized > 1.0 ? xr * static_cast<double>(a.in - 1) / (resized - 1.0)
                           : 0.0;
    case ResizeCoordinateMode::kAsymmetric:
      return xr / a.scale;
    case ResizeCoordinateMode::kTfHalfPixelForNn:
      return (xr + 0.5) / a.scale;
    case ResizeCoordinateMode::kHalfPixelSymmetric: {
      // The output's centre sits on the input's even when out is rounded.
      const double adjustment = static_cast<double>(a.out) / resized;
      const double offset = 0.5 * static_cast<double>(a.in) * (1.0 - adjustment);
      return offset + (xr + 0.5) / a.scale - 0.5;
    }
    case ResizeCoordinateMode::kHalfPixel:
    default:
      return (xr + 0.5) / a.scale - 0.5;
  }
}

// Keys' cubic convolution kernel with parameter a, at distance d >= 0.
SY_HOST_DEVICE inline double ResizeCubicWeight(double d, double a) {
  if (d <= 1.0) return ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0;
  if (d < 2.0) return ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a;
  return 0.0;
}

// Fills index[0..n) (in [0, in)) and weight[0..n) for output index `o` of
// axis `a` and returns n. Indices past the ends read the end element
// (ONNX's edge padding), except that with exclude_outside cubic gives them
// weight 0 and renormalizes the rest.
SY_HOST_DEVICE inline int ResizeTaps(const ResizeAxis& a, int64_t o,
                                     int64_t* index, double* weight) {
  if (a.identity) {
    index[0] = o;
    weight[0] = 1.0;
    return 1;
  }
  double x = ResizeSourceCoordinate(a, o);
  // Far outside the input every tap reads an end element; bounding x keeps
  // the conversions to int64 defined whatever the scale.
  const double high = static_cast<double>(a.in) + 2.0;
  x = x < -3.0 ? -3.0 : (x > high ? high : x);
  const double f = ResizeFloor(x);
  const int64_t i = static_cast<int64_t>(f);
  const double t = x - f;  // in [0, 1)
  if (a.mode == ResizeMode::kNearest) {
    bool up = false;
    switch (a.nearest) {
      case ResizeNearestMode::kRoundPreferFloor: up = t > 0.5; break;
      case ResizeNearestMode::kRoundPreferCeil: up = t >= 0.5; break;
      case ResizeNearestMode::kFloor: up = false; break;
      case ResizeNearestMode::kCeil: up = t > 0.0; break;
    }
    index[0] = ResizeClampIndex(up ? i + 1 : i, a.in);
    weight[0] = 1.0;
    return 1;
  }
  if (a.mode == ResizeMode::kLinear) {
    index[0] = ResizeClampIndex(i, a.in);
    index[1] = ResizeClampIndex(i + 1, a.in);
    weight[0] = 1.0 - t;
    weight[1] = t;
    return 2;
  }
  double sum = 0.0;
  for (int k = 0; k < 4; ++k) {
    const int64_t j = i - 1 + k;
    const double d = t - static_cast<double>(k - 1);  // distance from x to j
    double w = ResizeCubicWeight(d < 0.0 ? -d : d, a.cubic_a);
    if (a.exclude_outside && (j < 0 || j >= a.in)) w = 0.0;
    index[k] = ResizeClampIndex(j, a.in);
    weight[k] = w;
    sum += w;
  }
  if (a.exclude_outside && sum != 0.0) {
    for (int k = 0; k < 4; ++k) weight[k] /= sum;
  }
  return 4;
}

// How many taps ResizeTaps gives on axis `a`.
SY_HOST_DEVICE inline int ResizeTapCount(const ResizeAxis& a) {
  if (a.identity || a.mode == ResizeMode::kNearest) return 1;
  return a.mode == ResizeMode::kLinear ? 2 : 4;
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_RESIZE_GEOMETRY_H_
