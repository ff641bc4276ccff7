#ifndef SWITCHYARD_ONNX_CONVERTER_REGISTRY_H_
#define SWITCHYARD_ONNX_CONVERTER_REGISTRY_H_

// ONNX op types the importer converts, each to one or more Switchyard ops,
// by a function in onnx/convert_<family>.cc that registers itself:
//
//   SY_REGISTER_ONNX_CONVERTER("Relu", ConvertRelu);
//
// The default domain (ai.onnx) only.

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "onnx/node_context.h"

namespace switchyard {
namespace onnx_import {

using Converter = absl::Status (*)(NodeContext& ctx);

// The converters by op_type.
std::map<std::string, Converter>& Converters();
// Sorted op types, for "supported: ..." in errors and docs/onnx.md.
std::vector<std::string> SupportedOpTypes();

bool RegisterConverter(const std::string& op_type, Converter converter);

#define SY_ONNX_CONCAT_INNER(a, b) a##b
#define SY_ONNX_CONCAT(a, b) SY_ONNX_CONCAT_INNER(a, b)
#define SY_REGISTER_ONNX_CONVERTER(op_type, fn)                     \
  static const bool SY_ONNX_CONCAT(kOnnxConverter, __COUNTER__) = \
      ::switchyard::onnx_import::RegisterConverter(op_type, fn)

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_CONVERTER_REGISTRY_H_
