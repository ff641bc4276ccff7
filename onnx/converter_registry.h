#ifndef SWITCHYARD_ONNX_CONVERTER_REGISTRY_H_
#define SWITCHYARD_ONNX_CONVERTER_REGISTRY_H_

// ONNX op types the importer converts, each to one or more Switchyard ops,
// by a function in onnx/convert_<family>.cc that registers itself:
//
//   SY_REGISTER_ONNX_CONVERTER("Relu", ConvertRelu);
//   SY_REGISTER_ONNX_CONVERTER("Conv", ConvertConv, /*required_inputs=*/2);
//
// The required inputs (ONNX's non-optional ones, 1 unless given) are
// checked before the converter runs, so converters read them unchecked.
//
// Ops of another domain are registered under "domain.op_type": ONNX
// Runtime's contrib ops that its quantizer writes, such as
// "com.microsoft.QLinearAdd".

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "onnx/node_context.h"

namespace switchyard {
namespace onnx_import {

using ConvertFn = absl::Status (*)(NodeContext& ctx);

struct Converter {
  ConvertFn convert = nullptr;
  int required_inputs = 1;
};

// The converters by op_type (ai.onnx) or "domain.op_type".
std::map<std::string, Converter>& Converters();
// The key a node's converter is registered under.
std::string ConverterKey(const std::string& domain, const std::string& op_type);
// Sorted op types, for "supported: ..." in errors and docs/onnx.md.
std::vector<std::string> SupportedOpTypes();

bool RegisterConverter(const std::string& op_type, ConvertFn convert,
                       int required_inputs = 1);

#define SY_ONNX_CONCAT_INNER(a, b) a##b
#define SY_ONNX_CONCAT(a, b) SY_ONNX_CONCAT_INNER(a, b)
#define SY_REGISTER_ONNX_CONVERTER(op_type, ...)                    \
  static const bool SY_ONNX_CONCAT(kOnnxConverter, __COUNTER__) = \
      ::switchyard::onnx_import::RegisterConverter(op_type, __VA_ARGS__)

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_CONVERTER_REGISTRY_H_
