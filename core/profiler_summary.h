#ifndef SWITCHYARD_CORE_PROFILER_SUMMARY_H_
#define SWITCHYARD_CORE_PROFILER_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/profiler.h"

namespace switchyard {

// One row of a profile summary: all events of one key on one device.
struct ProfileSummaryRow {
  std::string key;     // an op ("conv2d", "h2d") or a node ("features.3/conv2d")
  std::string device;  // the lane: "cpu:0"
  int64_t calls = 0;
  double total_ms = 0;
  double mean_ms = 0;  // total_ms / calls
  // Of the device time of every node and copy in the profile (all devices).
  double share = 0;
  int64_t flops = 0;   // summed over calls
  double gflop_per_s = 0;  // flops / total time; 0 without FLOPs
};

// Device time by op and by layer, like torch.profiler's key_averages():
// only node and copy events count (runs enclose nodes and would count them
// twice; host spans are not device time). Rows are sorted by total time,
// largest first (ties by key).
struct ProfileSummary {
  std::vector<ProfileSummaryRow> by_op;
  std::vector<ProfileSummaryRow> by_layer;
  // By the first part of each layer's path: "/backbone/body/..." and
  // "rpn/head/..." are stages "backbone" and "rpn" (an exported detector's
  // backbone, RPN, RoI heads and transform). Empty unless the layers name
  // two stages or more.
  std::vector<ProfileSummaryRow> by_stage;
  // Parts of fused kernels (kPart events: the primitives of a dnnl
  // partition, which is one node) by kind ("brgconv_1x1:avx512_core",
  // "host silu") and one by one ("/layer1/conv/conv2d: brgconv:..."); their
  // share is of the same total. Empty when no kernel reported parts.
  std::vector<ProfileSummaryRow> by_part_kind;
  std::vector<ProfileSummaryRow> by_part;
  double total_ms = 0;  // every node and copy event
  int iterations = 0;   // distinct iteration numbers among them
};

ProfileSummary SummarizeProfile(absl::Span<const ProfileEvent> events);

// Two tables as text, `max_rows` rows each (0: all), e.g.
//   by op                calls   total ms   mean ms   share   GFLOP/s
//   conv2d  cpu:0           16    1185.00     74.06   83.1%    102.74
// The stages table follows when there is one, then the kernel parts' tables
// when there are parts, and a verdict line when one
// layer takes a quarter of the time or more:
//   verdict: one op (rpn/NonMaxSuppression) takes 61% of the profiled time (host)
std::string FormatProfileSummary(const ProfileSummary& summary, int max_rows = 0);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PROFILER_SUMMARY_H_
