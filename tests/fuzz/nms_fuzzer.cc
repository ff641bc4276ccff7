// libFuzzer target for non_max_suppression: random boxes, scores and
// attributes through the op on the CPU backend, compared with the reference
// backend (the oracle), and the output's invariants checked.
//
// The input bytes are read as: the batch, class and box counts (usually
// small, sometimes up to 1000 boxes, sometimes 0); the attributes (plausible
// values, sometimes invalid ones: iou_threshold outside [0, 1] or NaN, a NaN
// or +inf score_threshold, center_point_box 2); then one byte per
// coordinate and score choosing a small integer or half (exact overlaps and
// ties), a raw 32-bit float from the next 4 bytes, or a special value (-0,
// NaN, +-inf, a denormal, +-3e38). Past the end every byte reads 0.
//
// Checks: invalid attributes fail on both backends with InvalidArgument;
// otherwise both succeed, with identical rows and counts; and on the CPU's
// result: the count is within the padded row count and every row after it
// is -1; each row is in range; rows come by (batch, class) in order, at most
// max_output_boxes_per_class per pair, distinct boxes, scores not NaN, above
// the score threshold, non-increasing, equal scores by increasing index.
// With one batch and class, also functional::Nms and BatchedNms (categories
// from the bytes) on both backends must agree.
//
// Built by tools/fuzz.sh (libFuzzer) and by Bazel as
// //tests/fuzz:nms_fuzzer_replay_test (corpus replay).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/reference/reference_backend.h"
#include "core/backend_registry.h"
#include "core/tensor.h"
#include "ops/functional.h"
#include "ops/nms_attrs.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_choices.h"

