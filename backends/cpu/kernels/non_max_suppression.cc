// non_max_suppression (rules: ops/non_max_suppression.cc), greedy with a
// shrinking candidate list. Per (batch, class):
//   1. the candidates are sorted once (ops/nms_geometry.h: one 64-bit key
//      per box, score descending then index ascending);
//   2. their decoded boxes (double, decoded once per batch) are gathered
//      into structure-of-arrays order;
//   3. the first remaining candidate is selected; its IoU with every
//      remaining candidate is computed in vectorized passes (Eigen, 4
//      doubles per AVX2 instruction: the intersections, then the IoUs), and
//      the candidates it suppresses are marked dead; once dead ones are a
//      quarter of those left, the arrays are compacted in place, so later
//      passes mostly see survivors (torchvision instead re-walks every box,
//      suppressed or not, after each kept one);
//   4. it stops when max_output_boxes_per_class boxes are selected or no
//      candidate is left.
// A selected box that overlaps nothing (ops/nms_geometry.h NmsBox::valid)
// needs no pass. The (batch, class) pairs are spread over the device's
// threads, each thread taking the next pair when done; one pair runs on one
// thread.
//
// The IoU steps are those of NmsIou and the reference backend, each rounded
// once (the intersections are stored before the unions are formed, so no
// fused multiply-add), so every decision equals the reference's.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "backends/cpu/cpu_device.h"
#include "core/tensor.h"
#include "ops/nms_attrs.h"
#include "ops/nms_geometry.h"

namespace switchyard {
namespace cpu {
namespace {

// Below this many (segment, box) pairs one thread does everything.
constexpr int64_t kMinParallelBoxes = 4096;

// One thread's working memory, reused across the segments it runs.
struct Scratch {
  std::vector<int64_t> order;
  std::vector<double> min0, min1, max0, max1, area, iou;
  std::vector<int64_t> index;

  void Resize(size_t n) {
    for (auto* v : {&min0, &min1, &max0, &max1, &area, &iou}) v->resize(n);
    index.resize(n);
  }
};

using ConstArrayMap = Eigen::Map<const Eigen::ArrayXd>;

// Compacts the candidates once more than 1 / kCompactShare of those left
// are suppressed ones still in the arrays.
constexpr int64_t kCompactShare = 4;

// Greedy selection over one (batch, class): appends the selected box
// indices to `selected`. A suppressed candidate is marked dead by an
// infinite area (no live box has one: valid areas are finite, the others 0;
// its IoU with anything is then 0, so it is never counted twice) and skipped
// when it comes to the front; the arrays are compacted only when dead
// entries are a quarter of those left, so that a pass that suppresses a few
// boxes does not move all the others. (Compacting after every pass, or
// computing the IoU only where the intersection is not 0, measured 1.5 times
// slower on the RPN-like boxes of benchmarks/nms_benchmark.cc.)
void SelectSegment(const float* scores, const NmsBox* boxes, int64_t count,
                   int64_t limit, const NonMaxSuppressionAttrs& attrs,
                   Scratch& s, std::vector<int64_t>& selected) {
  if (limit <= 0) return;
  NmsCandidateOrder(scores, count, attrs, &s.order);
  const int64_t candidates = static_cast<int64_t>(s.order.size());
  s.Resize(candidates);
  for (int64_t i = 0; i < candidates; ++i) {
    const NmsBox& b = boxes[s.order[i]];
    s.min0[i] = b.min0;
    s.min1[i] = b.min1;
    s.max0[i] = b.max0;
    s.max1[i] = b.max1;
    s.area[i] = b.area;  // 0 for a box that overlaps nothing
    s.index[i] = s.order[i];
  }
  const double threshold = attrs.iou_threshold;
  const double kDead = std::numeric_limits<double>::infinity();
  int64_t begin = 0, end = candidates, dead = 0, taken = 0;
  while (true) {
    while (begin < end && std::isinf(s.area[begin])) {
      ++begin;
      --dead;
    }
    if (begin == end) return;
    const int64_t top = begin++;
    selected.push_back(s.index[top]);
    if (++taken == limit) return;
    if (s.area[top] == 0 || begin == end) continue;
    const int64_t n = end - begin;
    const double t_min0 = s.min0[top], t_min1 = s.min1[top];
    const double t_max0 = s.max0[top], t_max1 = s.max1[top];
    const double t_area = s.area[top];
    Eigen::Map<Eigen::ArrayXd> iou(s.iou.data(), n);
    Eigen::Map<Eigen::ArrayXd> area(s.area.data() + begin, n);
    // The intersection first, stored; then the IoU from it.
    iou = (ConstArrayMap(s.max0.data() + begin, n).min(t_max0) -
           ConstArrayMap(s.min0.data() + begin, n).max(t_min0))
              .max(0.0) *
          (ConstArrayMap(s.max1.data() + begin, n).min(t_max1) -
           ConstArrayMap(s.min1.data() + begin, n).max(t_min1))
              .max(0.0);
    iou = iou / ((area + t_area) - iou);
    // Suppressed: marked dead with an infinite area (its IoU with anything
    // is then 0, so it is never counted twice).
    for (int64_t k = 0; k < n; ++k) {
      if (s.iou[k] > threshold) {
        area[k] = kDead;
        ++dead;
      }
    }
    if (dead * kCompactShare > end - begin) {
      // Keep the live candidates, in order, at the front of [begin, end).
      int64_t out = begin;
      for (int64_t k = begin; k < end; ++k) {
        s.min0[out] = s.min0[k];
        s.min1[out] = s.min1[k];
        s.max0[out] = s.max0[k];
        s.max1[out] = s.max1[k];
        s.area[out] = s.area[k];
        s.index[out] = s.index[k];
        out += !std::isinf(s.area[k]);
      }
      end = out;
      dead = 0;
    }
  }
}

class NonMaxSuppressionKernel : public Kernel {
 public:
  NonMaxSuppressionKernel(const NonMaxSuppressionAttrs& attrs,
                          std::shared_ptr<const CpuContext> context)
      : attrs_(attrs), context_(std::move(context)) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    const Shape& shape = inputs[1]->shape();  // scores [N, C, B]
    const int64_t batches = shape.dim(0), classes = shape.dim(1);
    const int64_t count = shape.dim(2);
    const int64_t limit =
        NmsRowsPerClass(count, attrs_.max_output_boxes_per_class);
    const float* box_data = inputs[0]->data<float>();
    const float* scores = inputs[1]->data<float>();

