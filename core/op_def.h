#ifndef SWITCHYARD_CORE_OP_DEF_H_
#define SWITCHYARD_CORE_OP_DEF_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/attributes.h"
#include "core/shape.h"

namespace switchyard {

// The backend-independent definition of an op: operand names, attribute
// validation, shape inference and cost. Kernels live in backends; this is
// what every backend agrees the op means. Definitions are in ops/.
class OpDef {
 public:
  virtual ~OpDef() = default;
  virtual std::string name() const = 0;
  // Operand names in order ("input", "weight", "bias"), for error messages.
  virtual std::vector<std::string> operand_names() const = 0;
  // Fewest operands accepted (optional trailing operands, such as a bias,
  // make it smaller than operand_names().size()).
  virtual int min_operands() const {
    return static_cast<int>(operand_names().size());
  }
  // Validates attributes and operand shapes and returns the output shape.
  // Errors name the bad attribute or operand; the caller adds the node.
  virtual absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const = 0;
  // Floating-point operations for one run (a multiply-add counts as 2);
  // INT64_MAX when the count does not fit in int64.
  virtual int64_t Flops(const AttrMap& attrs, absl::Span<const Shape> operands,
                        const Shape& output) const {
    return 0;
  }
};

// Op definitions by name. Global() is filled by ops/ at static init; tests
// may build their own.
class OpRegistry {
 public:
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
