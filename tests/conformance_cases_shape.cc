// The shape op family's conformance cases (see conformance_cases.h):
// reshape, transpose, concat, split, slice, gather, pad, expand, where,
// trilu, and the ops that index by data (gather_elements, gather_nd,
// scatter_elements, scatter_nd, one_hot), their indices in range (bad ones
// are tests/index_bounds_test.cc's). They move elements without
// arithmetic, so every backend must match the reference bit for bit, in
// every dtype. A few cases are large enough (> 256 KiB) for the CPU's
// threaded and tiled paths.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/conformance_cases.h"

namespace switchyard {
namespace conformance {
namespace {

using Ints = std::vector<int64_t>;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

ConformanceCase Exact(ConformanceCase c) {
  c.tolerance = Tolerance{0, 0};
  return c;
}

ConformanceCase Reshape(std::string name, Shape input, Ints shape) {
  return Exact(Case(std::move(name), "reshape", {std::move(input)}, {},
                    {{"shape", std::move(shape)}}));
}

ConformanceCase Transpose(std::string name, Shape input, Ints perm) {
  return Exact(Case(std::move(name), "transpose", {std::move(input)}, {},
                    {{"perm", std::move(perm)}}));
}

ConformanceCase Concat(std::string name, std::vector<Shape> inputs,
                       int64_t axis) {
  return Exact(Case(std::move(name), "concat", std::move(inputs), {},
                    {{"axis", axis}}));
}

ConformanceCase Split(std::string name, Shape input, int64_t axis,
                      Ints sizes) {
  return Exact(Case(std::move(name), "split", {std::move(input)}, {},
                    {{"axis", axis}, {"sizes", std::move(sizes)}}));
}

ConformanceCase Slice(std::string name, Shape input, Ints starts, Ints ends,
                      Ints axes, Ints steps) {
  return Exact(Case(std::move(name), "slice", {std::move(input)}, {},
                    {{"starts", std::move(starts)},
                     {"ends", std::move(ends)},
                     {"axes", std::move(axes)},
                     {"steps", std::move(steps)}}));
}

// Indices of `index_dtype` uniform in [-n, n - 1] (n: data's length along
// the axis), so negative ones count from the end; an input, not a
// constant, so that backends check them at run time.
ConformanceCase Gather(std::string name, Shape data, Shape indices,
                       int64_t axis, DType index_dtype = DType::kInt64) {
  const int64_t wrapped = axis < 0 ? axis + data.rank() : axis;
  const int64_t n = data.dim(static_cast<int>(wrapped));
  ConformanceCase c =
      Exact(Case(std::move(name), "gather", {std::move(data), std::move(indices)},
                 {}, {{"axis", axis}}));
  c.operand_values[1] = {index_dtype, -n, n - 1};
  return c;
}

ConformanceCase Pad(std::string name, Shape input, Ints pads,
                    std::string mode, double value = 0.0) {
  return Exact(Case(std::move(name), "pad", {std::move(input)}, {},
                    {{"pads", std::move(pads)},
                     {"mode", std::move(mode)},
                     {"value", value}}));
}

ConformanceCase Expand(std::string name, Shape input, Ints shape) {
  return Exact(Case(std::move(name), "expand", {std::move(input)}, {},
                    {{"shape", std::move(shape)}}));
}

// condition (bool: the case's dtype, the kernel's key), x and y of `dtype`.
ConformanceCase Where(std::string name, Shape condition, Shape x, Shape y,
                      DType dtype) {
  ConformanceCase c =
      Exact(Case(absl::StrCat(name, "_", DTypeName(dtype)), "where",
                 {std::move(condition), std::move(x), std::move(y)}));
  c.dtype = DType::kBool;
  c.operand_values[1] = {dtype};
  c.operand_values[2] = {dtype};
  return c;
}

ConformanceCase Trilu(std::string name, Shape input, bool upper, int64_t k) {
  return Exact(Case(std::move(name), "trilu", {std::move(input)}, {},
                    {{"upper", upper}, {"k", k}}));
}

// The ops that index by data: indices (int64 unless given) uniform in
// [low, high], an input, so that backends check them at run time.
ConformanceCase Indexed(std::string name, std::string op, std::vector<Shape> inputs,
                        int64_t low, int64_t high,
                        std::vector<std::pair<std::string, AttrValue>> attrs,
                        DType index_dtype = DType::kInt64) {
  ConformanceCase c = Exact(Case(std::move(name), std::move(op), std::move(inputs), {},
                                 std::move(attrs)));
  c.operand_values[1] = {index_dtype, low, high};
  return c;
}

// one_hot: the indices' dtype is the case's (the kernel's key); values
// [off, on] of `values_dtype`; integer indices reach past both ends, which
// give rows of off values.
ConformanceCase OneHot(std::string name, Shape indices, int64_t depth, int64_t axis,
                       DType index_dtype, DType values_dtype) {
  ConformanceCase c = Exact(Case(absl::StrCat(name, "_", DTypeName(index_dtype), "_",
                                              DTypeName(values_dtype)),
                                 "one_hot", {std::move(indices), Shape({2})}, {},
                                 {{"depth", depth}, {"axis", axis}}));
  c.dtype = index_dtype;
  if (index_dtype == DType::kFloat32) {
    c.scale = static_cast<float>(depth + 2);
  } else {
    c.operand_values[0] = {index_dtype, -depth - 2, depth + 1};
  }
  c.operand_values[1] = {values_dtype};
  return c;
}

ConformanceCase TopK(std::string name, Shape input, int64_t k, int64_t axis,
                     bool largest) {
  return Exact(Case(std::move(name), "topk", {std::move(input)}, {},
                    {{"k", k}, {"axis", axis}, {"largest", largest}}));
}

}  // namespace

std::vector<ConformanceCase> ShapeConformanceCases() {
  std::vector<ConformanceCase> cases = {
      // reshape: the bytes do not move.
      Reshape("reshape_3d_to_2d", Shape({2, 3, 4}), {4, 6}),
      Reshape("reshape_to_1d", Shape({2, 3, 4}), {24}),
      Reshape("reshape_to_scalar", Shape({1, 1}), {}),
      Reshape("reshape_empty", Shape({0, 3}), {3, 0}),

      // transpose
      Transpose("transpose_3d_201", Shape({2, 3, 4}), {2, 0, 1}),
      Transpose("transpose_3d_reverse", Shape({2, 3, 4}), {2, 1, 0}),
      Transpose("transpose_nchw_to_nhwc", Shape({2, 3, 4, 5}), {0, 2, 3, 1}),
      Transpose("transpose_nhwc_to_nchw", Shape({2, 4, 5, 3}), {0, 3, 1, 2}),
      Transpose("transpose_identity", Shape({2, 3, 4}), {0, 1, 2}),
      Transpose("transpose_ragged_tiles", Shape({33, 70}), {1, 0}),
      Transpose("transpose_size_one_dims", Shape({1, 5, 1, 3}), {3, 2, 1, 0}),
      Transpose("transpose_scalar", Shape({}), {}),
      // 312 KB: the CPU's threaded tiles.
      Transpose("transpose_large", Shape({4, 150, 130}), {0, 2, 1}),

      // concat: 3 operands, negative axes, an empty piece.
      Concat("concat_three_axis1", {Shape({2, 3, 4}), Shape({2, 1, 4}),
                                    Shape({2, 5, 4})},
             1),
      Concat("concat_three_axis_neg1", {Shape({3, 2}), Shape({3, 4}),
                                        Shape({3, 1})},
             -1),
      Concat("concat_axis0_empty_piece", {Shape({2, 3}), Shape({0, 3}),
                                          Shape({1, 3})},
             0),
      Concat("concat_axis_neg3", {Shape({1, 2, 2}), Shape({2, 2, 2})}, -3),
      Concat("concat_one_operand", {Shape({4, 2})}, 1),
      Concat("concat_large", {Shape({64, 300, 2}), Shape({64, 300, 3})}, 2),

      // split: several outputs, a zero-size piece, negative axes.
      Split("split_axis0_three", Shape({6, 4}), 0, {1, 2, 3}),
      Split("split_zero_size_piece", Shape({3, 4}), -1, {2, 0, 2}),
      Split("split_middle_axis", Shape({2, 5, 3}), 1, {4, 1}),
      Split("split_one_output", Shape({4, 3}), 0, {4}),

      // slice: ONNX's node tests, negative steps, extreme ends.
      Slice("slice_onnx_basic", Shape({20, 10, 5}), {0, 0}, {3, 10}, {0, 1},
            {1, 1}),
      Slice("slice_default_axes_steps", Shape({6, 5, 4}), {0, 1, 3},
            {6, 4, 4}, {}, {}),
      Slice("slice_negative_axes", Shape({6, 5, 4}), {1, -3}, {5, kMax},
            {-1, -2}, {2, 1}),
      Slice("slice_negative_steps", Shape({20, 10, 5}), {20, 10, 4}, {0, 0, 1},
            {0, 1, 2}, {-1, -3, -2}),
      Slice("slice_reverse_all", Shape({7}), {-1}, {kMin}, {0}, {-1}),
      Slice("slice_start_out_of_bounds", Shape({4, 10, 3}), {1000}, {1000},
            {1}, {1}),
      Slice("slice_end_out_of_bounds", Shape({4, 10, 3}), {1}, {1000}, {1},
            {1}),
      Slice("slice_huge_step", Shape({5, 3}), {1, 0}, {kMax, 3}, {0, 1},
            {kMax, 2}),
      Slice("slice_scalar_untouched", Shape({}), {}, {}, {}, {}),

      // gather: indices of several ranks, negative ones, int32 ones.
      Gather("gather_axis0", Shape({5, 4, 3}), Shape({3}), 0),
      Gather("gather_axis1_2d_indices", Shape({3, 6}), Shape({2, 4}), 1),
      Gather("gather_axis_neg1_scalar_index", Shape({4, 5}), Shape({}), -1),
      Gather("gather_int32_indices", Shape({8, 2, 3}), Shape({2, 3}), 0,
             DType::kInt32),
      Gather("gather_middle_int32", Shape({2, 7, 3}), Shape({5}), 1,
             DType::kInt32),
      Gather("gather_no_indices", Shape({3, 4}), Shape({0}), 1),
      Gather("gather_large", Shape({1000, 64}), Shape({20, 60}), 0),

      // pad: every mode, negative pads, ONNX's node-test geometry.
      Pad("pad_constant_onnx", Shape({1, 3, 4, 5}), {0, 0, 1, 3, 0, 0, 2, 4},
          "constant", 1.25),
      Pad("pad_constant_zero", Shape({2, 3}), {1, 2, 0, 1}, "constant"),
      Pad("pad_reflect", Shape({1, 3, 4, 5}), {0, 0, 1, 1, 0, 0, 1, 1},
          "reflect"),
      Pad("pad_reflect_wide", Shape({3, 4}), {2, 3, 2, 3}, "reflect"),
      Pad("pad_reflect_beyond_dim", Shape({2, 3}), {0, 5, 0, 4}, "reflect"),
      Pad("pad_edge", Shape({1, 3, 4, 5}), {0, 0, 1, 1, 0, 0, 1, 1}, "edge"),
      Pad("pad_edge_wide", Shape({2, 3}), {3, 0, 1, 4}, "edge"),
      Pad("pad_negative_crop", Shape({4, 6}), {-1, 2, -2, -1}, "constant",
          -3.0),
      Pad("pad_negative_crop_edge", Shape({4, 6}), {-1, -2, 2, 1}, "edge"),
      Pad("pad_empty_dim_constant", Shape({0, 3}), {1, 0, 1, 1}, "constant",
          2.0),
      Pad("pad_scalar", Shape({}), {}, "constant"),
      Pad("pad_large", Shape({8, 100, 100}), {0, 2, 3, 0, 1, 4}, "reflect"),

      // topk: the last axis and a middle one, smallest, all of a row,
      // none, rows spread over threads.
      TopK("topk_last_axis", Shape({3, 10}), 4, -1, true),
      TopK("topk_middle_axis_smallest", Shape({2, 9, 3}), 3, 1, false),
      TopK("topk_whole_row", Shape({4, 5}), 5, 1, true),
      TopK("topk_k_zero", Shape({2, 6}), 0, 1, true),
      TopK("topk_vector", Shape({17}), 1, 0, false),
      TopK("topk_large", Shape({64, 2000}), 50, -1, true),

      // trilu: both triangles, diagonals inside and beyond the matrix,
      // batches, an empty matrix.
      Trilu("trilu_upper", Shape({4, 5}), true, 0),
      Trilu("trilu_lower", Shape({4, 5}), false, 0),
      Trilu("trilu_upper_k2", Shape({3, 4, 5}), true, 2),
      Trilu("trilu_lower_k_neg1", Shape({3, 4, 5}), false, -1),
      Trilu("trilu_upper_beyond", Shape({4, 5}), true, 6),
      Trilu("trilu_lower_beyond", Shape({4, 5}), false, -7),
      Trilu("trilu_upper_k_huge", Shape({3, 3}), true,
            std::numeric_limits<int64_t>::min()),
      Trilu("trilu_lower_k_huge", Shape({3, 3}), false, kMax),
      Trilu("trilu_empty", Shape({0, 5}), true, 0),
      Trilu("trilu_one_row", Shape({2, 1, 5}), false, 1),

      // gather_elements: every axis, negative ones, indices smaller than
      // data, int32 indices.
      Indexed("gather_elements_axis0", "gather_elements", {Shape({3, 4}), Shape({5, 4})},
              -3, 2, {{"axis", int64_t{0}}}),
      Indexed("gather_elements_axis1", "gather_elements", {Shape({3, 4}), Shape({3, 7})},
              -4, 3, {{"axis", int64_t{1}}}),
      Indexed("gather_elements_axis_neg1_smaller", "gather_elements",
              {Shape({4, 5, 6}), Shape({2, 3, 9})}, -6, 5, {{"axis", int64_t{-1}}}),
      Indexed("gather_elements_middle_int32_indices", "gather_elements",
              {Shape({4, 5, 6}), Shape({4, 2, 6})}, -5, 4, {{"axis", int64_t{1}}},
              DType::kInt32),
      Indexed("gather_elements_empty", "gather_elements", {Shape({3, 4}), Shape({0, 4})},
              0, 0, {{"axis", int64_t{0}}}),

      // gather_nd: whole-tuple elements, slices, batch dims (cubic data, so
      // one range fits every indexed dim).
      Indexed("gather_nd_elements", "gather_nd", {Shape({4, 4}), Shape({5, 2})}, -4, 3,
              {{"batch_dims", int64_t{0}}}),
      Indexed("gather_nd_slices", "gather_nd", {Shape({4, 4, 3}), Shape({2, 3, 1})}, -4, 3,
              {{"batch_dims", int64_t{0}}}),
      Indexed("gather_nd_batch1", "gather_nd", {Shape({2, 3, 3, 5}), Shape({2, 4, 2})}, -3,
              2, {{"batch_dims", int64_t{1}}}),
      Indexed("gather_nd_batch2_int32_indices", "gather_nd", {Shape({2, 3, 4, 4}), Shape({2, 3, 1})},
              -4, 3, {{"batch_dims", int64_t{2}}}, DType::kInt32),

      // scatter_elements: duplicates are likely (the last one wins, or they
      // combine in order).
      Indexed("scatter_elements_axis0", "scatter_elements",
              {Shape({4, 3}), Shape({6, 3}), Shape({6, 3})}, -4, 3, {{"axis", int64_t{0}}}),
      Indexed("scatter_elements_axis1_smaller", "scatter_elements",
              {Shape({3, 5}), Shape({2, 3}), Shape({2, 3})}, -5, 4, {{"axis", int64_t{1}}}),
      Indexed("scatter_elements_add", "scatter_elements",
              {Shape({2, 4, 3}), Shape({2, 6, 3}), Shape({2, 6, 3})}, -4, 3,
              {{"axis", int64_t{1}}, {"reduction", std::string("add")}}),
      Indexed("scatter_elements_mul_int32_indices", "scatter_elements",
              {Shape({5, 2}), Shape({4, 2}), Shape({4, 2})}, -5, 4,
              {{"axis", int64_t{-2}}, {"reduction", std::string("mul")}}, DType::kInt32),
      Indexed("scatter_elements_max", "scatter_elements",
              {Shape({4, 4}), Shape({4, 4}), Shape({4, 4})}, -4, 3,
              {{"axis", int64_t{1}}, {"reduction", std::string("max")}}),
      Indexed("scatter_elements_min", "scatter_elements",
              {Shape({4, 4}), Shape({4, 4}), Shape({4, 4})}, -4, 3,
              {{"axis", int64_t{0}}, {"reduction", std::string("min")}}),
      // Past the CPU kernel's threading threshold (2^15 updates): threads
      // take slices of a dimension other than the axis (axis 0: dimension
      // 1; axis 1: dimension 0, with a smaller indices tensor), duplicates
      // still combining in order.
      Indexed("scatter_elements_threaded_axis0", "scatter_elements",
              {Shape({6, 40, 160}), Shape({9, 40, 100}), Shape({9, 40, 100})}, -6, 5,
              {{"axis", int64_t{0}}, {"reduction", std::string("add")}}),
      Indexed("scatter_elements_threaded_axis1", "scatter_elements",
              {Shape({50, 9, 80}), Shape({48, 12, 70}), Shape({48, 12, 70})}, -9, 8,
              {{"axis", int64_t{1}}}),

      // scatter_nd: elements and slices; duplicates are likely.
      Indexed("scatter_nd_elements", "scatter_nd",
              {Shape({4, 4}), Shape({6, 2}), Shape({6})}, -4, 3,
              {{"reduction", std::string("none")}}),
      Indexed("scatter_nd_slices", "scatter_nd",
              {Shape({4, 4, 3}), Shape({2, 2, 1}), Shape({2, 2, 4, 3})}, -4, 3,
              {{"reduction", std::string("none")}}),
      Indexed("scatter_nd_add", "scatter_nd",
              {Shape({4, 4, 4}), Shape({3, 1}), Shape({3, 4, 4})}, -4, 3,
              {{"reduction", std::string("add")}}),
      Indexed("scatter_nd_mul_int32_indices", "scatter_nd",
              {Shape({3, 3}), Shape({5, 1}), Shape({5, 3})}, -3, 2,
              {{"reduction", std::string("mul")}}, DType::kInt32),
      Indexed("scatter_nd_max", "scatter_nd",
              {Shape({4, 4}), Shape({8, 2}), Shape({8})}, -4, 3,
              {{"reduction", std::string("max")}}),
      Indexed("scatter_nd_min", "scatter_nd",
              {Shape({4, 4}), Shape({8, 2}), Shape({8})}, -4, 3,
              {{"reduction", std::string("min")}}),
      // Rows past the CPU kernel's threading threshold (a detector's RoI
      // merge, scaled down): threads take ranges of every row, duplicate
      // rows still landing in order.
      Indexed("scatter_nd_threaded_rows", "scatter_nd",
              {Shape({12, 16, 7, 7}), Shape({48, 1}), Shape({48, 16, 7, 7})}, -12, 11,
              {{"reduction", std::string("none")}}),
      Indexed("scatter_nd_threaded_rows_add", "scatter_nd",
              {Shape({12, 16, 7, 7}), Shape({48, 1}), Shape({48, 16, 7, 7})}, -12, 11,
              {{"reduction", std::string("add")}}),

      // expand: ONNX's node tests, a shorter shape, an empty result.
      Expand("expand_dim_changed", Shape({3, 1}), {2, 1, 6}),
      Expand("expand_dim_unchanged", Shape({3, 1}), {3, 4}),
      Expand("expand_shorter_shape", Shape({2, 1, 3}), {4, 1}),
      Expand("expand_scalar", Shape({}), {2, 3}),
      Expand("expand_to_empty", Shape({1, 3}), {0, 3}),
      Expand("expand_large", Shape({1, 256, 1}), {80, 256, 4}),
  };

  // Every dtype for the data-movement ops (bytes of 1, 2, 4 and 8).
  for (DType dtype : AllDTypes()) {
    if (dtype == DType::kFloat32) continue;
    cases.push_back(InDType(Reshape("reshape", Shape({2, 6}), {3, 4}), dtype));
    cases.push_back(
        InDType(Transpose("transpose", Shape({3, 4, 5}), {1, 2, 0}), dtype));
    cases.push_back(InDType(
        Concat("concat", {Shape({2, 2}), Shape({2, 3}), Shape({2, 1})}, -1),
        dtype));
    cases.push_back(InDType(Split("split", Shape({5, 3}), 0, {2, 0, 3}), dtype));
    cases.push_back(InDType(
        Slice("slice", Shape({6, 5}), {-1, 1}, {kMin, 4}, {0, 1}, {-2, 1}),
        dtype));
    cases.push_back(
        InDType(Gather("gather", Shape({4, 3}), Shape({2, 2}), 0), dtype));
    cases.push_back(InDType(
        Pad("pad_constant", Shape({2, 3}), {1, 0, 0, 2}, "constant", 7.0),
        dtype));
    cases.push_back(InDType(
        Pad("pad_reflect", Shape({3, 4}), {1, 2, 2, 1}, "reflect"), dtype));
    cases.push_back(
        InDType(Pad("pad_edge", Shape({2, 3}), {0, 2, 1, 1}, "edge"), dtype));
    cases.push_back(InDType(Expand("expand", Shape({3, 1}), {2, 3, 4}), dtype));
    cases.push_back(InDType(Trilu("trilu", Shape({2, 3, 4}), false, 1), dtype));
    cases.push_back(InDType(Indexed("gather_elements", "gather_elements",
                                    {Shape({3, 4}), Shape({3, 2})}, -4, 3,
                                    {{"axis", int64_t{1}}}),
                            dtype));
    cases.push_back(InDType(Indexed("gather_nd", "gather_nd", {Shape({3, 3, 2}), Shape({2, 2})},
                                    -3, 2, {{"batch_dims", int64_t{0}}}),
                            dtype));
    cases.push_back(InDType(Indexed("scatter_elements", "scatter_elements",
                                    {Shape({3, 4}), Shape({3, 2}), Shape({3, 2})}, -4, 3,
                                    {{"axis", int64_t{1}}}),
                            dtype));
    cases.push_back(InDType(Indexed("scatter_nd", "scatter_nd",
                                    {Shape({3, 3, 2}), Shape({2, 2}), Shape({2, 2})}, -3, 2,
                                    {{"reduction", std::string("none")}}),
                            dtype));
  }

  // topk: integers in [-100, 100] tie often, so the lower-index-first rule
  // is checked against the reference.
  for (DType dtype : {DType::kFloat64, DType::kInt64, DType::kInt32}) {
    cases.push_back(InDType(TopK("topk_ties", Shape({6, 300}), 20, -1, true), dtype));
    cases.push_back(InDType(TopK("topk_ties_smallest", Shape({5, 40, 2}), 7, 1, false), dtype));
  }

  // scatter reductions in their other dtypes.
  for (DType dtype : {DType::kFloat64, DType::kInt64, DType::kInt32}) {
    for (const char* reduction : {"add", "mul", "max", "min"}) {
      cases.push_back(InDType(
          Indexed(absl::StrCat("scatter_elements_", reduction), "scatter_elements",
                  {Shape({4, 3}), Shape({5, 3}), Shape({5, 3})}, -4, 3,
                  {{"axis", int64_t{0}}, {"reduction", std::string(reduction)}}),
          dtype));
      cases.push_back(InDType(
          Indexed(absl::StrCat("scatter_nd_", reduction), "scatter_nd",
                  {Shape({4, 3}), Shape({5, 1}), Shape({5, 3})}, -4, 3,
                  {{"reduction", std::string(reduction)}}),
          dtype));
    }
  }

  // one_hot: every indices dtype, values of several.
  for (DType index_dtype : {DType::kInt64, DType::kInt32, DType::kFloat32}) {
    cases.push_back(OneHot("one_hot_last", Shape({3, 4}), 5, -1, index_dtype,
                           DType::kFloat32));
    cases.push_back(OneHot("one_hot_first", Shape({6}), 3, 0, index_dtype, DType::kInt64));
    cases.push_back(OneHot("one_hot_middle", Shape({2, 3}), 4, 1, index_dtype,
                           DType::kInt32));
  }
  cases.push_back(OneHot("one_hot_bool_values", Shape({4}), 2, -1, DType::kInt64,
                         DType::kBool));
  cases.push_back(OneHot("one_hot_empty", Shape({0, 2}), 3, -2, DType::kInt64,
                         DType::kFloat64));

  // where: the condition is bool (the kernel's key); x and y any dtype.
  for (DType dtype : AllDTypes()) {
    cases.push_back(Where("where_broadcast_all_three", Shape({2, 1, 4}),
                          Shape({3, 1}), Shape({}), dtype));
  }
  cases.push_back(Where("where_same_shape", Shape({2, 3}), Shape({2, 3}),
                        Shape({2, 3}), DType::kFloat32));
  cases.push_back(Where("where_condition_broadcast", Shape({5}),
                        Shape({4, 5}), Shape({4, 5}), DType::kInt64));
  cases.push_back(Where("where_empty", Shape({0, 3}), Shape({1, 3}),
                        Shape({3}), DType::kFloat32));
  cases.push_back(Where("where_large", Shape({1, 300}), Shape({256, 300}),
                        Shape({256, 1}), DType::kFloat32));
  return cases;
}

}  // namespace conformance
}  // namespace switchyard
