#ifndef SWITCHYARD_OPS_ATTR_FIELDS_H_
#define SWITCHYARD_OPS_ATTR_FIELDS_H_

// Typed attribute structs declared once. A struct lists each attribute one
// time (name, member, checks, one-line doc); its type and default come from
// the member itself. The schema's AttrSpecs, FromAttrMap (with every check)
// and ToAttrMap are derived from that list, so a default or a name can never
// disagree between them (TVM's TVM_ATTR_FIELD is the idea):
//
//   struct HardSigmoidAttrs {
//     SY_ATTR_STRUCT(HardSigmoidAttrs);
//     static constexpr const char* kOp = "hard_sigmoid";
//     double alpha = 0.2;
//     double beta = 0.5;
//     static void DeclareFields(AttrFields<HardSigmoidAttrs>& f) {
//       f.Field("alpha", &HardSigmoidAttrs::alpha).Finite().Doc("the slope");
//       f.Field("beta", &HardSigmoidAttrs::beta).Finite().Doc("the value at 0");
//     }
//   };
//
//   HardSigmoidAttrs::Specs();              // for the op's schema
//   HardSigmoidAttrs::FromAttrMap(attrs);   // checked, absent = default
//   HardSigmoidAttrs{}.ToAttrMap();         // every attribute, explicit
//
// Member types: int64_t, double, bool, std::string, std::vector<int64_t>,
// std::vector<double>, DType (spelled as DTypeName prints it), an enum with
// a name table (Enum), and N int64 members read as one N-value list (Ints:
// "stride" -> stride_h, stride_w). Checks that involve several attributes,
// or defaults derived from others, go in Finally.

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/attributes.h"
#include "core/dtype.h"
#include "core/op_def.h"

namespace switchyard {

// Largest value a window attribute (kernel, stride, padding, dilation,
// output size) may take. Far beyond any real layer; it keeps the geometry
// arithmetic clear of int64 overflow.
inline constexpr int64_t kMaxAttrWindowValue = int64_t{1} << 30;

namespace attr_fields_internal {

// How a member type is held in an AttrMap.
template <typename M>
struct Codec;

template <>
struct Codec<int64_t> {
  static constexpr AttrType kType = AttrType::kInt;
  static AttrValue Encode(int64_t v) { return v; }
  static absl::StatusOr<int64_t> Decode(const AttrMap& a, absl::string_view name,
                                        absl::string_view) {
    return a.GetInt(name);
  }
};
template <>
struct Codec<double> {
  static constexpr AttrType kType = AttrType::kFloat;
  static AttrValue Encode(double v) { return v; }
  static absl::StatusOr<double> Decode(const AttrMap& a, absl::string_view name,
                                       absl::string_view) {
    return a.GetFloat(name);
  }
};
template <>
struct Codec<bool> {
  static constexpr AttrType kType = AttrType::kBool;
  static AttrValue Encode(bool v) { return v; }
  static absl::StatusOr<bool> Decode(const AttrMap& a, absl::string_view name,
                                     absl::string_view) {
    return a.GetBool(name);
  }
};
template <>
struct Codec<std::string> {
  static constexpr AttrType kType = AttrType::kString;
  static AttrValue Encode(const std::string& v) { return v; }
  static absl::StatusOr<std::string> Decode(const AttrMap& a,
                                            absl::string_view name,
                                            absl::string_view) {
    return a.GetString(name);
  }
};
template <>
struct Codec<std::vector<int64_t>> {
  static constexpr AttrType kType = AttrType::kInts;
  static AttrValue Encode(const std::vector<int64_t>& v) { return v; }
  static absl::StatusOr<std::vector<int64_t>> Decode(const AttrMap& a,
                                                     absl::string_view name,
                                                     absl::string_view) {
    return a.GetInts(name);
  }
};
template <>
struct Codec<std::vector<double>> {
  static constexpr AttrType kType = AttrType::kFloats;
  static AttrValue Encode(const std::vector<double>& v) { return v; }
  static absl::StatusOr<std::vector<double>> Decode(const AttrMap& a,
                                                    absl::string_view name,
                                                    absl::string_view) {
    return a.GetFloats(name);
  }
};
template <>
struct Codec<DType> {
  static constexpr AttrType kType = AttrType::kString;
  static AttrValue Encode(DType v) { return std::string(DTypeName(v)); }
  static absl::StatusOr<DType> Decode(const AttrMap& a, absl::string_view name,
                                      absl::string_view op) {
    absl::StatusOr<std::string> spelled = a.GetString(name);
    if (!spelled.ok()) return spelled.status();
    absl::StatusOr<DType> dtype = ParseDType(*spelled);
    if (!dtype.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute '", name, "' of ", op, ": ", dtype.status().message()));
    }
    return *dtype;
  }
};

// "attribute 'p' must be a probability in [0, 1], got 2".
absl::Status MustBe(absl::string_view name, absl::string_view must_be,
                    const AttrValue& got, absl::string_view hint = "");

}  // namespace attr_fields_internal

// One declared attribute of struct T, type-erased for the list.
template <typename T>
class AttrFieldBase {
 public:
  explicit AttrFieldBase(std::string name, AttrType type) {
    spec_.name = std::move(name);
    spec_.type = type;
  }
  virtual ~AttrFieldBase() = default;

