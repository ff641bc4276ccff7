// non_max_suppression, as ops/non_max_suppression.cc states it, written as
// plainly as possible to be the oracle: for each (batch, class), the
// candidates sorted by decreasing score (stable, so equal scores keep index
// order), then visited in turn, each selected unless its IoU with one of the
// boxes already selected is > iou_threshold (every pair compared: O(B^2)).
// IoU in double, every product rounded once, as the rules say. Independent of
// ops/nms_geometry.h, which the optimized backends share.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/reference/kernels/kernels.h"
#include "ops/nms_attrs.h"

namespace switchyard {
namespace reference {
namespace {

// a * b rounded to double and stored, so that no compiler fuses it into a
// following addition (GCC contracts x + y - a * b into one FMA).
double Product(double a, double b) {
  volatile double product = a * b;
  return product;
}

struct Box {
  double lo0, lo1, hi0, hi1;  // ONNX's (y_min, x_min, y_max, x_max)
};

Box ReadBox(const float* b, int64_t center_point_box) {
  if (center_point_box == 1) {  // [x_center, y_center, width, height]
    const double xc = b[0], yc = b[1], w = b[2], h = b[3];
    return {yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2};
  }
  // [y1, x1, y2, x2], any two diagonal corners.
  const double y1 = b[0], x1 = b[1], y2 = b[2], x2 = b[3];
  return {std::min(y1, y2), std::min(x1, x2), std::max(y1, y2),
          std::max(x1, x2)};
}

// The box's area, or 0 when it can overlap nothing: zero or negative width
// or height, a NaN or infinite coordinate.
double UsableArea(const Box& b) {
  const double height = b.hi0 - b.lo0, width = b.hi1 - b.lo1;
  if (!(height > 0 && width > 0)) return 0;
  const double area = Product(height, width);
  return std::isfinite(area) ? area : 0;
}

double Iou(const Box& a, const Box& b) {
  const double area_a = UsableArea(a), area_b = UsableArea(b);
  if (area_a == 0 || area_b == 0) return 0;
  const double h =
      std::max(0.0, std::min(a.hi0, b.hi0) - std::max(a.lo0, b.lo0));
  const double w =
      std::max(0.0, std::min(a.hi1, b.hi1) - std::max(a.lo1, b.lo1));
  const double intersection = Product(h, w);
  return intersection / (area_a + area_b - intersection);
}

class NonMaxSuppressionKernel : public Kernel {
 public:
  NonMaxSuppressionKernel(const RefDevice& device,
                          const NonMaxSuppressionAttrs& attrs)
      : device_(device.device()), attrs_(attrs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    if (inputs.size() != 2 || outputs.size() != 2) {
      return absl::InternalError(absl::StrCat(
          "reference non_max_suppression got ", inputs.size(), " inputs and ",
          outputs.size(), " outputs; it takes 2 and 2"));
    }
    const Tensor* tensors[] = {inputs[0], inputs[1], outputs[0], outputs[1]};
    for (int i = 0; i < 4; ++i) {
      const Tensor* t = tensors[i];
      const DType want = i < 2 ? DType::kFloat32 : DType::kInt64;
      if (t == nullptr || !t->defined() || t->dtype() != want ||
          t->device() != device_) {
        return absl::InternalError(absl::StrCat(
            "reference non_max_suppression on ", device_.ToString(), ": ",
            i < 2 ? "input " : "output ", i % 2,
            " is undefined, or not ", DTypeName(want), " on this device"));
      }
    }
    const Shape& scores_shape = inputs[1]->shape();  // [N, C, B]
    const int64_t batches = scores_shape.dim(0);
    const int64_t classes = scores_shape.dim(1);
    const int64_t count = scores_shape.dim(2);
    const int64_t per_class =
        std::min(count, attrs_.max_output_boxes_per_class);
    const float* boxes = inputs[0]->data<float>();
    const float* scores = inputs[1]->data<float>();
    int64_t* rows = outputs[0]->data<int64_t>();
    const int64_t capacity = outputs[0]->shape().dim(0);

    int64_t selected_total = 0;
    for (int64_t n = 0; n < batches; ++n) {
      std::vector<Box> batch_boxes;
      for (int64_t b = 0; b < count; ++b) {
        batch_boxes.push_back(
            ReadBox(boxes + (n * count + b) * 4, attrs_.center_point_box));
      }
      for (int64_t c = 0; c < classes; ++c) {
        const float* s = scores + (n * classes + c) * count;
        std::vector<int64_t> candidates;
        for (int64_t b = 0; b < count; ++b) {
          if (std::isnan(s[b])) continue;
          if (attrs_.has_score_threshold() && !(s[b] > attrs_.score_threshold))
            continue;
          candidates.push_back(b);
        }
        std::stable_sort(candidates.begin(), candidates.end(),
                         [&](int64_t a, int64_t b) { return s[a] > s[b]; });
        std::vector<int64_t> selected;
        for (int64_t b : candidates) {
          if (static_cast<int64_t>(selected.size()) >= per_class) break;
          bool suppressed = false;
          for (int64_t k : selected) {
            if (Iou(batch_boxes[k], batch_boxes[b]) > attrs_.iou_threshold) {
              suppressed = true;
              break;
            }
          }
          if (!suppressed) selected.push_back(b);
        }
        for (int64_t b : selected) {
          rows[selected_total * 3 + 0] = n;
          rows[selected_total * 3 + 1] = c;
          rows[selected_total * 3 + 2] = b;
          ++selected_total;
        }
      }
    }
    for (int64_t i = selected_total * 3; i < capacity * 3; ++i) rows[i] = -1;
    outputs[1]->data<int64_t>()[0] = selected_total;
    return absl::OkStatus();
  }

 private:
  Device device_;
  NonMaxSuppressionAttrs attrs_;
};

absl::StatusOr<std::unique_ptr<Kernel>> MakeNonMaxSuppression(
    const Node& node, const Graph&, RefDevice& device) {
  absl::StatusOr<NonMaxSuppressionAttrs> attrs =
      NonMaxSuppressionAttrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<NonMaxSuppressionKernel>(device, *attrs);
}

SY_REGISTER_KERNEL(RefKernels(), "non_max_suppression", DType::kFloat32,
                   &MakeNonMaxSuppression);

}  // namespace
}  // namespace reference
}  // namespace switchyard
