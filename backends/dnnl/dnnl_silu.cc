#include "backends/dnnl/dnnl_silu.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SWITCHYARD_X86_KERNELS 1
#endif

namespace switchyard {
namespace onednn {
namespace {

// ln 2 in two parts (the high one exact in a float with the low bits zero,
// so k * high is exact for the k that occur) and the Taylor coefficients
// of e^r to degree 6: below 2e-7 relative error for |r| <= ln(2) / 2.
constexpr float kLog2e = 1.44269504f;
constexpr float kLn2High = 0.693145752f;
constexpr float kLn2Low = 1.42860677e-6f;
constexpr float kTaylor[] = {1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f};
// e^t for |t| <= 87 stays a normal float (and 1 + e^t finite).
constexpr float kClamp = 87.0f;

bool CpuHasAvx512() {
#ifdef SWITCHYARD_X86_KERNELS
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
#else
  return false;
#endif
}

}  // namespace

const char* DnnlSiluName(DnnlSilu silu) {
  switch (silu) {
    case DnnlSilu::kPostOp: return "post_op";
    case DnnlSilu::kHost: return "host";
    case DnnlSilu::kAuto: break;
  }
  return "auto";
}

absl::StatusOr<DnnlSilu> ParseDnnlSilu(absl::string_view name) {
  for (DnnlSilu s : {DnnlSilu::kAuto, DnnlSilu::kPostOp, DnnlSilu::kHost}) {
    if (name == DnnlSiluName(s)) return s;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "dnnl option 'silu' wants auto, post_op or host, got '", name, "'"));
}

bool WantsHostSilu(DnnlSilu requested, int64_t floats) {
  switch (requested) {
    case DnnlSilu::kPostOp: return false;
    case DnnlSilu::kHost: return true;
    case DnnlSilu::kAuto: break;
  }
  return CpuHasAvx512() && floats >= kHostSiluMinFloats;
}

void SiluScalar(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));
}

#ifdef SWITCHYARD_X86_KERNELS

// x / (1 + e^t), t = -x clamped: e^t = 2^k e^r with k = round(t log2 e).
__attribute__((target("avx512f"))) static void Silu16(const float* x, float* y,
                                                      int64_t n) {
  const __m512 lo = _mm512_set1_ps(-kClamp), hi = _mm512_set1_ps(kClamp);
  const __m512 one = _mm512_set1_ps(1.0f), two = _mm512_set1_ps(2.0f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    const __m512 t = _mm512_min_ps(_mm512_max_ps(_mm512_sub_ps(_mm512_setzero_ps(), v), lo), hi);
    const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(t, _mm512_set1_ps(kLog2e)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2High), t);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2Low), r);
    __m512 p = _mm512_set1_ps(kTaylor[0]);
    for (int c = 1; c < 7; ++c) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kTaylor[c]));
    const __m512 d = _mm512_add_ps(_mm512_scalef_ps(p, k), one);  // 1 + e^t
    __m512 s = _mm512_rcp14_ps(d);
    s = _mm512_mul_ps(s, _mm512_fnmadd_ps(d, s, two));
    _mm512_storeu_ps(y + i, _mm512_mul_ps(v, s));
  }
  SiluScalar(x + i, y + i, n - i);
}

// The same with AVX2 and FMA: 2^k from the exponent bits.
__attribute__((target("avx2,fma"))) static void Silu8(const float* x, float* y, int64_t n) {
  const __m256 lo = _mm256_set1_ps(-kClamp), hi = _mm256_set1_ps(kClamp);
  const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 t = _mm256_min_ps(_mm256_max_ps(_mm256_sub_ps(_mm256_setzero_ps(), v), lo), hi);
    const __m256 k = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(kLog2e)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2High), t);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2Low), r);
    __m256 p = _mm256_set1_ps(kTaylor[0]);
    for (int c = 1; c < 7; ++c) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kTaylor[c]));
    const __m256i bits = _mm256_slli_epi32(
        _mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
    const __m256 d = _mm256_fmadd_ps(p, _mm256_castsi256_ps(bits), one);  // 1 + e^t
    __m256 s = _mm256_rcp_ps(d);
    s = _mm256_mul_ps(s, _mm256_fnmadd_ps(d, s, two));
    _mm256_storeu_ps(y + i, _mm256_mul_ps(v, s));
  }
  SiluScalar(x + i, y + i, n - i);
}

bool SiluAvx512(const float* x, float* y, int64_t n) {
  if (!CpuHasAvx512()) return false;
  Silu16(x, y, n);
  return true;
}

bool SiluAvx2(const float* x, float* y, int64_t n) {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (!has) return false;
  Silu8(x, y, n);
  return true;
}

#else

bool SiluAvx512(const float*, float*, int64_t) { return false; }
bool SiluAvx2(const float*, float*, int64_t) { return false; }

#endif  // SWITCHYARD_X86_KERNELS

void SiluInPlace(float* data, int64_t n, int threads) {
  // Runs of 16Ki floats (64 KiB: a core's share of L2 traffic at a time).
  constexpr int64_t kRun = int64_t{1} << 14;
  const int64_t runs = (n + kRun - 1) / kRun;
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(static)
  for (int64_t r = 0; r < runs; ++r) {
    float* p = data + r * kRun;
    const int64_t len = std::min(kRun, n - r * kRun);
    if (!SiluAvx512(p, p, len) && !SiluAvx2(p, p, len)) SiluScalar(p, p, len);
  }
}

}  // namespace onednn
}  // namespace switchyard
