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

// e^-x = 2^u with u = -x log2(e) = k + f, k = round(u), |f| <= 1/2: 2^k
// is exact and 2^f comes from a degree-5 polynomial fitted to it on
// [-1/2, 1/2] for relative error (1.6e-7 in double). f is x times log2(e)
// in two parts (the product rounded would cost 2.6e-6 at |u| near 126)
// minus k, by fma. 17 vector ops per 16 floats where e^r's Taylor form
// took 19 and a sixth coefficient; the pass is bound by them (about 10
// Gfloat/s on 2 AMD EPYC cores from L2 and L3).
constexpr float kMinusLog2eHigh = -1.44269502f;
constexpr float kMinusLog2eLow = -1.92596303e-8f;
constexpr float kExp2[] = {1.32764655e-3f, 9.67554096e-3f, 5.55071346e-2f,
                           2.40221202e-1f, 6.93146944e-1f, 1.00000012f};
// |x| <= 87.3 keeps |u| <= 126: 2^k stays a normal float and 1 + 2^u
// finite.
constexpr float kClamp = 87.3f;

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

// x / (1 + 2^u), u = -x log2(e), x clamped.
__attribute__((target("avx512f"))) static void Silu16(const float* x, float* y,
                                                      int64_t n) {
  const __m512 lo = _mm512_set1_ps(-kClamp), hi = _mm512_set1_ps(kClamp);
  const __m512 one = _mm512_set1_ps(1.0f), two = _mm512_set1_ps(2.0f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    const __m512 c = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(c, _mm512_set1_ps(kMinusLog2eHigh)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 f = _mm512_fmsub_ps(c, _mm512_set1_ps(kMinusLog2eHigh), k);
    f = _mm512_fmadd_ps(c, _mm512_set1_ps(kMinusLog2eLow), f);
    __m512 p = _mm512_set1_ps(kExp2[0]);
    for (int c = 1; c < 6; ++c) p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(kExp2[c]));
    const __m512 d = _mm512_add_ps(_mm512_scalef_ps(p, k), one);  // 1 + 2^u
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
    const __m256 c = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    const __m256 k = _mm256_round_ps(_mm256_mul_ps(c, _mm256_set1_ps(kMinusLog2eHigh)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 f = _mm256_fmsub_ps(c, _mm256_set1_ps(kMinusLog2eHigh), k);
    f = _mm256_fmadd_ps(c, _mm256_set1_ps(kMinusLog2eLow), f);
    __m256 p = _mm256_set1_ps(kExp2[0]);
    for (int c = 1; c < 6; ++c) p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(kExp2[c]));
    const __m256i bits = _mm256_slli_epi32(
        _mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
    const __m256 d = _mm256_fmadd_ps(p, _mm256_castsi256_ps(bits), one);  // 1 + 2^u
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
