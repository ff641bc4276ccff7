#ifndef SWITCHYARD_CORE_COPY_OP_H_
#define SWITCHYARD_CORE_COPY_OP_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/device.h"
#include "core/graph.h"
#include "core/op_def.h"

namespace switchyard {

// `copy`: core's own op, the only way a value crosses devices. The auto
// placement pass inserts it (and a user may); core runs it through
// CopyTensor on any pair of devices, so no backend implements it.
//   operands:   input (any shape, any dtype)
//   attributes: device (required string, Device::Parse syntax: "cuda:0")
//   output:     the same shape and dtype, on `device`
inline constexpr char kCopyOp[] = "copy";

// The OpDef every OpRegistry starts with.
std::unique_ptr<OpDef> MakeCopyOpDef();

// The target device of a copy node; InvalidArgument naming the node when
// its "device" attribute is missing or malformed.
absl::StatusOr<Device> CopyTarget(const Node& node);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_COPY_OP_H_
