#include "onnx/opset_conversion.h"

#include <exception>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
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

}  // namespace

absl::Status ConvertOpset(onnx::ModelProto& model, int from, int target) {
  const std::string step = absl::StrCat("opset ", from, " to ", target);
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
