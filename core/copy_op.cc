#include "core/copy_op.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/graph.h"

namespace switchyard {
namespace {

class CopyOp : public OpDef {
 public:
  std::string name() const override { return kCopyOp; }
  const OpSchema& schema() const override {
    static const auto* schema = [] {
      auto* s = new OpSchema;
      s->inputs = {{"input"}};
      s->attrs = {{"device", AttrType::kString, std::nullopt,
                   "a device such as 'cuda:0'"}};
      s->dtypes = {};  // any
      return s;
    }();
    return *schema;
  }

  absl::StatusOr<std::vector<TensorType>> InferTypes(
      const AttrMap& attrs, absl::Span<const TensorType> operands) const override {
    absl::StatusOr<std::string> device = attrs.GetString("device");
    if (!device.ok()) return device.status();
    absl::StatusOr<Device> parsed = Device::Parse(*device);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("attribute 'device': ", parsed.status().message()));
    }
    return std::vector<TensorType>{operands[0]};
  }
};

}  // namespace

std::unique_ptr<OpDef> MakeCopyOpDef() { return std::make_unique<CopyOp>(); }

absl::StatusOr<Device> CopyTarget(const Node& node) {
  absl::StatusOr<std::string> target = node.attrs.GetString("device");
  if (!target.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(DescribeNode(node), ": ", target.status().message()));
  }
  absl::StatusOr<Device> parsed = Device::Parse(*target);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(DescribeNode(node), ": ", parsed.status().message()));
  }
  return *parsed;
}

}  // namespace switchyard
