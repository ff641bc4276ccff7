#ifndef SWITCHYARD_ONNX_LOOP_NODE_H_
#define SWITCHYARD_ONNX_LOOP_NODE_H_

// The shape of an ONNX Loop node, checked once for its converter and for the
// staged runner that drives it (onnx/staged_loop.cc). A Loop reads
// (M, cond, v_initial...) and its body graph maps
// (iteration_num, cond_in, v_in...) to (cond_out, v_out..., scan...); the
// node's outputs are the final v (N of them) and each scan output stacked
// over the iterations (K of them).

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {

struct LoopSignature {
  const onnx::GraphProto* body = nullptr;
  int carried = 0;  // N: loop-carried values
  int scans = 0;    // K: scan outputs
};

// InvalidArgument naming what is wrong: no body, or counts that disagree.
absl::StatusOr<LoopSignature> ReadLoopSignature(const onnx::NodeProto& node);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_LOOP_NODE_H_