  const std::string& name() const { return spec_.name; }
  bool required() const { return required_; }
  // The AttrSpec, with the default taken from `defaults`.
  AttrSpec Spec(const T& defaults) const {
    AttrSpec spec = spec_;
    if (!required_) spec.default_value = Get(defaults);
    std::vector<std::string> parts = rules_;
    if (!doc_.empty()) parts.push_back(doc_);
    spec.constraint = absl::StrJoin(parts, "; ");
    return spec;
  }
  virtual AttrValue Get(const T& s) const = 0;
  // Reads the attribute when present (else keeps the member) and checks it.
  virtual absl::Status Read(const AttrMap& attrs, absl::string_view op,
                            T& s) const = 0;

 protected:
  std::string doc_;
  std::vector<std::string> rules_;  // "finite", "in [0, 1]": for the doc
  bool required_ = false;

 private:
  AttrSpec spec_;
};

// An attribute held in one member of type M.
template <typename T, typename M>
class AttrField : public AttrFieldBase<T> {
  using Codec = attr_fields_internal::Codec<M>;

 public:
  AttrField(std::string name, M T::*member)
      : AttrFieldBase<T>(std::move(name), Codec::kType), member_(member) {}

  // The one-line description in the schema, after the checks' own words.
  AttrField& Doc(std::string doc) {
    this->doc_ = std::move(doc);
    return *this;
  }
  // No default: the attribute must be given.
  AttrField& Required() {
    this->required_ = true;
    return *this;
  }
  // The value must satisfy `ok`; otherwise InvalidArgument "attribute 'x'
  // must be <must_be>, got <value>". `must_be` also heads the schema's doc.
  // `hint` follows the value in the error: " (PyTorch's default is 1e-5)".
  AttrField& Check(std::function<bool(const M&)> ok, std::string must_be,
                   std::string hint = "") {
    this->rules_.push_back(must_be);
    checks_.push_back([this, ok = std::move(ok), must_be, hint](const M& v) {
      if (ok(v)) return absl::OkStatus();
      return attr_fields_internal::MustBe(this->name(), must_be,
                                          Codec::Encode(v), hint);
    });
    return *this;
  }
  // A check that words its own error (and is not listed in the doc).
  AttrField& CheckStatus(std::function<absl::Status(const M&)> check) {
    checks_.push_back(std::move(check));
    return *this;
  }
  AttrField& AtLeast(int64_t min) {
    return Check([min](const M& v) { return v >= min; }, absl::StrCat(">= ", min));
  }
  AttrField& Finite() {
    return Check([](const M& v) { return std::isfinite(v); }, "finite");
  }
  // Infinities allowed (a bound of -inf is no bound); NaN never.
  AttrField& NotNaN() {
    return Check([](const M& v) { return !std::isnan(v); },
                 "a number (infinities allowed)");
  }
  AttrField& InRange(double low, double high, std::string words = "") {
    return Check([low, high](const M& v) { return v >= low && v <= high; },
                 words.empty() ? absl::StrCat("in [", low, ", ", high, "]")
                               : std::move(words));
  }