namespace switchyard {
namespace {

using fuzz::Choices;

float Special(uint8_t b) {
  static const float kValues[] = {-0.0f,
                                  std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::denorm_min(),
                                  3e38f,
                                  -3e38f,
                                  1e-30f};
  return kValues[b % 8];
}

// A coordinate: mostly a small integer or half, so boxes meet exactly.
float Coordinate(Choices& c) {
  const uint8_t b = c.Byte();
  if (b < 170) return static_cast<float>(b % 24) / 2;
  if (b < 220) return c.Float();
  return Special(b);
}

// A score: mostly one of 8 values, so many tie.
float Score(Choices& c) {
  const uint8_t b = c.Byte();
  if (b < 170) return static_cast<float>(b % 8) / 8;
  if (b < 220) return c.Float();
  return Special(b);
}

BackendRegistry& Registry() {
  static BackendRegistry* registry = [] {
    auto* r = new BackendRegistry();
    (void)r->Register("cpu", [] { return cpu::CreateCpuBackend(); });
    (void)r->Register("ref", [] { return reference::CreateReferenceBackend(1); });
    (void)r->SetOption("cpu", "threads", "2");
    return r;
  }();
  return *registry;
}

struct Result {
  absl::Status status;
  std::vector<int64_t> rows, count;
};

Result RunOp(const char* device, const Shape& boxes_shape,
             const std::vector<float>& boxes, const Shape& scores_shape,
             const std::vector<float>& scores, const AttrMap& attrs) {
  Result r;
  const Device d = *Device::Parse(device);
  absl::StatusOr<Tensor> b = Tensor::FromVector(boxes_shape, boxes, d, Registry());
  absl::StatusOr<Tensor> s = Tensor::FromVector(scores_shape, scores, d, Registry());
  FUZZ_CHECK(b.ok() && s.ok());
  absl::StatusOr<std::vector<Tensor>> out =
      functional::Call("non_max_suppression", {*b, *s}, attrs, Registry());
  if (!out.ok()) {
    r.status = out.status();
    return r;
  }
  FUZZ_CHECK(out->size() == 2);
  r.rows = *(*out)[0].ToHost<int64_t>();
  r.count = *(*out)[1].ToHost<int64_t>();
  return r;
}

std::vector<int64_t> Indices(const absl::StatusOr<Tensor>& t) {
  FUZZ_CHECK(t.ok());
  return *t->ToHost<int64_t>();
}

}  // namespace
}  // namespace switchyard

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace switchyard;  // NOLINT
  Choices c(data, size);
  const int64_t batches = c.Byte() < 240 ? 1 + c.Byte() % 2 : 0;
  const int64_t classes = c.Byte() < 240 ? 1 + c.Byte() % 3 : 0;
  const uint8_t size_kind = c.Byte();
  // Mostly up to 40 boxes (fast: many inputs per second); 1 in 32 up to
  // 1000 (the CPU's parallel path, long compactions).
  const int64_t count = size_kind < 240   ? size_kind % 41
                        : size_kind < 248 ? c.Range(41, 1000)
                                          : 0;

  AttrMap attrs;
  const uint8_t max_kind = c.Byte();
  const int64_t max_values[] = {0, 1, count / 2, count,
                                std::numeric_limits<int64_t>::max(), 2 + max_kind % 9};
  if (max_kind >= 16) attrs.Set("max_output_boxes_per_class", max_values[max_kind % 6]);
  const uint8_t iou_kind = c.Byte();
  const double iou_values[] = {0.0, 0.25, 0.5, 0.7, 1.0, 1.0 / 3, iou_kind / 255.0, 0.6};
  if (iou_kind >= 245) {
    const double bad[] = {-0.1, 1.5, std::nan("")};
    attrs.Set("iou_threshold", bad[iou_kind % 3]);
  } else if (iou_kind >= 16) {
    attrs.Set("iou_threshold", iou_values[iou_kind % 8]);
  }
  const uint8_t score_kind = c.Byte();
  if (score_kind >= 128) {
    const double values[] = {0.0, 0.5, -1.0, -std::numeric_limits<double>::infinity(),
                             0.25, 1e-30, std::nan(""),
                             std::numeric_limits<double>::infinity()};
    attrs.Set("score_threshold", values[score_kind % 8]);
  }
  const uint8_t center_kind = c.Byte();
  if (center_kind >= 128) attrs.Set("center_point_box", int64_t{center_kind >= 250 ? 2 : 1});

  std::vector<float> boxes(batches * count * 4), scores(batches * classes * count);
  for (float& v : boxes) v = Coordinate(c);
  for (float& v : scores) v = Score(c);
  const Shape boxes_shape({batches, count, 4});
  const Shape scores_shape({batches, classes, count});

  const Result got = RunOp("cpu:0", boxes_shape, boxes, scores_shape, scores, attrs);
  const Result want = RunOp("ref:0", boxes_shape, boxes, scores_shape, scores, attrs);
  absl::StatusOr<NonMaxSuppressionAttrs> parsed =
      NonMaxSuppressionAttrs::FromAttrMap(attrs);
  if (!parsed.ok()) {
    FUZZ_CHECK(got.status.code() == absl::StatusCode::kInvalidArgument);
    FUZZ_CHECK(want.status.code() == absl::StatusCode::kInvalidArgument);
    return 0;
  }
  FUZZ_CHECK(got.status.ok() && want.status.ok());
  FUZZ_CHECK(got.rows == want.rows);
  FUZZ_CHECK(got.count == want.count);

  // The output's invariants.
  const int64_t limit = std::min(count, parsed->max_output_boxes_per_class);
  const int64_t capacity = batches * classes * limit;
  FUZZ_CHECK(static_cast<int64_t>(got.rows.size()) == 3 * capacity);
  FUZZ_CHECK(got.count.size() == 1);
  const int64_t selected = got.count[0];
  FUZZ_CHECK(selected >= 0 && selected <= capacity);
  for (int64_t i = 3 * selected; i < 3 * capacity; ++i) FUZZ_CHECK(got.rows[i] == -1);
  int64_t previous_pair = -1, in_pair = 0;
  std::set<int64_t> seen;
  float previous_score = 0;
  int64_t previous_box = -1;
  for (int64_t r = 0; r < selected; ++r) {
    const int64_t n = got.rows[3 * r], k = got.rows[3 * r + 1], b = got.rows[3 * r + 2];
    FUZZ_CHECK(n >= 0 && n < batches && k >= 0 && k < classes && b >= 0 && b < count);
    const int64_t pair = n * classes + k;
    FUZZ_CHECK(pair >= previous_pair);
    const float s = scores[pair * count + b];
    FUZZ_CHECK(!std::isnan(s));
    if (parsed->has_score_threshold()) FUZZ_CHECK(s > parsed->score_threshold);
    if (pair != previous_pair) {
      previous_pair = pair;
      in_pair = 0;
      seen.clear();
    } else {
      FUZZ_CHECK(s < previous_score || (s == previous_score && b > previous_box));
    }
    FUZZ_CHECK(++in_pair <= limit);
    FUZZ_CHECK(seen.insert(b).second);
    previous_score = s;
    previous_box = b;
  }

  // The torchvision-style calls, one batch and class only.
  if (batches == 1 && classes == 1 && (c.Byte() & 1)) {
    const double iou = parsed->iou_threshold;
    std::vector<int64_t> categories(count);
    for (int64_t& v : categories) v = c.Byte() % 4 - 1;
    std::vector<std::vector<int64_t>> results;
    for (const char* device : {"cpu:0", "ref:0"}) {
      const Device d = *Device::Parse(device);
      BackendDevice& backend = **Registry().GetDevice(d);
      const Tensor b = *Tensor::FromVector(Shape({count, 4}), boxes, backend);
      const Tensor s = *Tensor::FromVector(Shape({count}), scores, backend);
      const Tensor idxs =
          *Tensor::FromValues<int64_t>(Shape({count}), categories, backend);
      results.push_back(Indices(functional::Nms(b, s, iou, Registry())));
      results.push_back(
          Indices(functional::BatchedNms(b, s, idxs, iou, Registry())));
    }
    FUZZ_CHECK(results[0] == results[2]);
    FUZZ_CHECK(results[1] == results[3]);
    for (int64_t i : results[0]) FUZZ_CHECK(i >= 0 && i < count && !std::isnan(scores[i]));
    for (int64_t i : results[1]) FUZZ_CHECK(i >= 0 && i < count && !std::isnan(scores[i]));
  }
  return 0;
}
