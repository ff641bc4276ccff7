#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {

std::map<std::string, Converter>& Converters() {
  static auto* converters = new std::map<std::string, Converter>;
  return *converters;
}

std::string ConverterKey(const std::string& domain, const std::string& op_type) {
  if (domain.empty() || domain == "ai.onnx") return op_type;
  return domain + "." + op_type;
}

std::vector<std::string> SupportedOpTypes() {
  std::vector<std::string> names;
  for (const auto& [name, converter] : Converters()) names.push_back(name);
  return names;
}

bool RegisterConverter(const std::string& op_type, ConvertFn convert,
                       int required_inputs) {
  Converters()[op_type] = Converter{convert, required_inputs};
  return true;
}

}  // namespace onnx_import
}  // namespace switchyard