  AttrValue Get(const T& s) const override { return Codec::Encode(s.*member_); }
  absl::Status Read(const AttrMap& attrs, absl::string_view op,
                    T& s) const override {
    if (attrs.Has(this->name())) {
      absl::StatusOr<M> v = Codec::Decode(attrs, this->name(), op);
      if (!v.ok()) return v.status();
      s.*member_ = *std::move(v);
    }
    for (const auto& check : checks_) {
      absl::Status status = check(s.*member_);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

 private:
  M T::*member_;
  std::vector<std::function<absl::Status(const M&)>> checks_;
};

// An attribute of N int64 members read as one N-value int list.
template <typename T>
class AttrIntsField : public AttrFieldBase<T> {
 public:
  AttrIntsField(std::string name, std::vector<int64_t T::*> members)
      : AttrFieldBase<T>(std::move(name), AttrType::kInts),
        members_(std::move(members)) {}

  AttrIntsField& Doc(std::string doc) {
    this->doc_ = std::move(doc);
    return *this;
  }
  AttrIntsField& Required() {
    this->required_ = true;
    return *this;
  }
  // A window attribute (kernel, stride, padding, dilation, output size):
  // every value >= `min` and at most kMaxWindowValue, which keeps the
  // geometry arithmetic clear of int64 overflow.
  AttrIntsField& Window(int64_t min) {
    window_min_ = min;
    this->rules_.push_back(absl::StrCat(members_.size(), " values",
                                        members_.size() == 2 ? " (height, width)" : "",
                                        ", each >= ", min));
    return *this;
  }
  // What the values are, for errors and the doc: "top, left, bottom, right".
  AttrIntsField& Names(std::string names) {
    names_ = std::move(names);
    this->rules_.push_back(absl::StrCat(members_.size(), " values (", names_, ")"));
    return *this;
  }
  // [] stands for all members 0 (which Finally then resolves, e.g. a
  // stride of the kernel's size).
  AttrIntsField& EmptyMeansZeros() {
    empty_means_zeros_ = true;
    return *this;
  }

  AttrValue Get(const T& s) const override {
    std::vector<int64_t> values;
    bool all_zero = true;
    for (auto m : members_) {
      values.push_back(s.*m);
      all_zero = all_zero && s.*m == 0;
    }
    if (empty_means_zeros_ && all_zero) values.clear();
    return values;
  }
  absl::Status Read(const AttrMap& attrs, absl::string_view op,
                    T& s) const override;

 private:
  std::vector<int64_t T::*> members_;
  int64_t window_min_ = -1;  // -1: no window rule
  std::string names_;
  bool empty_means_zeros_ = false;
};

// An enum member spelled by name ("constant", "reflect", "edge").
template <typename T, typename E>
class AttrEnumField : public AttrFieldBase<T> {
 public:
  AttrEnumField(std::string name, E T::*member,
                std::vector<std::pair<E, std::string>> names)
      : AttrFieldBase<T>(std::move(name), AttrType::kString),
        member_(member),
        names_(std::move(names)) {
    this->rules_.push_back(Spelled());
  }
  AttrEnumField& Doc(std::string doc) {
    this->doc_ = std::move(doc);
    return *this;
  }
  AttrValue Get(const T& s) const override {
    for (const auto& [value, name] : names_) {
      if (value == s.*member_) return name;
    }
    return std::string("?");
  }
  absl::Status Read(const AttrMap& attrs, absl::string_view op,
                    T& s) const override {
    if (!attrs.Has(this->name())) return absl::OkStatus();
    absl::StatusOr<std::string> given = attrs.GetString(this->name());
    if (!given.ok()) return given.status();
    for (const auto& [value, name] : names_) {
      if (name == *given) {
        s.*member_ = value;
        return absl::OkStatus();
      }
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "attribute '", this->name(), "' must be ", Spelled(), ", got '",
        *given, "'"));
  }

 private:
  // "constant, reflect or edge".
  std::string Spelled() const {
    std::string out;
    for (size_t i = 0; i < names_.size(); ++i) {
      if (i > 0) out += i + 1 == names_.size() ? " or " : ", ";
      out += names_[i].second;
    }
    return out;
  }
  E T::*member_;
  std::vector<std::pair<E, std::string>> names_;
};

// The declared attributes of struct T, in order, and what derives from them.
template <typename T>
class AttrFields {
 public:
  template <typename M>
  AttrField<T, M>& Field(std::string name, M T::*member) {
    return Add(std::make_unique<AttrField<T, M>>(std::move(name), member));
  }
  AttrIntsField<T>& Ints(std::string name, std::vector<int64_t T::*> members) {
    return Add(std::make_unique<AttrIntsField<T>>(std::move(name),
                                                  std::move(members)));
  }
  template <typename E>
  AttrEnumField<T, E>& Enum(std::string name, E T::*member,
                            std::vector<std::pair<E, std::string>> names) {
    return Add(std::make_unique<AttrEnumField<T, E>>(std::move(name), member,
                                                     std::move(names)));
  }
  // Runs after every field is read: checks across attributes, defaults that
  // depend on other attributes.
  void Finally(std::function<absl::Status(T&)> finish) {
    finish_ = std::move(finish);
  }

