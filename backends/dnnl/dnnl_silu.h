#ifndef SWITCHYARD_BACKENDS_DNNL_DNNL_SILU_H_
#define SWITCHYARD_BACKENDS_DNNL_DNNL_SILU_H_

// SiLU (x * sigmoid(x)) after a dnnl conv2d as a host pass over its output
// instead of oneDNN's swish post-op (backend option dnnl.silu), and the
// kernel of that pass.
//
// oneDNN 2.6's swish post-op costs more than the convolution it follows on
// EfficientNet's large maps: a 16->96 1x1 conv at 112x112, batch 8, 2
// threads, AMD EPYC: 0.98 ms alone, 2.42 ms with swish, 1.90 ms followed by
// this pass (AVX-512); a 144-channel 3x3 depthwise at 56x56: 0.45, 1.15,
// 0.78 ms. Below ~256Ki floats the pass's own thread fork costs more than
// it saves, and with AVX2 alone it saves too little (an AVX2 pass ran at
// about the post-op's speed), hence:
//   kAuto:   the host pass for outputs of at least kHostSiluMinFloats on a
//            CPU with AVX-512F, the post-op otherwise;
//   kPostOp: always oneDNN's swish post-op;
//   kHost:   always the host pass (for tests and comparisons).

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace switchyard {
namespace onednn {

enum class DnnlSilu { kAuto, kPostOp, kHost };

// "auto", "post_op", "host".
const char* DnnlSiluName(DnnlSilu silu);
// InvalidArgument naming the accepted values otherwise.
absl::StatusOr<DnnlSilu> ParseDnnlSilu(absl::string_view name);

inline constexpr int64_t kHostSiluMinFloats = int64_t{1} << 18;

// Whether a conv2d whose output has `floats` elements takes its SiLU as a
// host pass under `requested` on this CPU.
bool WantsHostSilu(DnnlSilu requested, int64_t floats);

// data[i] = data[i] * sigmoid(data[i]) for n floats, split among `threads`
// OpenMP threads: AVX-512 where the CPU has it, else AVX2 where the build
// targets it, else scalar. Relative error below 1e-6 (e^-x as 2^k times
// 2^f, 2^f from a degree-5 polynomial, 1 / (1 + e^-x) from the hardware
// reciprocal and a Newton step).
void SiluInPlace(float* data, int64_t n, int threads);

// The kernels themselves, for tests: x and y may be the same. Each returns
// false, doing nothing, when this CPU or build lacks its instructions.
bool SiluAvx512(const float* x, float* y, int64_t n);
bool SiluAvx2(const float* x, float* y, int64_t n);
void SiluScalar(const float* x, float* y, int64_t n);

}  // namespace onednn
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_DNNL_DNNL_SILU_H_
