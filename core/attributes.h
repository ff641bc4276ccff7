#ifndef SWITCHYARD_CORE_ATTRIBUTES_H_
#define SWITCHYARD_CORE_ATTRIBUTES_H_

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace switchyard {

using AttrValue = std::variant<int64_t, double, bool, std::string,
                               std::vector<int64_t>, std::vector<double>>;

// The kinds of AttrValue, in the variant's order (an op schema declares
// each attribute's; core/op_def.h).
enum class AttrType { kInt, kFloat, kBool, kString, kInts, kFloats };

AttrType TypeOf(const AttrValue& value);
// "int", "float", "bool", "string", "int list", "float list".
const char* AttrTypeName(AttrType type);
// "3", "0.5", "true", "'cuda:0'", "[1, 1]".
std::string AttrValueToString(const AttrValue& value);

// The attributes of a graph node (stride, padding, ...), by name. Typed
// getters return InvalidArgument naming the attribute when it is missing or
// has another type, so op validation reads like the op's documentation.
//
//   AttrMap a;
//   a.Set("stride", std::vector<int64_t>{2, 2});
//   absl::StatusOr<std::vector<int64_t>> s = a.GetInts("stride");
class AttrMap {
 public:
  void Set(const std::string& name, AttrValue value) {
    values_[name] = std::move(value);
  }
  bool Has(absl::string_view name) const {
    return values_.find(std::string(name)) != values_.end();
  }
  const std::map<std::string, AttrValue>& values() const { return values_; }

  absl::StatusOr<int64_t> GetInt(absl::string_view name) const;
  absl::StatusOr<double> GetFloat(absl::string_view name) const;  // ints too
  absl::StatusOr<bool> GetBool(absl::string_view name) const;
  absl::StatusOr<std::string> GetString(absl::string_view name) const;
  absl::StatusOr<std::vector<int64_t>> GetInts(absl::string_view name) const;
  absl::StatusOr<std::vector<double>> GetFloats(absl::string_view name) const;

  // With a default for an absent attribute; a present one of the wrong type
  // is still an error.
  absl::StatusOr<int64_t> GetInt(absl::string_view name, int64_t fallback) const;
  absl::StatusOr<double> GetFloat(absl::string_view name, double fallback) const;
  absl::StatusOr<bool> GetBool(absl::string_view name, bool fallback) const;
  absl::StatusOr<std::vector<int64_t>> GetInts(
      absl::string_view name, std::vector<int64_t> fallback) const;

  // "stride=[2, 2], groups=1".
  std::string ToString() const;

 private:
  std::map<std::string, AttrValue> values_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_ATTRIBUTES_H_
