#include "core/attributes.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace switchyard {
namespace {

std::string ValueToString(const AttrValue& v) { return AttrValueToString(v); }

const char* TypeName(const AttrValue& v) { return AttrTypeName(TypeOf(v)); }

template <typename T>
absl::StatusOr<T> Get(const std::map<std::string, AttrValue>& values,
                      absl::string_view name, const char* wanted) {
  auto it = values.find(std::string(name));
  if (it == values.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute '", name, "' is missing"));
  }
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  return absl::InvalidArgumentError(absl::StrCat(
      "attribute '", name, "' must be ", wanted, ", got ",
      TypeName(it->second), " ", ValueToString(it->second)));
}

}  // namespace

AttrType TypeOf(const AttrValue& value) {
  return static_cast<AttrType>(value.index());
}

const char* AttrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kInt: return "int";
    case AttrType::kFloat: return "float";
    case AttrType::kBool: return "bool";
    case AttrType::kString: return "string";
    case AttrType::kInts: return "int list";
    case AttrType::kFloats: return "float list";
  }
  return "unknown";
}

std::string AttrValueToString(const AttrValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return absl::StrCat(*i);
  if (const auto* d = std::get_if<double>(&v)) return absl::StrCat(*d);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&v)) return absl::StrCat("'", *s, "'");
  if (const auto* f = std::get_if<std::vector<double>>(&v)) {
    return absl::StrCat("[", absl::StrJoin(*f, ", "), "]");
  }
  return absl::StrCat("[", absl::StrJoin(std::get<std::vector<int64_t>>(v), ", "),
                      "]");
}

absl::StatusOr<std::vector<double>> AttrMap::GetFloats(
    absl::string_view name) const {
  return Get<std::vector<double>>(values_, name, "a float list");
}

absl::StatusOr<int64_t> AttrMap::GetInt(absl::string_view name) const {
  return Get<int64_t>(values_, name, "an int");
}
absl::StatusOr<bool> AttrMap::GetBool(absl::string_view name) const {
  return Get<bool>(values_, name, "a bool");
}
absl::StatusOr<std::string> AttrMap::GetString(absl::string_view name) const {
  return Get<std::string>(values_, name, "a string");
}
absl::StatusOr<std::vector<int64_t>> AttrMap::GetInts(
    absl::string_view name) const {
  return Get<std::vector<int64_t>>(values_, name, "an int list");
}
absl::StatusOr<double> AttrMap::GetFloat(absl::string_view name) const {
  auto it = values_.find(std::string(name));
  if (it != values_.end()) {
    if (const auto* i = std::get_if<int64_t>(&it->second)) {
      return static_cast<double>(*i);
    }
  }
  return Get<double>(values_, name, "a float");
}

absl::StatusOr<int64_t> AttrMap::GetInt(absl::string_view name,
                                        int64_t fallback) const {
  return Has(name) ? GetInt(name) : fallback;
}
absl::StatusOr<double> AttrMap::GetFloat(absl::string_view name,
                                         double fallback) const {
  return Has(name) ? GetFloat(name) : fallback;
}
absl::StatusOr<bool> AttrMap::GetBool(absl::string_view name,
                                      bool fallback) const {
  return Has(name) ? GetBool(name) : fallback;
}
absl::StatusOr<std::vector<int64_t>> AttrMap::GetInts(
    absl::string_view name, std::vector<int64_t> fallback) const {
  if (!Has(name)) return fallback;
  return GetInts(name);
}

std::string AttrMap::ToString() const {
  return absl::StrJoin(values_, ", ", [](std::string* out, const auto& kv) {
    absl::StrAppend(out, kv.first, "=", ValueToString(kv.second));
  });
}

}  // namespace switchyard
