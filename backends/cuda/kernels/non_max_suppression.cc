// non_max_suppression (rules: ops/non_max_suppression.cc) on a GPU, the
// parallel bitmask form (kernels/non_max_suppression.cu):
//   1. host: the scores come back once and each (batch, class) segment's
//      candidates are ordered there (ops/nms_geometry.h NmsCandidateOrder,
//      the CPU's own code, so ties and NaN follow one rule); the order goes
//      up with a table of segments, one copy;
//   2. GPU: every candidate's box decoded to double; per segment, the IoU of
//      each pair of 64-candidate blocks into a bit matrix; one warp per
//      segment walks it to keep boxes (stopping at max_output_boxes_per_class);
//      the rows packed into the padded output. Nothing but the scores and
//      the order crosses the bus.
// The bit matrix takes K * ceil(K / 64) * 8 bytes per segment of K
// candidates (50 MB at K = 20,000), from the device's caching allocator; its
// scratch is released when Run returns, which is safe because the stream
// orders its reuse after these kernels.

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/non_max_suppression.cuh"
#include "ops/nms_attrs.h"
#include "ops/nms_geometry.h"

namespace switchyard {
namespace cuda {
namespace {

constexpr int64_t kBits = 64;

int64_t Words(int64_t count) { return (count + kBits - 1) / kBits; }

class NonMaxSuppressionKernel : public Kernel {
 public:
  NonMaxSuppressionKernel(CudaDevice& device,
                          const NonMaxSuppressionAttrs& attrs)
      : device_(device), attrs_(attrs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& shape = inputs[1]->shape();  // scores [N, C, B]
    const int64_t batches = shape.dim(0), classes = shape.dim(1);
    const int64_t count = shape.dim(2);
    const int64_t segments = batches * classes;
    const int64_t limit =
        NmsRowsPerClass(count, attrs_.max_output_boxes_per_class);
    const int64_t capacity = outputs[0]->shape().dim(0);
    int64_t* rows = outputs[0]->data<int64_t>();
    int64_t* num_selected = outputs[1]->data<int64_t>();
    SY_RETURN_IF_ERROR(device_.Activate());
    if (limit == 0 || segments == 0) {
      SY_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(num_selected, 0, sizeof(int64_t),
                                              device_.stream()),
                              device_.name());
      return absl::OkStatus();
    }
    if (segments > kernels::kMaxNmsSegments) {
      return absl::UnimplementedError(absl::StrCat(
          "non_max_suppression on ", device_.name(), " runs at most ",
          kernels::kMaxNmsSegments, " (batch, class) pairs, got ", segments));
    }

    // 1. The candidates of every segment, in visiting order, on the host.
    SY_ASSIGN_OR_RETURN(std::vector<float> scores, inputs[1]->ToHost<float>());
    std::vector<int64_t> table(4 * segments);  // then the order, appended
    std::vector<int64_t> order;
    std::vector<int64_t> segment_order;
    int64_t total = 0, mask_words = 0, removed_words = 0;
    for (int64_t s = 0; s < segments; ++s) {
      NmsCandidateOrder(scores.data() + s * count, count, attrs_,
                        &segment_order);
      const int64_t k = static_cast<int64_t>(segment_order.size());
      if (Words(k) > kernels::kMaxNmsMaskBlocks) {
        return absl::UnimplementedError(absl::StrCat(
            "non_max_suppression on ", device_.name(), " takes at most ",
            kernels::kMaxNmsMaskBlocks * kBits,
            " candidates per (batch, class), got ", k));
      }
      const int64_t batch_base = (s / classes) * count;
      for (int64_t b : segment_order) order.push_back(batch_base + b);
      table[4 * s] = total;
      table[4 * s + 1] = k;
      table[4 * s + 2] = mask_words;
      table[4 * s + 3] = removed_words;
      total += k;
      mask_words += k * Words(k);
      removed_words += Words(k);
    }
    table.insert(table.end(), order.begin(), order.end());

    // One scratch allocation: table and order (uploaded), decoded boxes,
    // mask, removed bits, kept indices, counts, offsets.
    const int64_t table_bytes = static_cast<int64_t>(table.size()) * 8;
    const int64_t decoded_at = table_bytes;
    const int64_t mask_at = decoded_at + 5 * total * 8;
    const int64_t removed_at = mask_at + mask_words * 8;
    const int64_t kept_at = removed_at + removed_words * 8;
    const int64_t counts_at = kept_at + segments * limit * 8;
    const int64_t offsets_at = counts_at + segments * 8;
    const int64_t scratch_bytes = offsets_at + segments * 8;
    SY_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> scratch,
                        device_.Allocate(static_cast<size_t>(scratch_bytes)));
    char* base = static_cast<char*>(scratch->data());
    const auto* d_table = reinterpret_cast<const int64_t*>(base);
    const int64_t* d_order = d_table + 4 * segments;
    auto* decoded = reinterpret_cast<double*>(base + decoded_at);
    auto* mask = reinterpret_cast<uint64_t*>(base + mask_at);
    auto* removed = reinterpret_cast<uint64_t*>(base + removed_at);
    auto* kept = reinterpret_cast<int64_t*>(base + kept_at);
    auto* counts = reinterpret_cast<int64_t*>(base + counts_at);
    auto* offsets = reinterpret_cast<int64_t*>(base + offsets_at);
    SY_RETURN_IF_ERROR(device_.CopyFromHost(table.data(), *scratch,
                                            static_cast<size_t>(table_bytes)));
    cudaStream_t stream = device_.stream();
    if (removed_words > 0) {
      SY_CUDA_RETURN_IF_ERROR(
          cudaMemsetAsync(removed, 0, removed_words * 8, stream),
          device_.name());
    }

    // 2. Decode, mask per segment, keep, pack.
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchNmsDecode(inputs[0]->data<float>(), d_order, total,
                                 attrs_.center_point_box, decoded, stream),
        device_.name());
    for (int64_t s = 0; s < segments; ++s) {
      SY_CUDA_RETURN_IF_ERROR(
          kernels::LaunchNmsMask(decoded, total, table[4 * s],
                                 table[4 * s + 1], attrs_.iou_threshold,
                                 mask + table[4 * s + 2], stream),
          device_.name());
    }
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchNmsKeep(mask, removed, d_table, d_order, segments,
                               count, limit, kept, counts, stream),
        device_.name());
    SY_CUDA_RETURN_IF_ERROR(
        kernels::LaunchNmsPack(kept, counts, segments, classes, limit,
                               capacity, offsets, rows, num_selected, stream),
        device_.name());
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  const NonMaxSuppressionAttrs attrs_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeNonMaxSuppression(
    const Node& node, const Graph&, CudaDevice& device) {
  SY_ASSIGN_OR_RETURN(NonMaxSuppressionAttrs attrs,
                      NonMaxSuppressionAttrs::FromAttrMap(node.attrs));
  return std::make_unique<NonMaxSuppressionKernel>(device, attrs);
}

SY_REGISTER_KERNEL(CudaKernels(), "non_max_suppression", DType::kFloat32,
                   &MakeNonMaxSuppression);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
