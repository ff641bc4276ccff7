#ifndef SWITCHYARD_OPS_SHAPE_GEOMETRY_H_
#define SWITCHYARD_OPS_SHAPE_GEOMETRY_H_

// Index arithmetic of slice and pad shared by their shape inference and the
// cpu and cuda kernels, so that the output shapes and the elements read
// agree. (The reference backend computes both on its own, as an independent
// oracle.)
//
//   SliceGeometry(attrs, Shape({5})) with starts {-1}, ends {INT64_MIN},
//   steps {-1}: {start 4, step -1, count 5}: the input reversed.
//   PadSourceIndex(PadMode::kReflect, /*out=*/0, /*begin=*/2, /*n=*/4) == 2

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/shape.h"
#include "ops/pad_geometry.h"
#include "ops/shape_attrs.h"

namespace switchyard {

// What slice reads along one input dim: elements start, start + step, ...,
// `count` of them (count 0: none, start then 0).
struct SliceDim {
  int64_t start = 0;
  int64_t step = 1;
  int64_t count = 0;
};

// One SliceDim per dim of `input` (dims no axis names: all of it), with
// ONNX's rules: negative starts and ends count from the end, then are
// clamped to [0, dim] for a positive step and to [0, dim - 1] (start) and
// [-1, dim - 1] (end) for a negative one. InvalidArgument for an axis out
// of range or named twice, or lists of different lengths.
absl::StatusOr<std::vector<SliceDim>> SliceGeometry(const SliceAttrs& attrs,
                                                    const Shape& input);

// Largest |pad| accepted, far beyond any real model; keeps index arithmetic
// (out - begin, dim + begin + end) clear of int64 overflow.
inline constexpr int64_t kMaxPad = int64_t{1} << 40;

// The output shape of pad: dim + begin + end per dim. InvalidArgument for a
// pads count other than 2 * rank, |pad| > kMaxPad, a negative result, or a
// reflect or edge pad of an empty dim (nothing to copy from).
absl::StatusOr<Shape> PadOutputShape(const PadAttrs& attrs,
                                     const Shape& input);

// The input index that output index `out` of one dim (of input length n,
// padded with `begin` before) copies, or -1 for the constant fill: the
// mode's function of ops/pad_geometry.h (constant -1, edge the nearest end,
// reflect numpy's mirror). n >= 1 for edge and reflect.
inline int64_t PadSourceIndex(PadMode mode, int64_t out, int64_t begin,
                              int64_t n) {
  switch (mode) {
    case PadMode::kConstant:
      return ConstantPadSource(out, begin, n);
    case PadMode::kEdge:
      return EdgePadSource(out, begin, n);
    case PadMode::kReflect:
      return ReflectPadSource(out, begin, n);
  }
  return -1;
}

// The run-time error of a gather index outside [-n, n), the same from every
// backend: "gather: index 7 at indices[1, 0] is out of range for data's
// axis 1 of length 5 (valid: -5 to 4)". `position` is the flat (row-major)
// position of the index in `indices`.
absl::Status GatherIndexError(int64_t value, int64_t position,
                              const Shape& indices, int64_t n, int axis);

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_SHAPE_GEOMETRY_H_
