#include "backends/dnnl/dnnl_partition.h"

#include <omp.h>

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/dnnl/dnnl_builder.h"
#include "backends/dnnl/dnnl_fusion.h"
#include "backends/dnnl/dnnl_partition_kernel.h"

namespace switchyard {
namespace onednn {

absl::StatusOr<std::unique_ptr<Kernel>> BuildPartitionKernel(
    const Graph& graph, const std::vector<NodeId>& nodes,
    const std::vector<ValueId>& inputs, const std::vector<ValueId>& outputs,
    const dnnl::engine& engine, BackendDevice& device,
    PreparedWeights& prepared_weights, WorkspacePool& workspaces,
    const PartitionOptions& options) {
  if (nodes.empty()) {
    return absl::InvalidArgumentError("a dnnl partition needs at least one node");
  }
  // Some primitives size their work split by the thread count at creation.
  omp_set_num_threads(options.threads);
  const std::vector<NodeId> ordered = OrderForFusion(graph, nodes);
  PartitionBuilder builder(graph, ordered, inputs, outputs, engine, device,
                           prepared_weights, workspaces, options.conv_algorithm,
                           options.silu);
  return builder.Build(options.threads);
}

std::vector<std::string> KernelSteps(const Kernel& kernel) {
  const auto* k = dynamic_cast<const PartitionKernel*>(&kernel);
  return k == nullptr ? std::vector<std::string>() : k->steps();
}

std::string DescribePartition(const Graph& graph,
                              const std::vector<NodeId>& nodes) {
  // Counts of each fused group in order of first appearance.
  std::vector<std::pair<std::string, int>> counts;
  const std::vector<NodeId> ordered = OrderForFusion(graph, nodes);
  for (const FusionGroup& g : PlanFusionGroups(graph, ordered)) {
    const std::string name = FusionGroupName(graph, ordered, g);
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == name; });
    if (it == counts.end()) {
      counts.push_back({name, 1});
    } else {
      ++it->second;
    }
  }
  std::vector<std::string> parts;
  for (const auto& [name, n] : counts) {
    parts.push_back(n == 1 ? name : absl::StrCat(name, " x", n));
  }
  // One fused group ("conv2d+relu") is named like the cpu's partitions.
  if (counts.size() == 1 && counts[0].second == 1) return counts[0].first;
  return absl::StrCat("dnnl[", absl::StrJoin(parts, ", "), "]");
}

}  // namespace onednn
}  // namespace switchyard
