#ifndef SWITCHYARD_CORE_OP_DEF_H_
#define SWITCHYARD_CORE_OP_DEF_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/attributes.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace switchyard {

// What a value is, without its data: shape and dtype.
struct TensorType {
  Shape shape;
  DType dtype = DType::kFloat32;
  bool operator==(const TensorType& o) const {
    return shape == o.shape && dtype == o.dtype;
  }
};

// One input or output of an op, as ONNX's OpSchema FormalParameter.
struct OperandSpec {
  std::string name;       // "input", "weight", "bias"
  bool optional = false;  // may be left out (only trailing operands)
  bool variadic = false;  // the last operand only: one or more values
};

// One attribute: name, type, default (none: required) and a one-line
// description of its constraint, for errors and docs. The typed attribute
// structs (ops/conv_attrs.h, ...) check the constraints.
struct AttrSpec {
  std::string name;
  AttrType type;
  std::optional<AttrValue> default_value;  // nullopt: required
  std::string constraint;                  // "2 values, each >= 1"
};

// The declared interface of an op, as ONNX's OpSchema: inputs, outputs,
// attributes and the dtypes its operands may have. Declared once per op;
// shape inference checks operand counts, attribute names and attribute
// types against it before the op's own InferTypes runs, and importers,
// fuzzers and docs read it.
//
//   OpSchema s;
//   s.inputs = {{"input"}, {"weight"}, {"bias", /*optional=*/true}};
//   s.attrs = {{"groups", AttrType::kInt, int64_t{1}, ">= 1"}};
//   s.dtypes = {DType::kFloat32};
struct OpSchema {
  std::vector<OperandSpec> inputs;
  std::vector<OperandSpec> outputs = {{"output"}};
  std::vector<AttrSpec> attrs;
  // The dtypes the operands may have (empty: any). Ops whose operands differ
  // in dtype (indices, masks) check the others in InferTypes.
  std::vector<DType> dtypes = {DType::kFloat32};
  // The op's typed attribute struct (ops/attr_fields.h) as a function:
  // checks `attrs` and returns them with every default explicit. Null for
  // an op without attributes (or, as core's `copy`, without a struct).
  absl::StatusOr<AttrMap> (*canonical_attrs)(const AttrMap& attrs,
                                             absl::string_view op) = nullptr;

  int min_inputs() const;
  int max_inputs() const;  // -1: unbounded (variadic)
  const AttrSpec* FindAttr(absl::string_view name) const;
  // InvalidArgument for an unknown attribute (listing the known ones), a
  // value of the wrong type, or a missing required attribute.
  absl::Status CheckAttrs(const AttrMap& attrs, absl::string_view op) const;
  // InvalidArgument "conv2d takes 2 to 3 operands (input, weight, bias), got 1".
  absl::Status CheckOperandCount(int given, absl::string_view op) const;
  // "input, weight, bias?" for messages.
  std::string InputsToString() const;
};

// The backend-independent definition of an op: its schema, validation,
// shape and dtype inference and cost. Kernels live in backends; this is
// what every backend agrees the op means. Definitions are in ops/ (and
// `copy`, which placement inserts, in core/copy_op.cc).
class OpDef {
 public:
  virtual ~OpDef() = default;
  virtual std::string name() const = 0;
  virtual const OpSchema& schema() const = 0;

  // Operand names in order ("input", "weight", "bias"), for messages.
  std::vector<std::string> operand_names() const;
  int min_operands() const { return schema().min_inputs(); }

  // Validates attributes and operands and returns each output's shape and
  // dtype. Errors name the bad attribute or operand; the caller adds the
  // node. The default checks every operand's dtype against the schema, and
  // that they agree, then gives one output of InferShape's shape and the
  // first operand's dtype: right for most single-output ops.
  virtual absl::StatusOr<std::vector<TensorType>> InferTypes(
      const AttrMap& attrs, absl::Span<const TensorType> operands) const;

  // The output shape of a single-output op (used by the default InferTypes).
  virtual absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const {
    return absl::UnimplementedError(
        absl::StrCat(name(), " implements InferTypes, not InferShape"));
  }

  // Floating-point operations for one run (a multiply-add counts as 2);
  // INT64_MAX when the count does not fit in int64.
  virtual int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                        const Shape& output) const {
    return 0;
  }
};

// Op definitions by name. Global() is filled by ops/ at static init; tests
// may build their own. Every registry starts with core's own `copy`.
class OpRegistry {
 public:
  OpRegistry();
  static OpRegistry& Global();
  absl::Status Register(std::unique_ptr<OpDef> op);
  // NotFound, listing the known ops.
  absl::StatusOr<const OpDef*> Find(const std::string& name) const;
  std::vector<std::string> Names() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<OpDef>> ops_ ABSL_GUARDED_BY(mu_);
};

// For an op's own .cc: `static const bool kRegistered = RegisterOp(...)`.
bool RegisterOp(std::unique_ptr<OpDef> op);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_OP_DEF_H_
