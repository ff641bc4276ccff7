// copy: moves a tensor to another device; inserted by placement (or by a
// user) as the only way across devices. Placement reads the target from the
// "device" attribute; this definition only validates it.
//   operands:   input (any shape)
//   attributes: device (required string, Device::Parse syntax: "cuda:0")
//   output:     the same shape, on `device`

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/device.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/op_util.h"

namespace switchyard {
namespace {

class CopyOp : public OpDef {
 public:
  std::string name() const override { return "copy"; }
  std::vector<std::string> operand_names() const override { return {"input"}; }

  absl::StatusOr<Shape> InferShape(
      const AttrMap& attrs, absl::Span<const Shape> operands) const override {
    SY_RETURN_IF_ERROR(ops_internal::CheckOperandCount(*this, operands));
    SY_RETURN_IF_ERROR(
        ops_internal::CheckKnownAttrs(attrs, name(), {"device"}));
    SY_ASSIGN_OR_RETURN(std::string device, attrs.GetString("device"));
    absl::StatusOr<Device> parsed = Device::Parse(device);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute 'device': ", parsed.status().message()));
    }
    return operands[0];
  }
};

static const bool kRegistered = RegisterOp(std::make_unique<CopyOp>());

}  // namespace
}  // namespace switchyard
