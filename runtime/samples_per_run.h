#ifndef SWITCHYARD_RUNTIME_SAMPLES_PER_RUN_H_
#define SWITCHYARD_RUNTIME_SAMPLES_PER_RUN_H_

// How many samples one forward pass of a model processes: the "batch" of
// `switchyard run`'s samples/s and report, decided from the model's first
// input as it declares it and as it is fed:
//
//   no inputs, or a scalar first input            1
//   one image [C, H, W] (rank 3, C declared 3     1 (a per-image model: its
//     or 4, as torchvision's detectors export)      batch is its image count)
//   anything else: dimension 0 of the fed array   [batch, 3, H, W] -> batch,
//     (a symbolic, named or fixed leading           [batch, seq] token ids ->
//     dimension is the batch)                       batch, [8, 3, 224, 224] -> 8
//
//   const SamplesPerRun samples = CountSamplesPerRun(&model.inputs()[0], fed);
//   double per_s = samples.count * 1000.0 / median_ms;

#include <cstdint>
#include <string>

#include "core/shape.h"
#include "onnx/onnx_model.h"

namespace switchyard {
namespace runtime {

struct SamplesPerRun {
  int64_t count = 1;
  // Why, when dimension 0 is not the batch ("one [3, H, W] image per run");
  // empty otherwise.
  std::string reason;
  // What a sample is, for "<count> <unit>/s": "images" for a batch of
  // images (a declared [N, 3, H, W] input), "samples" otherwise.
  std::string unit = "samples";
};

// `declared` is the model's first input (null for a model without inputs:
// then `fed` alone decides); `fed` is the shape of the array fed to it.
SamplesPerRun CountSamplesPerRun(const OnnxValueInfo* declared, const Shape& fed);

}  // namespace runtime
}  // namespace switchyard

#endif  // SWITCHYARD_RUNTIME_SAMPLES_PER_RUN_H_
