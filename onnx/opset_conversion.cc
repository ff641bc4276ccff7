#include "onnx/opset_conversion.h"

#include <exception>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"
#include "onnx/checker.h"
#include "onnx/version_converter/convert.h"

namespace switchyard {
namespace onnx_import {
namespace {

// ONNX's messages carry the C++ source position of its assertion and a
// "Warning: " prefix; the user needs what failed, on one line.
std::string CleanMessage(const char* what) {
  std::string message = what;
  const size_t assertion = message.find("failed: ");
  if (assertion != std::string::npos) message = message.substr(assertion + 8);
  absl::string_view text = absl::StripAsciiWhitespace(message);
  absl::ConsumePrefix(&text, "Warning: ");
  return absl::StrReplaceAll(absl::StripAsciiWhitespace(text), {{"\n", "; "}});
}

// What libonnx's IR import (under the converter) assumes and its checker
// does not check: every graph output, in subgraphs too, is a value the graph
// (or the graph around it) defines. A dangling one crashes libonnx 1.12.
absl::Status CheckOutputsDefined(const onnx::GraphProto& graph, std::set<std::string> scope) {
  for (const onnx::ValueInfoProto& v : graph.input()) scope.insert(v.name());
  for (const onnx::TensorProto& t : graph.initializer()) scope.insert(t.name());
  for (const onnx::NodeProto& node : graph.node()) {
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.has_g()) SY_RETURN_IF_ERROR(CheckOutputsDefined(a.g(), scope));
      for (const onnx::GraphProto& g : a.graphs()) {
        SY_RETURN_IF_ERROR(CheckOutputsDefined(g, scope));
      }
    }
    for (const std::string& out : node.output()) scope.insert(out);
  }
  for (const onnx::ValueInfoProto& v : graph.output()) {
    if (scope.count(v.name()) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "graph '", graph.name(), "' has output '", v.name(),
          "', which no node, input or initializer defines"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ConvertOpset(onnx::ModelProto& model, int from, int target) {
  const std::string step = absl::StrCat("opset ", from, " to ", target);
  if (absl::Status defined = CheckOutputsDefined(model.graph(), {}); !defined.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model cannot go through its ", step, " conversion: ", defined.message()));
  }
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ONNX's checker refuses the model, so its ", step,
        " conversion cannot start: ", CleanMessage(e.what())));
  }
  try {
    model = onnx::version_conversion::ConvertVersion(model, target);
  } catch (const std::exception& e) {
    return absl::UnimplementedError(absl::StrCat(
        "ONNX's version converter cannot lift ", step, ": ", CleanMessage(e.what()),
        " (re-export the model at opset ", target,
        " or later: torch.onnx.export(..., opset_version=17))"));
  }
  return absl::OkStatus();
}

}  // namespace onnx_import
}  // namespace switchyard
