#include "onnx/loop_node.h"

#include "absl/strings/str_cat.h"

namespace switchyard {
namespace onnx_import {

absl::StatusOr<LoopSignature> ReadLoopSignature(const onnx::NodeProto& node) {
  LoopSignature loop;
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == "body" && a.has_g()) loop.body = &a.g();
  }
  if (loop.body == nullptr) {
    return absl::InvalidArgumentError("attribute 'body' (a graph) is missing");
  }
  if (node.input_size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a Loop reads (M, cond, v_initial...); the node has ", node.input_size(),
        " inputs (write \"\" for an absent M or cond)"));
  }
  loop.carried = node.input_size() - 2;
  const onnx::GraphProto& body = *loop.body;
  if (body.input_size() != loop.carried + 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the body takes ", body.input_size(), " inputs; with ", loop.carried,
        " loop-carried values it must take ", loop.carried + 2,
        " (iteration_num, cond, then one per value)"));
  }
  loop.scans = body.output_size() - 1 - loop.carried;
  if (loop.scans < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the body has ", body.output_size(), " outputs; it must have at least ",
        loop.carried + 1, " (cond, then one per loop-carried value)"));
  }
  if (node.output_size() != loop.carried + loop.scans) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the node has ", node.output_size(), " outputs; its body gives ",
        loop.carried, " loop-carried values and ", loop.scans, " scan outputs"));
  }
  return loop;
}

}  // namespace onnx_import
}  // namespace switchyard
