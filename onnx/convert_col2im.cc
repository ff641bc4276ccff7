// ONNX Col2Im (opset 18): column blocks [N, C * prod(block), L] summed back
// into an image [N, C, *image_shape], composed as one scatter_elements with
// reduction add. Block element k (row-major over the block's dims) of block
// l (row-major over the blocks' grid) lands at padded position
// l_d * stride_d + k_d * dilation_d on each spatial axis d; those flat
// positions are a constant index list, the same for every (n, c). The sum
// goes into a zero image with the pads around it, which a pad op then
// strips (negative pads), so blocks overlapping the padding are dropped.
// Every size is checked before anything is allocated.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "models/host_array.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "ops/attr_fields.h"

namespace switchyard {
namespace onnx_import {
namespace {

// The most elements of the padded image (N * C * prod(padded dims)) and of
// the index list (prod(block) * L) the importer builds.
constexpr int64_t kMaxElements = int64_t{1} << 28;

// `a` * `b` when both are >= 0 and the product is at most kMaxElements;
// else -1.
int64_t BoundedProduct(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return -1;
  if (b != 0 && a > kMaxElements / b) return -1;
  return a * b;
}

absl::Status ConvertCol2Im(NodeContext& ctx) {
  const Shape x = ctx.InShape(0);
  if (x.rank() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input must be [N, C * prod(block_shape), L]; got ", x.ToString()));
  }
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> image, ctx.ConstInts(1, "image_shape"));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> block, ctx.ConstInts(2, "block_shape"));
  const size_t n = image.size();
  if (n == 0 || block.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "image_shape (", n, " values) and block_shape (", block.size(),
        " values) must have one value per spatial axis each, at least one"));
  }
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> dilations,
                      ctx.Ints("dilations", std::vector<int64_t>(n, 1)));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                      ctx.Ints("strides", std::vector<int64_t>(n, 1)));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                      ctx.Ints("pads", std::vector<int64_t>(2 * n, 0)));
  if (dilations.size() != n || strides.size() != n || pads.size() != 2 * n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dilations and strides need ", n, " values and pads ", 2 * n,
        " for a ", n, "-D image; got ", dilations.size(), ", ", strides.size(),
        " and ", pads.size()));
  }
  // Per axis: every value in range, then the padded size and block count.
  std::vector<int64_t> padded(n), counts(n);
  int64_t block_elements = 1, blocks = 1;
  for (size_t d = 0; d < n; ++d) {
    const bool sane = image[d] >= 1 && image[d] <= kMaxAttrWindowValue &&
                      block[d] >= 1 && block[d] <= kMaxAttrWindowValue &&
                      dilations[d] >= 1 && dilations[d] <= kMaxAttrWindowValue &&
                      strides[d] >= 1 && strides[d] <= kMaxAttrWindowValue &&
                      pads[d] >= 0 && pads[d] <= kMaxAttrWindowValue &&
                      pads[n + d] >= 0 && pads[n + d] <= kMaxAttrWindowValue;
    if (!sane) {
      return absl::InvalidArgumentError(absl::StrCat(
          "image_shape, block_shape, dilations and strides must be in [1, 2^30] and pads "
          "in [0, 2^30]; spatial axis ", d, " has image ", image[d], ", block ", block[d],
          ", dilation ", dilations[d], ", stride ", strides[d], ", pads ", pads[d],
          " and ", pads[n + d]));
    }
    padded[d] = image[d] + pads[d] + pads[n + d];
    const int64_t span = dilations[d] * (block[d] - 1) + 1;
    if (span > padded[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "on spatial axis ", d, " the dilated block (", span,
          ") is larger than the padded image (", padded[d], ")"));
    }
    counts[d] = (padded[d] - span) / strides[d] + 1;
    block_elements = BoundedProduct(block_elements, block[d]);
    blocks = BoundedProduct(blocks, counts[d]);
    if (block_elements < 0 || blocks < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "block_shape (", absl::StrJoin(block, "x"), ") or the number of blocks is over 2^28"));
    }
  }
  if (x.dim(1) % block_elements != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input dim 1 (", x.dim(1), ") is not a multiple of prod(block_shape) (",
        block_elements, ")"));
  }
  if (x.dim(2) != blocks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input dim 2 is ", x.dim(2), " blocks, but image_shape ", absl::StrJoin(image, "x"),
        ", block_shape ", absl::StrJoin(block, "x"),
        " and the pads, strides and dilations give block count L = ", blocks));
  }
  const int64_t batch = x.dim(0), channels = x.dim(1) / block_elements;
  int64_t image_elements = BoundedProduct(batch, channels);
  for (size_t d = 0; d < n && image_elements >= 0; ++d) {
    image_elements = BoundedProduct(image_elements, padded[d]);
  }
  const int64_t columns = BoundedProduct(block_elements, blocks);
  if (image_elements < 0 || columns < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the padded image [", batch, ", ", channels, ", ", absl::StrJoin(padded, ", "),
        "] or the ", block_elements, " x ", blocks,
        " column positions exceed 2^28 elements; image_shape is too large"));
  }

  // Scatter-add runs in these dtypes; float16 goes through float32.
  const DType dtype = ctx.Type(ctx.In(0)).dtype;
  Val input = ctx.In(0);
  const bool via_float = dtype == DType::kFloat16 || dtype == DType::kBFloat16;
  if (via_float) {
    SY_ASSIGN_OR_RETURN(input, Op(ctx, "cast", {input},
                                  Attrs({{"to", std::string("float32")}})));
  } else if (dtype != DType::kFloat32 && dtype != DType::kFloat64 &&
             dtype != DType::kInt64 && dtype != DType::kInt32) {
    return absl::UnimplementedError(absl::StrCat(
        "Col2Im in ", DTypeName(dtype),
        " is not supported (float32, float64, float16, int32, int64)"));
  }
  const DType work = via_float ? DType::kFloat32 : dtype;

  // The flat padded position of every (block element, block) pair.
  std::vector<int64_t> index(static_cast<size_t>(columns));
  std::vector<int64_t> k_at(n, 0);
  for (int64_t k = 0; k < block_elements; ++k) {
    std::vector<int64_t> l_at(n, 0);
    for (int64_t l = 0; l < blocks; ++l) {
      int64_t flat = 0;
      for (size_t d = 0; d < n; ++d) {
        flat = flat * padded[d] + l_at[d] * strides[d] + k_at[d] * dilations[d];
      }
      index[static_cast<size_t>(k * blocks + l)] = flat;
      for (size_t d = n; d-- > 0;) {  // next block, row-major
        if (++l_at[d] < counts[d]) break;
        l_at[d] = 0;
      }
    }
    for (size_t d = n; d-- > 0;) {  // next block element, row-major
      if (++k_at[d] < block[d]) break;
      k_at[d] = 0;
    }
  }
  std::vector<char> bytes(index.size() * sizeof(int64_t));
  std::memcpy(bytes.data(), index.data(), bytes.size());
  Val indices = ctx.Constant(HostArray(Shape({1, 1, columns}), DType::kInt64, std::move(bytes)));
  if (batch * channels != 1) {
    SY_ASSIGN_OR_RETURN(indices, Op(ctx, "expand", {indices},
                                    Attrs({{"shape", std::vector<int64_t>{
                                                         batch, channels, columns}}})));
  }
  SY_ASSIGN_OR_RETURN(Val updates, Reshape(ctx, input, {batch, channels, columns}));
  const int64_t plane = image_elements / std::max<int64_t>(1, batch * channels);
  SY_ASSIGN_OR_RETURN(Val zeros,
                      Op(ctx, "expand", {Scalar(ctx, 0.0, work)},
                         Attrs({{"shape", std::vector<int64_t>{batch, channels, plane}}})));
  SY_ASSIGN_OR_RETURN(Val sums, Op(ctx, "scatter_elements", {zeros, indices, updates},
                                   Attrs({{"axis", int64_t{2}},
                                          {"reduction", std::string("add")}})));
  std::vector<int64_t> dims = {batch, channels};
  dims.insert(dims.end(), padded.begin(), padded.end());
  SY_ASSIGN_OR_RETURN(Val y, Reshape(ctx, sums, dims));
  std::vector<int64_t> strip(2 * (n + 2), 0);
  bool any_pad = false;
  for (size_t d = 0; d < n; ++d) {
    strip[2 + d] = -pads[d];
    strip[n + 4 + d] = -pads[n + d];
    any_pad = any_pad || pads[d] != 0 || pads[n + d] != 0;
  }
  if (any_pad) {
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "pad", {y}, Attrs({{"pads", strip},
                                                     {"mode", std::string("constant")},
                                                     {"value", 0.0}})));
  }
  if (via_float) {
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "cast", {y}, Attrs({{"to", DTypeName(dtype)}})));
  }
  return ctx.SetOutput(0, y);
}

}  // namespace

SY_REGISTER_ONNX_CONVERTER("Col2Im", ConvertCol2Im, 3);

}  // namespace onnx_import
}  // namespace switchyard
