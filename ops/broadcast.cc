#include "ops/broadcast.h"

#include <algorithm>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace switchyard {
namespace {

std::string NameOf(absl::Span<const std::string> names, size_t i) {
  return i < names.size() ? names[i] : absl::StrCat("operand ", i);
}

}  // namespace

absl::StatusOr<Shape> BroadcastShapes(absl::Span<const Shape> shapes,
                                      absl::Span<const std::string> names) {
  int rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.rank());
  std::vector<int64_t> dims(rank, 1);
  // Which operand set each output dimension (for the message).
  std::vector<size_t> setter(rank, 0);
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Shape& s = shapes[k];
    const int shift = rank - s.rank();
    for (int d = 0; d < s.rank(); ++d) {
      const int64_t dim = s.dim(d);
      int64_t& out = dims[shift + d];
      if (dim == out || dim == 1) continue;
      if (out == 1) {
        out = dim;
        setter[shift + d] = k;
        continue;
      }
      const size_t j = setter[shift + d];
      return absl::InvalidArgumentError(absl::StrCat(
          NameOf(names, j), " ", shapes[j].ToString(), " and ",
          NameOf(names, k), " ", s.ToString(),
          " do not broadcast: output dimension ", shift + d, " is ", out,
          " and ", dim,
          " (numpy rules: right-aligned dimensions must be equal, or one of "
          "them 1)"));
    }
  }
  return Shape(std::move(dims));
}

absl::Status CheckBroadcastsTo(const Shape& operand, const Shape& target,
                               absl::string_view operand_name) {
  if (operand.rank() > target.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        operand_name, " ", operand.ToString(), " has more dimensions than ",
        target.ToString(), " and cannot broadcast to it"));
  }
  const int shift = target.rank() - operand.rank();
  for (int d = 0; d < operand.rank(); ++d) {
    const int64_t dim = operand.dim(d);
    if (dim != 1 && dim != target.dim(shift + d)) {
      return absl::InvalidArgumentError(absl::StrCat(
          operand_name, " ", operand.ToString(), " does not broadcast to ",
          target.ToString(), ": its dimension ", d, " is ", dim,
          " where the target has ", target.dim(shift + d),
          " (it must be equal or 1)"));
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> BroadcastStrides(const Shape& operand,
                                      const Shape& output) {
  const int rank = output.rank();
  const int shift = rank - operand.rank();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int d = operand.rank() - 1; d >= 0; --d) {
    strides[shift + d] = operand.dim(d) == 1 ? 0 : stride;
    stride *= operand.dim(d);
  }
  return strides;
}

BroadcastLayout BroadcastLayout::Make(absl::Span<const Shape> operands,
                                      const Shape& output) {
  std::vector<std::vector<int64_t>> full;
  for (const Shape& s : operands) full.push_back(BroadcastStrides(s, output));
  BroadcastLayout layout;
  layout.strides.resize(operands.size());
  for (int d = 0; d < output.rank(); ++d) {
    const int64_t dim = output.dim(d);
    if (dim == 1) continue;  // one index: its strides never matter
    // Merge into the previous kept dimension when, for every operand, one
    // step there is `dim` steps here (both contiguous, or both broadcast).
    bool merge = !layout.dims.empty();
    for (size_t k = 0; merge && k < operands.size(); ++k) {
      merge = layout.strides[k].back() == full[k][d] * dim;
    }
    if (merge) {
      layout.dims.back() *= dim;
      for (size_t k = 0; k < operands.size(); ++k) {
        layout.strides[k].back() = full[k][d];
      }
    } else {
      layout.dims.push_back(dim);
      for (size_t k = 0; k < operands.size(); ++k) {
        layout.strides[k].push_back(full[k][d]);
      }
    }
  }
  if (layout.dims.empty()) {  // a scalar, or every dimension 1
    layout.dims.push_back(1);
    for (auto& s : layout.strides) s.push_back(0);
  }
  return layout;
}

absl::StatusOr<BroadcastLayout> BinaryBroadcastLayout(const Node& node,
                                                      const Graph& graph) {
  const std::optional<Shape>& a = graph.value(node.inputs[0]).shape;
  const std::optional<Shape>& b = graph.value(node.inputs[1]).shape;
  const std::optional<Shape>& out = graph.value(node.outputs[0]).shape;
  if (!a || !b || !out) {
    return absl::InternalError(absl::StrCat(
        "node '", node.name, "': operand or output shape unknown; shape "
        "inference must run before lowering"));
  }
  return BroadcastLayout::Make({*a, *b}, *out);
}

int64_t BroadcastLayout::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

bool BroadcastLayout::SameShape() const {
  if (rank() != 1) return false;
  for (const auto& s : strides) {
    if (s[0] != 1 && dims[0] != 1) return false;
  }
  return true;
}

}  // namespace switchyard
