#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {

std::map<std::string, Converter>& Converters() {
  static auto* converters = new std::map<std::string, Converter>;
  return *converters;
}

std::vector<std::string> SupportedOpTypes() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : Converters()) names.push_back(name);
  return names;
}

bool RegisterConverter(const std::string& op_type, Converter converter) {
  Converters()[op_type] = converter;
  return true;
}

}  // namespace onnx_import
}  // namespace switchyard