  std::vector<AttrSpec> Specs() const {
    const T defaults{};
    std::vector<AttrSpec> specs;
    for (const auto& f : fields_) specs.push_back(f->Spec(defaults));
    return specs;
  }
  absl::StatusOr<T> Parse(const AttrMap& attrs, absl::string_view op,
                          const std::vector<AttrSpec>& specs) const {
    OpSchema schema;
    schema.attrs = specs;
    absl::Status known = schema.CheckAttrs(attrs, op);
    if (!known.ok()) return known;
    T s;
    for (const auto& f : fields_) {
      absl::Status status = f->Read(attrs, op, s);
      if (!status.ok()) return status;
    }
    if (finish_) {
      absl::Status status = finish_(s);
      if (!status.ok()) return status;
    }
    return s;
  }
  AttrMap ToAttrMap(const T& s) const {
    AttrMap attrs;
    for (const auto& f : fields_) attrs.Set(f->name(), f->Get(s));
    return attrs;
  }

 private:
  template <typename F>
  F& Add(std::unique_ptr<F> field) {
    F& ref = *field;
    fields_.push_back(std::move(field));
    return ref;
  }
  std::vector<std::unique_ptr<AttrFieldBase<T>>> fields_;
  std::function<absl::Status(T&)> finish_;
};

// What SY_ATTR_STRUCT gives a struct: Specs, FromAttrMap and ToAttrMap from
// T::DeclareFields, with T::kOp naming the op in errors.
template <typename T>
class AttrStructOf {
 public:
  static const std::vector<AttrSpec>& Specs() { return Declared().specs; }
  static absl::StatusOr<T> FromAttrMap(const AttrMap& attrs,
                                       absl::string_view op) {
    return Declared().fields.Parse(attrs, op, Declared().specs);
  }
  static AttrMap ToAttrMap(const T& s) { return Declared().fields.ToAttrMap(s); }
  // FromAttrMap then ToAttrMap: every attribute explicit and checked.
  static absl::StatusOr<AttrMap> Canonical(const AttrMap& attrs,
                                           absl::string_view op) {
    absl::StatusOr<T> parsed = FromAttrMap(attrs, op);
    if (!parsed.ok()) return parsed.status();
    return ToAttrMap(*parsed);
  }

