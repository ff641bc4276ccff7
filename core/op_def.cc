#include "core/op_def.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/copy_op.h"

namespace switchyard {

int OpSchema::min_inputs() const {
  int count = 0;
  for (const OperandSpec& spec : inputs) {
    if (!spec.optional) ++count;
  }
  return count;
}

int OpSchema::max_inputs() const {
  if (!inputs.empty() && inputs.back().variadic) return -1;
  return static_cast<int>(inputs.size());
}

const AttrSpec* OpSchema::FindAttr(absl::string_view name) const {
  for (const AttrSpec& spec : attrs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string OpSchema::InputsToString() const {
  return absl::StrJoin(inputs, ", ", [](std::string* out, const OperandSpec& s) {
    absl::StrAppend(out, s.name, s.variadic ? "..." : "", s.optional ? "?" : "");
  });
}

absl::Status OpSchema::CheckAttrs(const AttrMap& given,
                                  absl::string_view op) const {
  for (const auto& [name, value] : given.values()) {
    const AttrSpec* spec = FindAttr(name);
    if (spec == nullptr) {
      std::vector<std::string> known;
      for (const AttrSpec& a : attrs) known.push_back(a.name);
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown attribute '", name, "' for ", op, "; known: ",
          known.empty() ? "(none)" : absl::StrJoin(known, ", ")));
    }
    const AttrType type = TypeOf(value);
    // An int is a valid float, as in AttrMap::GetFloat.
    const bool matches = type == spec->type ||
                         (spec->type == AttrType::kFloat && type == AttrType::kInt);
    if (!matches) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute '", name, "' of ", op, " must be ",
          AttrTypeName(spec->type), ", got ", AttrTypeName(type), " ",
          AttrValueToString(value)));
    }
  }
  for (const AttrSpec& spec : attrs) {
    if (!spec.default_value.has_value() && !given.Has(spec.name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attribute '", spec.name, "' of ", op, " is required (",
          AttrTypeName(spec.type),
          spec.constraint.empty() ? "" : absl::StrCat(", ", spec.constraint),
          ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status OpSchema::CheckOperandCount(int given, absl::string_view op) const {
  const int least = min_inputs();
  const int most = max_inputs();
  if (given >= least && (most < 0 || given <= most)) return absl::OkStatus();
  std::string range = absl::StrCat(least);
  if (most < 0) {
    absl::StrAppend(&range, " or more");
  } else if (most != least) {
    absl::StrAppend(&range, " to ", most);
  }
  return absl::InvalidArgumentError(
      absl::StrCat(op, " takes ", range, " operands (", InputsToString(),
                   "), got ", given));
}

std::vector<std::string> OpDef::operand_names() const {
  std::vector<std::string> names;
  for (const OperandSpec& spec : schema().inputs) names.push_back(spec.name);
  return names;
}

absl::StatusOr<std::vector<TensorType>> OpDef::InferTypes(
    const AttrMap& attrs, absl::Span<const TensorType> operands) const {
  const OpSchema& s = schema();
  std::vector<Shape> shapes;
  for (size_t i = 0; i < operands.size(); ++i) {
    const DType dtype = operands[i].dtype;
    const std::string& operand =
        s.inputs.empty() ? "operand"
                         : s.inputs[std::min(i, s.inputs.size() - 1)].name;
    if (!s.dtypes.empty() &&
        std::find(s.dtypes.begin(), s.dtypes.end(), dtype) == s.dtypes.end()) {
      std::vector<std::string> names;
      for (DType d : s.dtypes) names.push_back(DTypeName(d));
      return absl::InvalidArgumentError(absl::StrCat(
          operand, " is ", DTypeName(dtype), "; ", name(), " takes ",
          absl::StrJoin(names, ", ")));
    }
    if (i > 0 && dtype != operands[0].dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          operand, " is ", DTypeName(dtype), " but ",
          s.inputs.empty() ? "operand 0" : s.inputs[0].name, " is ",
          DTypeName(operands[0].dtype),
          "; operands must share one dtype (cast one of them)"));
    }
    shapes.push_back(operands[i].shape);
  }
  absl::StatusOr<Shape> shape = InferShape(attrs, shapes);
  if (!shape.ok()) return shape.status();
  const DType dtype = operands.empty() ? DType::kFloat32 : operands[0].dtype;
  return std::vector<TensorType>{{*std::move(shape), dtype}};
}

OpRegistry::OpRegistry() { ops_["copy"] = MakeCopyOpDef(); }

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry();
  return *registry;
}

absl::Status OpRegistry::Register(std::unique_ptr<OpDef> op) {
  absl::MutexLock lock(&mu_);
  const std::string name = op->name();
  if (ops_.count(name) > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("op '", name, "' is already registered"));
  }
  ops_[name] = std::move(op);
  return absl::OkStatus();
}

absl::StatusOr<const OpDef*> OpRegistry::Find(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = ops_.find(name);
  if (it == ops_.end()) {
    std::vector<std::string> names;
    for (const auto& [known, def] : ops_) names.push_back(known);
    return absl::NotFoundError(absl::StrCat(
        "unknown op '", name, "'; known ops: [", absl::StrJoin(names, ", "),
        "]"));
  }
  return it->second.get();
}

std::vector<std::string> OpRegistry::Names() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, def] : ops_) names.push_back(name);
  return names;
}

bool RegisterOp(std::unique_ptr<OpDef> op) {
  absl::Status status = OpRegistry::Global().Register(std::move(op));
  if (!status.ok()) {
    std::fprintf(stderr, "switchyard: %s\n", status.ToString().c_str());
    return false;
  }
  return true;
}

}  // namespace switchyard
