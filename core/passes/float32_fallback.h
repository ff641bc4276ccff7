#ifndef SWITCHYARD_CORE_PASSES_FLOAT32_FALLBACK_H_
#define SWITCHYARD_CORE_PASSES_FLOAT32_FALLBACK_H_

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/backend_registry.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/pass.h"

namespace switchyard {

// Runs float16 and bfloat16 nodes in float32 where the backend has only a
// float32 kernel, as ONNX Runtime's InsertCastTransformer: for each node
// whose device cannot run it (BackendDevice::Supports) but could with its
// float16/bfloat16 operands and outputs as float32, it casts those operands
// up and the outputs back down, so the graph's values keep the model's
// dtypes. Neighbouring fallback nodes pass float32 between them: an output
// is cast down only when a node that runs the narrow dtype, or the graph's
// outputs, read it. A narrow constant is converted once, now, into a new
// float32 constant, so weights stay constants (and prepared weights still
// apply). Nodes the device runs as they are stay as they are. A narrow
// value the model itself cast down from float32 is read by fallback nodes as
// that float32 value (the cast up they need cancels the model's cast down),
// as ONNX Runtime's cast insertion does.
//
//   before (cpu:0 has no float16 conv2d or relu):
//     conv/conv2d(x f16, conv.weight f16) -> conv/conv2d:0 f16
//     act/relu(conv/conv2d:0 f16) -> y f16                  (graph output)
//   after:
//     conv/conv2d/float32_fallback/cast_in0(x f16) -> f32
//     conv/conv2d(cast_in0:0 f32, conv.weight/float32_fallback f32) -> f32
//     act/relu(conv/conv2d:0 f32) -> y/float32 f32
//     act/relu/float32_fallback/cast_out0(y/float32 f32) -> y f16
//
// The added nodes are ordinary nodes whose layer ends in
// "/float32_fallback", so `switchyard graph` and the profiler show them.
// Where the node's device has no kernel for the cast itself (the oneDNN
// plugin runs float32 only) the cast runs on cpu:0 between two copies.
// A node with an attribute naming float16 or bfloat16 (cast's "to") makes
// that dtype itself and is left alone.
//
// Runs after placement (each node's own device decides), or, under the
// auto placement policy, before it, with the devices auto placement may
// choose (its target, then its fallback): a node counts as runnable when
// any of them runs it, and the new nodes are left for auto placement to
// place.
class Float32FallbackPass : public Pass {
 public:
  // After placement.
  explicit Float32FallbackPass(BackendRegistry& registry)
      : registry_(registry) {}
  // Before placement: nodes are judged against `candidates`.
  Float32FallbackPass(BackendRegistry& registry, std::vector<Device> candidates)
      : registry_(registry), candidates_(std::move(candidates)), placed_(false) {}

  std::string name() const override { return "float32-fallback"; }
  absl::StatusOr<bool> Run(Graph& graph) override;

  // The nodes the last Run moved to float32, by name, in graph order.
  const std::vector<std::string>& fallback_nodes() const {
    return fallback_nodes_;
  }

 private:
  // True when `device` has a cast kernel from `from` to `to`.
  bool CanCast(const Device& device, DType from, DType to);

  BackendRegistry& registry_;
  std::vector<Device> candidates_;
  bool placed_ = true;
  std::map<std::tuple<std::string, DType, DType>, bool> can_cast_;
  std::vector<std::string> fallback_nodes_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PASSES_FLOAT32_FALLBACK_H_