 private:
  struct Declaration {
    AttrFields<T> fields;
    std::vector<AttrSpec> specs;
  };
  static const Declaration& Declared() {
    static const Declaration* d = [] {
      auto* d = new Declaration;
      T::DeclareFields(d->fields);
      d->specs = d->fields.Specs();
      return d;
    }();
    return *d;
  }
};

// In the body of a typed attribute struct T (which stays an aggregate, so
// `Conv2dAttrs{...}` and `{1, 2}` arguments work): declares
//   static const std::vector<AttrSpec>& Specs();    // the schema's part
//   static absl::StatusOr<T> FromAttrMap(attrs);    // checked; absent: default
//   static absl::StatusOr<T> FromAttrMap(attrs, op);// a struct ops share
//   AttrMap ToAttrMap() const;                      // every attribute
//   static absl::StatusOr<AttrMap> Canonical(attrs, op);
//   static void DeclareIn(OpSchema& schema);        // attrs + canonical_attrs
#define SY_ATTR_STRUCT(T)                                                    \
  static const std::vector<::switchyard::AttrSpec>& Specs() {                \
    return ::switchyard::AttrStructOf<T>::Specs();                           \
  }                                                                          \
  static ::absl::StatusOr<T> FromAttrMap(const ::switchyard::AttrMap& a) {   \
    return ::switchyard::AttrStructOf<T>::FromAttrMap(a, T::kOp);            \
  }                                                                          \
  static ::absl::StatusOr<T> FromAttrMap(const ::switchyard::AttrMap& a,     \
                                         ::absl::string_view op) {           \
    return ::switchyard::AttrStructOf<T>::FromAttrMap(a, op);                \
  }                                                                          \
  ::switchyard::AttrMap ToAttrMap() const {                                  \
    return ::switchyard::AttrStructOf<T>::ToAttrMap(*this);                  \
  }                                                                          \
  static ::absl::StatusOr<::switchyard::AttrMap> Canonical(                  \
      const ::switchyard::AttrMap& a, ::absl::string_view op) {              \
    return ::switchyard::AttrStructOf<T>::Canonical(a, op);                  \
  }                                                                          \
  static void DeclareIn(::switchyard::OpSchema& schema) {                    \
    schema.attrs = Specs();                                                  \
    schema.canonical_attrs = &Canonical;                                     \
  }

template <typename T>
absl::Status AttrIntsField<T>::Read(const AttrMap& attrs, absl::string_view op,
                                    T& s) const {
  if (!attrs.Has(this->name())) return absl::OkStatus();
  absl::StatusOr<std::vector<int64_t>> given = attrs.GetInts(this->name());
  if (!given.ok()) return given.status();
  const std::vector<int64_t>& v = *given;
  if (empty_means_zeros_ && v.empty()) {
    for (auto m : members_) s.*m = 0;
    return absl::OkStatus();
  }
  const size_t n = members_.size();
  bool ok = v.size() == n;
  for (int64_t x : v) ok = ok && (window_min_ < 0 || x >= window_min_);
  if (!ok) {
    const char* what = window_min_ == 1   ? " positive"
                       : window_min_ == 0 ? " non-negative"
                                          : "";
    return absl::InvalidArgumentError(
        absl::StrCat("attribute '", this->name(), "' must have ", n, what,
                     " values", names_.empty() ? "" : absl::StrCat(" (", names_, ")"),
                     ", got [", absl::StrJoin(v, ", "), "]"));
  }
  if (window_min_ >= 0) {
    for (int64_t x : v) {
      if (x > kMaxAttrWindowValue) {
        return absl::InvalidArgumentError(absl::StrCat(
            "attribute '", this->name(), "' value ", x,
            " is too large (at most ", kMaxAttrWindowValue, ")"));
      }
    }
  }
  for (size_t i = 0; i < n; ++i) s.*members_[i] = v[i];
  return absl::OkStatus();
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_ATTR_FIELDS_H_
