// Resize, as ONNX Resize defines it, written out here again (independently
// of ops/resize_geometry.h, so the oracle does not share a bug with the
// backends it checks). Per axis, output index x maps to the input
// coordinate
//
//   half_pixel            (x + 0.5) / scale - 0.5
//   pytorch_half_pixel    the same, or 0 when the output length is 1
//   align_corners         x * (in - 1) / (in * scale - 1), or 0
//   asymmetric            x / scale
//   tf_half_pixel_for_nn  (x + 0.5) / scale
//   half_pixel_symmetric  in / 2 * (1 - out / (in * scale))
//                           + (x + 0.5) / scale - 0.5
//
// and with c = floor(coordinate), r = coordinate - c, reads
//
//   nearest  c or c + 1 by nearest_mode's rounding of r
//   linear   c, c + 1 weighted 1 - r, r
//   cubic    c - 1 ... c + 2 weighted by Keys' kernel with parameter A at
//            distances 1 + r, r, 1 - r, 2 - r (ONNX's cubic_coeffs);
//            exclude_outside zeroes the weights outside [0, in) and
//            divides by their sum
//
// where an index outside [0, in) reads the nearest end element (ONNX's
// edge padding; with exclude_outside and every neighbour outside, the
// weights stay 0). An axis whose size and scale (1) stay is copied. The
// output element is the sum over every combination of one neighbour per
// axis of the product of weights times the element: N-linear, N-cubic. In
// double, rounded once.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "backends/reference/kernels/kernels.h"
#include "backends/reference/kernels/movement.h"
#include "ops/resize_attrs.h"

namespace switchyard {
namespace reference {
namespace {

struct Neighbour {
  int64_t index;
  double weight;
};

double InputCoordinate(const ResizeAttrs& a, int64_t x, int64_t in,
                       int64_t out, double scale) {
  const double length_resized = in * scale;
  switch (a.coordinate_transformation_mode) {
    case ResizeCoordinateMode::kHalfPixel:
      return (x + 0.5) / scale - 0.5;
    case ResizeCoordinateMode::kPytorchHalfPixel:
      return out == 1 ? 0.0 : (x + 0.5) / scale - 0.5;
    case ResizeCoordinateMode::kAlignCorners:
      return length_resized <= 1 ? 0.0 : x * (in - 1.0) / (length_resized - 1);
    case ResizeCoordinateMode::kAsymmetric:
      return x / scale;
    case ResizeCoordinateMode::kTfHalfPixelForNn:
      return (x + 0.5) / scale;
    case ResizeCoordinateMode::kHalfPixelSymmetric:
      return in / 2.0 * (1 - out / length_resized) + (x + 0.5) / scale - 0.5;
  }
  return 0.0;
}

// Keys' cubic coefficients for the four neighbours c - 1 ... c + 2 of a
// coordinate c + r, as ONNX writes them.
std::vector<double> CubicCoefficients(double r, double A) {
  const double s = 1 - r;
  return {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
          ((A + 2) * r - (A + 3)) * r * r + 1,
          ((A + 2) * s - (A + 3)) * s * s + 1,
          ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A};
}

// The input neighbours of output index x along one axis.
std::vector<Neighbour> Neighbours(const ResizeAttrs& a, int64_t x, int64_t in,
                                  int64_t out, double scale) {
  if (in == out && scale == 1.0) return {{x, 1.0}};
  // Far outside the input every neighbour is an end element; the bound
  // keeps the conversion to int64 defined for any scale.
  const double coordinate = std::min(
      std::max(InputCoordinate(a, x, in, out, scale), -4.0), in + 4.0);
  const double c = std::floor(coordinate);
  const double r = coordinate - c;
  const int64_t first = static_cast<int64_t>(c);
  std::vector<Neighbour> n;
  switch (a.mode) {
    case ResizeMode::kNearest: {
      bool next = false;
      switch (a.nearest_mode) {
        case ResizeNearestMode::kRoundPreferFloor: next = r > 0.5; break;
        case ResizeNearestMode::kRoundPreferCeil: next = r >= 0.5; break;
        case ResizeNearestMode::kFloor: next = false; break;
        case ResizeNearestMode::kCeil: next = r > 0; break;
      }
      n.push_back({next ? first + 1 : first, 1.0});
      break;
    }
    case ResizeMode::kLinear:
      n.push_back({first, 1 - r});
      n.push_back({first + 1, r});
      break;
    case ResizeMode::kCubic: {
      const std::vector<double> w = CubicCoefficients(r, a.cubic_coeff_a);
      double sum = 0;
      for (int k = 0; k < 4; ++k) {
        const int64_t i = first - 1 + k;
        const bool outside = i < 0 || i >= in;
        n.push_back({i, a.exclude_outside && outside ? 0.0 : w[k]});
        sum += n.back().weight;
      }
      // (All four outside, from a scale far from out / in: weights 0.)
      if (a.exclude_outside && sum != 0) {
        for (Neighbour& e : n) e.weight /= sum;
      }
      break;
    }
  }
  for (Neighbour& e : n) e.index = std::min(std::max<int64_t>(e.index, 0), in - 1);
  return n;
}

template <typename T>
class ResizeKernel : public RefKernel {
 public:
  ResizeKernel(ResizeAttrs attrs, const RefDevice& device)
      : RefKernel(device, DTypeOf<T>(), 1, 1), a_(std::move(attrs)) {}

 protected:
  void Compute(absl::Span<const Tensor* const> inputs,
               Tensor& output) override {
    const Tensor& in = *inputs[0];
    const Shape& is = in.shape();
    const Shape& os = output.shape();
    const int rank = is.rank();
    const T* x = in.data<T>();
    T* y = output.data<T>();
    for (int64_t j = 0; j < output.num_elements(); ++j) {
      const std::vector<int64_t> o = Unravel(j, os);
      std::vector<std::vector<Neighbour>> per_axis(rank);
      for (int d = 0; d < rank; ++d) {
        const double scale = a_.scales.empty()
                                 ? static_cast<double>(os.dim(d)) / is.dim(d)
                                 : a_.scales[d];
        per_axis[d] = Neighbours(a_, o[d], is.dim(d), os.dim(d), scale);
      }
      // Every combination of one neighbour per axis.
      std::vector<size_t> pick(rank, 0);
      double sum = 0;
      while (true) {
        std::vector<int64_t> i(rank);
        double weight = 1;
        for (int d = 0; d < rank; ++d) {
          i[d] = per_axis[d][pick[d]].index;
          weight *= per_axis[d][pick[d]].weight;
        }
        sum += weight * static_cast<double>(x[Ravel(i, is)]);
        int d = rank - 1;
        while (d >= 0 && ++pick[d] == per_axis[d].size()) pick[d--] = 0;
        if (d < 0) break;
      }
      y[j] = static_cast<T>(sum);
    }
  }

 private:
  ResizeAttrs a_;
};

template <typename T>
absl::StatusOr<std::unique_ptr<Kernel>> MakeResize(const Node& node,
                                                   const Graph&,
                                                   RefDevice& device) {
  absl::StatusOr<ResizeAttrs> attrs = ResizeAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<ResizeKernel<T>>(*std::move(attrs), device);
}

SY_REGISTER_KERNEL_FOR_TYPES(RefKernels(), "resize", MakeResize, float, double);

}  // namespace
}  // namespace reference
}  // namespace switchyard
