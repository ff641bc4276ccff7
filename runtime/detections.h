#ifndef SWITCHYARD_RUNTIME_DETECTIONS_H_
#define SWITCHYARD_RUNTIME_DETECTIONS_H_

// What `switchyard run` prints for a detector: outputs that read as
// detections (torchvision's boxes [K, 4], labels [K] and scores [K], found
// by name, else by shape and dtype) become one line per detection, best
// score first:
//
//   detections: 20 (the 10 best by score)
//     1. person (class 1)  score 0.982  box (12.5, 30.1, 200.0, 310.7)
//
// and the report's "detections" (every one, in the model's order).

#include <optional>
#include <string>
#include <vector>

#include "models/host_array.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace runtime {

struct DetectionOutputs {
  size_t boxes = 0, labels = 0, scores = 0;  // output indices
};

// The three outputs, when `outputs` holds them: boxes a float [K, 4], labels
// an integer [K] and scores a float [K] of the same K. Outputs named
// "boxes", "labels" and "scores" are taken first; otherwise the first
// outputs of those shapes, in that order.
std::optional<DetectionOutputs> FindDetections(const std::vector<HostArray>& outputs,
                                               const std::vector<std::string>& names);

// The lines above (`top` best, all when top <= 0), class names from
// `labels` where it has them.
std::string FormatDetections(const std::vector<HostArray>& outputs, const DetectionOutputs& d,
                             const std::vector<std::string>& labels, int top);

// Every detection as {"box": [x1, y1, x2, y2], "class": c, "label": name,
// "score": s}, in the model's order.
nlohmann::json DetectionsJson(const std::vector<HostArray>& outputs, const DetectionOutputs& d,
                              const std::vector<std::string>& labels);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_DETECTIONS_H_
