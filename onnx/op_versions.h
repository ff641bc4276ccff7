#ifndef SWITCHYARD_ONNX_OP_VERSIONS_H_
#define SWITCHYARD_ONNX_OP_VERSIONS_H_

// The versions ONNX gave its ops from opset 18 on, and which of them the
// importer's converters read. A model's opset selects, for each op, the
// newest version at or below it (ONNX Runtime registers its kernels per
// version range the same way); a converter written for an older version
// could misread a newer one (an attribute that became an input, a new
// mode), so a version no converter was reviewed for is refused with the
// node, the version and what changed, instead of the whole model being
// refused for its opset number.
//
//   absl::Status s = CheckOpVersion("Split", 18);  // Unimplemented until
//                                                 // Split-18 is handled

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace switchyard {
namespace onnx_import {

// What a version changed, as far as a converter written before it goes.
enum class VersionSupport {
  // The converter reads this version's forms.
  kHandled,
  // Only new element types (float8, int4, bfloat16 on more ops...): a type
  // Switchyard lacks is refused when the tensor is read, so nothing else
  // needs review.
  kTypesOnly,
  // New semantics the converter does not read yet: refused.
  kNotYet,
};

struct OpVersion {
  std::string op_type;
  int since = 0;  // the opset that introduced this version
  VersionSupport support = VersionSupport::kNotYet;
  std::string change;  // what the version changed, for errors and docs
};

// Every version from opset 18 to kMaxOnnxOpset, by op type then version.
const std::vector<OpVersion>& OpVersions();

// The version of `op_type` that `opset` selects, when it is one of the
// table's (from opset 18 on); nullptr for an older version.
const OpVersion* SelectedVersion(const std::string& op_type, int opset);

// Unimplemented, naming the version and its change, when `opset` selects a
// version of `op_type` that is kNotYet; OK otherwise.
absl::Status CheckOpVersion(const std::string& op_type, int opset);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_OP_VERSIONS_H_
