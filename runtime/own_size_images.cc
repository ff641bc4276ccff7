#include "runtime/own_size_images.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "data/image_files.h"

namespace switchyard {
namespace runtime {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// RGB8, row-major HWC, as float32 CHW in [0, 1] (torchvision's ToTensor).
HostArray ToChwUnit(const data::Image& image) {
  const int64_t h = image.height, w = image.width, plane = h * w;
  std::vector<float> values(static_cast<size_t>(3 * plane));
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      const uint8_t* p = image.at(static_cast<int>(y), static_cast<int>(x));
      for (int c = 0; c < 3; ++c) values[c * plane + y * w + x] = p[c] / 255.0f;
    }
  }
  return HostArray(Shape({3, h, w}), std::move(values));
}

}  // namespace

bool TakesOneImageAtItsOwnSize(const std::vector<OnnxValueInfo>& inputs) {
  if (inputs.size() != 1 || inputs[0].dtype != DType::kFloat32) return false;
  const OnnxValueInfo& in = inputs[0];
  return in.has_shape && in.dims.size() == 3 &&
         (!in.dims[0].has_value() || *in.dims[0] == 3);
}

OwnSizeImage LoadImageAtItsOwnSize(const std::string& path) {
  OwnSizeImage loaded;
  const auto begin = Clock::now();
  loaded.image = [&]() -> absl::StatusOr<data::Image> {
    SY_ASSIGN_OR_RETURN(std::string bytes, data::ReadFileBytes(path));
    return data::DecodeImage(bytes, path);
  }();
  const auto decoded = Clock::now();
  if (loaded.image.ok()) loaded.host = ToChwUnit(*loaded.image);
  loaded.read_decode = Ms(begin, decoded);
  loaded.to_chw = Ms(decoded, Clock::now());
  return loaded;
}

OwnSizeSummary SummarizeOwnSizeImages(const std::vector<OwnSizeImageTimes>& times,
                                      const Device& device) {
  OwnSizeSummary s;
  std::vector<double> decode, convert, run_ms;
  for (const OwnSizeImageTimes& t : times) {
    decode.push_back(t.read_decode);
    convert.push_back(t.to_tensor);
    run_ms.push_back(t.model);
    s.input_total += t.waited;
    s.compile_total += t.compile;
    s.model_total += t.model;
    if (t.plans_compiled > 0) ++s.new_sizes;
  }
  s.median_read_decode = Median(decode);
  s.median_to_tensor = Median(convert);
  s.median_model = Median(run_ms);
  const double total = s.input_total + s.compile_total + s.model_total;
  auto percent = [&](double part) { return std::lround(total > 0 ? 100 * part / total : 0); };
  // As run's samples/s is batch / median for a model that takes batches.
  s.images_per_s = s.median_model > 0 ? 1000.0 / s.median_model : 0;
  if (s.input_total >= s.compile_total && s.input_total >= 0.3 * total) {
    s.bound = OwnSizeSummary::Bound::kInput;
    s.verdict = absl::StrCat("input-bound: ", percent(s.input_total), "% of the time ",
                             device.ToString(), " waits for images to be read, decoded and "
                             "converted, though that runs ahead of the model: smaller or "
                             "faster-to-decode files, or a faster disk, help");
  } else if (s.compile_total >= 0.3 * total) {
    s.bound = OwnSizeSummary::Bound::kCompile;
    s.verdict = absl::StrCat("compile-bound: ", percent(s.compile_total), "% of the time is "
                             "compiling plans for image sizes not seen before (", s.new_sizes,
                             " of ", times.size(), " images); images of a few sizes reuse "
                             "their plans (up to ", OnnxModel::kMaxCachedSegments,
                             " segments are kept)");
  } else {
    s.bound = OwnSizeSummary::Bound::kModel;
    s.verdict = absl::StrCat("the model takes ", percent(s.model_total), "% of the time on ",
                             device.ToString());
  }
  return s;
}

}  // namespace runtime
}  // namespace switchyard
