// Every op in OpRegistry::Global() has a well-formed schema, and every op
// with attributes has a typed attribute struct (ops/attr_fields.h) that
// round-trips: a guard that walks the registry, so a new op is checked
// without editing this file.

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/op_def.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

// Ops whose attributes have no typed struct: core's `copy`, whose one
// attribute is read by CopyTarget (core/copy_op.h).
const std::set<std::string>& UntypedOps() {
  static const auto* ops = new std::set<std::string>{"copy"};
  return *ops;
}

// A valid value for a required attribute of `type`.
AttrValue SampleValue(AttrType type) {
  switch (type) {
    case AttrType::kInt:
      return int64_t{1};
    case AttrType::kFloat:
      return 1.0;
    case AttrType::kBool:
      return false;
    case AttrType::kString:
      return std::string("cpu:0");
    case AttrType::kInts:
      return std::vector<int64_t>{1, 1};
    case AttrType::kFloats:
      return std::vector<double>{1.0};
  }
  return int64_t{0};
}

// Every default, plus a sample value for each required attribute.
AttrMap DefaultsAndSamples(const OpSchema& schema) {
  AttrMap attrs;
  for (const AttrSpec& spec : schema.attrs) {
    attrs.Set(spec.name, spec.default_value.has_value()
                             ? *spec.default_value
                             : SampleValue(spec.type));
  }
  return attrs;
}

const OpDef& Find(const std::string& op) {
  absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(op);
  EXPECT_TRUE(def.ok()) << def.status();
  return **def;
}

TEST(OpSchemaTest, EveryOpIsHere) {
  // The ops this library defines, and core's copy: a test that reads the
  // registry proves little if the library did not link.
  EXPECT_THAT(
      OpRegistry::Global().Names(),
      ::testing::IsSupersetOf({"adaptive_avg_pool2d", "add", "batch_norm",
                               "conv2d", "copy", "dropout", "flatten", "linear",
                               "max_pool2d", "non_max_suppression", "relu",
                               "softmax"}));
}

TEST(OpSchemaTest, EveryOpSchemaIsWellFormed) {
  for (const std::string& op : OpRegistry::Global().Names()) {
    SCOPED_TRACE(op);
    const OpDef& def = Find(op);
    EXPECT_EQ(def.name(), op);
    const OpSchema& s = def.schema();

    ASSERT_FALSE(s.inputs.empty()) << "an op reads at least one value";
    ASSERT_FALSE(s.outputs.empty()) << "an op makes at least one value";
    std::set<std::string> names;
    bool optional_seen = false;
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      const OperandSpec& in = s.inputs[i];
      EXPECT_FALSE(in.name.empty()) << "input " << i;
      EXPECT_TRUE(names.insert(in.name).second)
          << "input '" << in.name << "' twice";
      EXPECT_TRUE(in.optional || !optional_seen)
          << "input '" << in.name << "' is required after an optional one";
      optional_seen = optional_seen || in.optional;
      EXPECT_TRUE(!in.variadic || i + 1 == s.inputs.size())
          << "input '" << in.name << "' is variadic but not last";
    }
    std::set<std::string> outputs;
    for (const OperandSpec& out : s.outputs) {
      EXPECT_FALSE(out.name.empty());
      EXPECT_TRUE(outputs.insert(out.name).second)
          << "output '" << out.name << "' twice";
      EXPECT_FALSE(out.optional) << "output '" << out.name << "' is optional";
    }
    EXPECT_EQ(def.operand_names().size(), s.inputs.size());
    EXPECT_EQ(def.min_operands(), s.min_inputs());

    std::set<std::string> attrs;
    for (const AttrSpec& a : s.attrs) {
      EXPECT_FALSE(a.name.empty());
      EXPECT_TRUE(attrs.insert(a.name).second)
          << "attribute '" << a.name << "' twice";
      EXPECT_FALSE(a.constraint.empty())
          << "attribute '" << a.name << "' has no constraint text";
      if (a.default_value.has_value()) {
        EXPECT_EQ(TypeOf(*a.default_value), a.type)
            << "attribute '" << a.name << "' is declared "
            << AttrTypeName(a.type) << " but its default "
            << AttrValueToString(*a.default_value) << " is "
            << AttrTypeName(TypeOf(*a.default_value));
      }
    }
    const std::set<DType> dtypes(s.dtypes.begin(), s.dtypes.end());
    EXPECT_EQ(dtypes.size(), s.dtypes.size()) << "a dtype listed twice";

    // The schema accepts its own defaults, and says what is missing
    // without them.
    const AttrMap full = DefaultsAndSamples(s);
    EXPECT_TRUE(s.CheckAttrs(full, op).ok()) << s.CheckAttrs(full, op);
    for (const AttrSpec& a : s.attrs) {
      if (a.default_value.has_value()) continue;
      AttrMap missing;
      for (const auto& [name, value] : full.values()) {
        if (name != a.name) missing.Set(name, value);
      }
      EXPECT_EQ(s.CheckAttrs(missing, op).code(),
                absl::StatusCode::kInvalidArgument);
    }
    EXPECT_TRUE(s.CheckOperandCount(s.min_inputs(), op).ok());
    EXPECT_FALSE(s.CheckOperandCount(s.min_inputs() - 1, op).ok());
  }
}

TEST(OpSchemaTest, EveryOpWithAttributesHasATypedStruct) {
  for (const std::string& op : OpRegistry::Global().Names()) {
    const OpSchema& s = Find(op).schema();
    if (s.attrs.empty() || UntypedOps().count(op) > 0) continue;
    EXPECT_NE(s.canonical_attrs, nullptr)
        << op << " has attributes but no typed struct; declare one "
        << "(ops/attr_fields.h shows how) and give it to the schema with "
        << "Attrs::DeclareIn(schema)";
  }
}

// Walks every op with a typed struct: FromAttrMap(ToAttrMap(x)) == x,
// ToAttrMap writes every attribute of its declared type, and absent
// attributes read as the schema's defaults.
TEST(OpSchemaTest, TypedStructsRoundTrip) {
  for (const std::string& op : OpRegistry::Global().Names()) {
    SCOPED_TRACE(op);
    const OpSchema& s = Find(op).schema();
    if (s.canonical_attrs == nullptr) continue;

    absl::StatusOr<AttrMap> once = s.canonical_attrs(DefaultsAndSamples(s), op);
    ASSERT_TRUE(once.ok()) << once.status();
    EXPECT_TRUE(s.CheckAttrs(*once, op).ok()) << s.CheckAttrs(*once, op);
    EXPECT_EQ(once->values().size(), s.attrs.size()) << once->ToString();
    absl::StatusOr<AttrMap> twice = s.canonical_attrs(*once, op);
    ASSERT_TRUE(twice.ok()) << twice.status();
    EXPECT_EQ(twice->values(), once->values())
        << once->ToString() << " became " << twice->ToString();

    AttrMap required_only;
    for (const AttrSpec& a : s.attrs) {
      if (!a.default_value.has_value()) {
        required_only.Set(a.name, SampleValue(a.type));
      }
    }
    absl::StatusOr<AttrMap> from_defaults = s.canonical_attrs(required_only, op);
    ASSERT_TRUE(from_defaults.ok()) << from_defaults.status();
    EXPECT_EQ(from_defaults->values(), once->values());
  }
}

}  // namespace
}  // namespace switchyard
