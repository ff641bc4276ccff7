#include "runtime/samples_per_run.h"

#include "absl/strings/str_cat.h"

namespace switchyard {
namespace runtime {

SamplesPerRun CountSamplesPerRun(const OnnxValueInfo* declared, const Shape& fed) {
  if (fed.rank() == 0) return {1, ""};
  // A single image: its channels are dimension 0. A declared 1 reads the
  // same either way (one image, or a batch of one).
  if (declared != nullptr && declared->has_shape && declared->dims.size() == 3 &&
      declared->dims[0].has_value() && (*declared->dims[0] == 3 || *declared->dims[0] == 4)) {
    return {1, absl::StrCat("one [", *declared->dims[0], ", H, W] image per run")};
  }
  // A batch of RGB images, as the built-in models and image classifiers
  // declare it.
  const bool images = declared != nullptr && declared->has_shape &&
                      declared->dims.size() == 4 && declared->dims[1].has_value() &&
                      *declared->dims[1] == 3;
  return {fed.dim(0), "", images ? "images" : "samples"};
}

}  // namespace runtime
}  // namespace switchyard