    // Every box decoded once, shared by the classes of its batch.
    std::vector<NmsBox> boxes(batches * count);
    if (limit > 0) {
      for (int64_t i = 0; i < batches * count; ++i) {
        boxes[i] = DecodeNmsBox(box_data + 4 * i, attrs_.center_point_box);
      }
    }

    const int64_t segments = batches * classes;
    std::vector<std::vector<int64_t>> selected(segments);
    std::atomic<int64_t> next{0};
    auto work = [&](int64_t) {
      Scratch scratch;
      for (int64_t seg = next++; seg < segments; seg = next++) {
        const int64_t n = seg / classes;
        SelectSegment(scores + seg * count, boxes.data() + n * count, count,
                      limit, attrs_, scratch, selected[seg]);
      }
    };
    if (limit == 0) {
      // Nothing can be selected.
    } else if (segments > 1 && segments * count >= kMinParallelBoxes) {
      context_->ParallelFor(std::min<int64_t>(context_->threads(), segments),
                            work);
    } else {
      work(0);
    }

    int64_t* rows = outputs[0]->data<int64_t>();
    const int64_t capacity = outputs[0]->shape().dim(0);
    int64_t total = 0;
    for (int64_t seg = 0; seg < segments; ++seg) {
      for (int64_t box : selected[seg]) {
        rows[3 * total + 0] = seg / classes;
        rows[3 * total + 1] = seg % classes;
        rows[3 * total + 2] = box;
        ++total;
      }
    }
    std::fill(rows + 3 * total, rows + 3 * capacity, int64_t{-1});
    outputs[1]->data<int64_t>()[0] = total;
    return absl::OkStatus();
  }

 private:
  NonMaxSuppressionAttrs attrs_;
  std::shared_ptr<const CpuContext> context_;
};

SY_REGISTER_KERNEL(CpuKernels(), "non_max_suppression", DType::kFloat32,
                   [](const Node& node, const Graph&, CpuDevice& device)
                       -> absl::StatusOr<std::unique_ptr<Kernel>> {
                     absl::StatusOr<NonMaxSuppressionAttrs> attrs =
                         NonMaxSuppressionAttrs::FromAttrMap(node.attrs);
                     if (!attrs.ok()) return attrs.status();
                     return std::make_unique<NonMaxSuppressionKernel>(
                         *attrs, device.context());
                   });

}  // namespace
}  // namespace cpu
}  // namespace switchyard
