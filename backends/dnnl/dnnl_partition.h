#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_PARTITION_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_PARTITION_H_

// A run of consecutive graph nodes lowered onto oneDNN primitives, the
// kernel of one partition of the dnnl device.
//
// Layout: activations inside the partition stay in the layouts oneDNN picks
// (convolutions are created with format_tag::any for source, weights and
// destination: nChw8c/nChw16c blocked on AVX2/AVX-512), and a value is
// reordered only where a primitive wants another layout than its producer
// made: in practice at the partition's edges (plain row-major in, plain
// row-major out) and before the few primitives that want plain data
// (softmax, a reshape that is not a flatten feeding a linear).
// flatten, reshape and dropout are no primitive at all: the value is
// reinterpreted, and a flatten of a blocked NCHW value into a linear runs
// the inner product on the 4-D blocked source directly.
//
// Fusion (primitive attributes, post-ops): conv2d(+bias) followed by an add
// of a same-shape value (the residual: a sum post-op accumulating into the
// destination) and/or a unary elementwise node (relu, clip, sigmoid, gelu,
// ...: an eltwise post-op) or SiLU (sigmoid and mul: a swish post-op); the
// same eltwise post-ops after linear and the binary ops (add, sub, mul,
// div); batch_norm+relu (fuse_norm_relu). The op table (dnnl_op_table.h)
// says which op takes which, dnnl_fusion.h forms the groups, and each op's
// lowering is in the file of its family.
//
// Everything is created once, when the kernel is made (at lowering):
// primitive descriptors, primitives, weights reordered into the layout the
// primitive chose, the intermediate buffers (reused between values whose
// lifetimes do not overlap) and one user scratchpad for all primitives.
// Run() only points the edge memories at the tensors and executes.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/dnnl/dnnl_conv_algorithm.h"
#include "backends/dnnl/dnnl_silu.h"
#include "core/backend.h"
#include "core/graph.h"
#include "core/prepared_weights.h"
#include "core/workspace_pool.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace switchyard {
namespace onednn {

struct PartitionOptions {
  int threads = 1;  // OpenMP threads for creation and runs
  DnnlConvAlgorithm conv_algorithm = DnnlConvAlgorithm::kAuto;
  DnnlSilu silu = DnnlSilu::kAuto;
};

// The kernel of `nodes` (consecutive, each passing CheckNode), whose Run
// takes `inputs` and writes `outputs` (value ids, in that order: the
// partition's PartitionInputs/PartitionOutputs, or one node's own operand
// lists). Constants among the nodes' parameters are read now, from
// `device`'s buffers, and never again; their reorders into a primitive's
// layout are kept in `prepared_weights` (the device's), so the plans of many
// input shapes reorder each weight once. Intermediate values and
// scratchpads are borrowed from `workspaces` (the device's) for each run.
absl::StatusOr<std::unique_ptr<Kernel>> BuildPartitionKernel(
    const Graph& graph, const std::vector<NodeId>& nodes,
    const std::vector<ValueId>& inputs, const std::vector<ValueId>& outputs,
    const dnnl::engine& engine, BackendDevice& device,
    PreparedWeights& prepared_weights, WorkspacePool& workspaces,
    const PartitionOptions& options);

// What a kernel BuildPartitionKernel made runs, one line per primitive:
// "features.0/conv2d: jit:avx2", "reorder to plain: ...", "output: ...".
// Empty for any other kernel. For tests and debugging (in the same binary
// as this code: RTTI does not cross the plugin boundary).
std::vector<std::string> KernelSteps(const Kernel& kernel);

// "conv2d+relu x8, max_pool2d x5, ...": the partition's name in `graph` and
// the profiler, from its nodes and the fusions the builder will make.
std::string DescribePartition(const Graph& graph,
                              const std::vector<NodeId>& nodes);

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_PARTITION_H_
