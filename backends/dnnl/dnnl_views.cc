// flatten, reshape and dropout (inference) on the dnnl device: the same
// row-major elements under another shape, so no primitive: the output
// aliases the input's bytes. A flatten of a blocked NCHW value stays
// blocked; whoever reads it asks for the layout it needs (a linear reads
// it as is, see dnnl_linear.cc).

#include "backends/dnnl/dnnl_lowering.h"

namespace switchyard {
namespace onednn {

absl::Status LowerView(PartitionBuilder& b, const FusionGroup&,
                       const Node& node, ValueId) {
  return b.Alias(node.outputs[0], node.inputs[0]);
}

}  // namespace onednn
}  // namespace switchyard
