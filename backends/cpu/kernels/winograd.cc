// Winograd F(2x2,3x3) and F(4x4,3x3) convolution (winograd.h).
//
// Layout. Tiles are numbered over (image, tile row, tile column). A block
// of tiles is transformed into V[t][j][c] (T x tiles x Cp, j the tile in
// the block, Cp and Op the channel counts rounded up to 8): each V_t is a
// column-major C x tiles matrix. The weights U_t (O x C, column-major) are
// transformed and packed into the GEMM's panels once, at kernel creation.
// The products M_t = U_t V_t are made kChunk output channels at a time into
// M[t][j][o] (T x tiles x kChunk, L2-sized) and transformed back into the
// output right away, so M never leaves the cache; the GEMM's long side is
// the output channels, the side its micro-kernel unrolls (24 rows with
// AVX2), for any tile count. The transforms run on 8 channels at once (one
// AVX2 vector per transform point), reading and writing contiguous runs of
// V and M.
//
// Threading (every layer keeps both cores busy): with at least 2 blocks per
// thread, blocks are shared out whole (each thread transforms, multiplies
// and writes its own blocks, no synchronisation inside). With fewer (batch
// 1 on small images: VGG's 14x14 and 28x28 layers are 16 and 49 tiles of
// 4x4), each block is split inside: first the input transform by input
// channels (in groups of 8), then the T GEMMs and the output transform by
// output channels (in whole 24-row GEMM panels), so both cores work even
// when the whole layer is a single block.

#include "backends/cpu/kernels/winograd.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {
namespace {

// Eight channels' values of one transform point: the transforms run on 8
// channels at once (GCC/Clang vector extension: one AVX2 register with
// -march=x86-64-v3, two SSE registers without).
constexpr int kLanes = 8;
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

inline Lanes LoadLanes(const float* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void StoreLanes(float* p, Lanes v) { std::memcpy(p, &v, sizeof(v)); }

inline int64_t RoundUp8(int64_t x) { return (x + 7) / 8 * 8; }

// The transform-domain products run on Eigen's GEMM building blocks
// (Eigen/src/Core/products/GeneralBlockPanelKernel.h, Eigen 3.4): the
// weights are packed by gemm_pack_lhs once, at kernel creation, into the
// panels of Traits::mr rows its micro-kernel (gebp_kernel) reads, so a run
// only packs the small V_t. Measured before this: repacking U_t on every
// product cost as much as the products (VGG11, batch 1).
namespace ei = Eigen::internal;
using GemmTraits = ei::gebp_traits<float, float>;
using ColMapper = ei::const_blas_data_mapper<float, Eigen::Index, Eigen::ColMajor>;
using ResMapper = ei::blas_data_mapper<float, Eigen::Index, Eigen::ColMajor>;
using PackLhs = ei::gemm_pack_lhs<float, Eigen::Index, ColMapper, GemmTraits::mr,
                                  GemmTraits::LhsProgress,
                                  GemmTraits::LhsPacket4Packing, Eigen::ColMajor>;
using PackRhs =
    ei::gemm_pack_rhs<float, Eigen::Index, ColMapper, GemmTraits::nr, Eigen::ColMajor>;
using Gebp = ei::gebp_kernel<float, float, Eigen::Index, ResMapper,
                             GemmTraits::mr, GemmTraits::nr, false, false>;
// Aligned storage for packed panels (the packers store whole packets).
using Aligned = Eigen::Matrix<float, Eigen::Dynamic, 1>;

// Blocks. Every block reads all of U (T x C x O floats: 37.7 MB for F(4x4)
// at 512 channels), so blocks must be large for large channel counts; a
// block's V (T x tiles x C) is kept within about kVBudgetBytes per thread
// (a share of L3), and M is made and consumed kChunk output channels at a
// time (T x tiles x kChunk floats, L2-sized) so that it never leaves cache.
constexpr int64_t kVBudgetBytes = 8 << 20;
constexpr int64_t kMinBlockTiles = 32;
constexpr int64_t kMaxBlockTiles = 256;
constexpr int64_t kChunk = 48;  // a multiple of 8 and of the GEMM's 24 rows

// The 1-D transforms of F(2,3): B^T d (4 -> 4), A^T m (4 -> 2), and G.
// `s` and `t` are the strides of the source and destination.
struct F2 {
  static constexpr int kM = 2;
  static constexpr int kA = 4;
  template <typename T>
  static void Input(const T* d, int s, T* v, int t) {
    v[0] = d[0] - d[2 * s];
    v[t] = d[s] + d[2 * s];
    v[2 * t] = d[2 * s] - d[s];
    v[3 * t] = d[s] - d[3 * s];
  }
  template <typename T>
  static void Output(const T* m, int s, T* y, int t) {
    y[0] = m[0] + m[s] + m[2 * s];
    y[t] = m[s] - m[2 * s] - m[3 * s];
  }
  static constexpr double kG[kA][3] = {
      {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
};

// F(4,3) with the points 0, 1, -1, 2, -2 and infinity (Lavin & Gray).
struct F4 {
  static constexpr int kM = 4;
  static constexpr int kA = 6;
  template <typename T>
  static void Input(const T* d, int s, T* v, int t) {
    const T d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s],
            d4 = d[4 * s], d5 = d[5 * s];
    const T d4_d2 = d4 - d2;
    v[0] = 4.0f * d0 - 5.0f * d2 + d4;
    v[t] = d3 + d4 - 4.0f * (d1 + d2);
    v[2 * t] = d4 - d3 + 4.0f * (d1 - d2);
    v[3 * t] = d4_d2 + 2.0f * (d3 - d1);
    v[4 * t] = d4_d2 + 2.0f * (d1 - d3);
    v[5 * t] = 4.0f * d1 - 5.0f * d3 + d5;
  }
  template <typename T>
  static void Output(const T* m, int s, T* y, int t) {
    const T a = m[s] + m[2 * s], b = m[s] - m[2 * s];
    const T c = m[3 * s] + m[4 * s], d = m[3 * s] - m[4 * s];
    y[0] = m[0] + a + c;
    y[t] = b + 2.0f * d;
    y[2 * t] = a + 4.0f * c;
    y[3 * t] = b + 8.0f * d + m[5 * s];
  }
  static constexpr double kG[kA][3] = {
      {1.0 / 4, 0, 0},
      {-1.0 / 6, -1.0 / 6, -1.0 / 6},
      {-1.0 / 6, 1.0 / 6, -1.0 / 6},
      {1.0 / 24, 1.0 / 12, 1.0 / 6},
      {1.0 / 24, -1.0 / 12, 1.0 / 6},
      {0, 0, 1}};
};

template <class F>
class WinogradKernel : public Kernel {
 public:
  static constexpr int kM = F::kM;
  static constexpr int kA = F::kA;
  static constexpr int kT = kA * kA;

  WinogradKernel(const Conv2dGeometry& geo, const Tensor& weight,
                 bool has_bias, Activation activation,
                 std::shared_ptr<const CpuContext> context,
                 PreparedWeights& prepared)
      : geo_(geo),
        cp_(RoundUp8(geo.c)),
        op_(RoundUp8(geo.o)),
        has_bias_(has_bias),
        activation_(activation),
        context_(std::move(context)) {
    tiles_h_ = (geo_.ho + kM - 1) / kM;
    tiles_w_ = (geo_.wo + kM - 1) / kM;
    tiles_ = geo_.n * tiles_h_ * tiles_w_;
    const int64_t threads = context_->threads();
    int64_t per_block = std::clamp<int64_t>(kVBudgetBytes / (kT * cp_ * 4),
                                            kMinBlockTiles, kMaxBlockTiles);
    blocks_ = (tiles_ + per_block - 1) / per_block;
    split_blocks_ = threads > 1 && blocks_ < 2 * threads;
    if (split_blocks_) {
      // One scratch shared by all threads: blocks may be `threads` times
      // larger (fewer synchronisations).
      per_block = std::min(per_block * threads, kMaxBlockTiles);
      blocks_ = (tiles_ + per_block - 1) / per_block;
    } else if (threads > 1) {
      // A multiple of the thread count of near-equal blocks: equal shares.
      blocks_ = std::min(tiles_, (blocks_ + threads - 1) / threads * threads);
    }
    block_tiles_ = (tiles_ + blocks_ - 1) / blocks_;
    v_.resize(split_blocks_ ? 1 : threads);
    for (std::vector<float>& v : v_) v.resize(kT * block_tiles_ * cp_);
    // Per thread: its packed V_t (packed again for each chunk of output
    // channels: 1/kChunk of the product's work) and its chunk of M.
    work_.resize(threads);
    for (Work& w : work_) {
      w.packed_v.resize(cp_ * block_tiles_);
      w.m.resize(kT * block_tiles_ * kChunk);
    }
    // Output-channel shares of a split block start on GEMM panels.
    const int64_t panels = (op_ + GemmTraits::mr - 1) / GemmTraits::mr;
    o_parts_ = std::min<int64_t>(threads, panels);
    for (int64_t part = 0; part <= o_parts_; ++part) {
      o_bounds_.push_back(
          std::min(op_, panels * part / o_parts_ * GemmTraits::mr));
    }
    if (weight.defined()) {
      // The transform depends on the values, the variant and the padded
      // channel counts (from the weight's shape): the same for every plan.
      prepared_u_ = prepared.Get<Aligned>(
          weight, absl::StrCat("winograd", kM, " U, packed for Eigen's GEMM"),
          [&] { return TransformWeights(weight.data<float>()); });
    }
  }

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    if (prepared_u_ == nullptr) run_u_ = TransformWeights(inputs[1]->data<float>());
    const float* input = inputs[0]->data<float>();
    const float* bias = has_bias_ ? inputs[2]->data<float>() : nullptr;
    float* output = outputs[0]->data<float>();
    if (!split_blocks_) {
      std::atomic<int64_t> next{0};
      context_->ParallelFor(v_.size(), [&](int64_t thread) {
        float* v = v_[thread].data();
        for (int64_t b = next++; b < blocks_; b = next++) {
          const auto [first, count] = BlockTiles(b);
          TransformInput(input, first, count, 0, cp_, v);
          MultiplyAndTransformOutput(first, count, 0, op_, v, work_[thread],
                                     bias, output);
        }
      });
      return absl::OkStatus();
    }
    float* v = v_[0].data();
    for (int64_t b = 0; b < blocks_; ++b) {
      // Plain variables: lambdas below capture them (clang 14, which builds
      // the fuzzers, refuses to capture structured bindings).
      const auto tiles = BlockTiles(b);
      const int64_t first = tiles.first, count = tiles.second;
      if (count <= 0) continue;
      context_->ParallelRange(cp_ / 8, [&](int64_t g0, int64_t g1) {
        TransformInput(input, first, count, g0 * 8, g1 * 8, v);
      });
      context_->ParallelFor(o_parts_, [&](int64_t part) {
        MultiplyAndTransformOutput(first, count, o_bounds_[part],
                                   o_bounds_[part + 1], v, work_[part], bias,
                                   output);
      });
    }
    return absl::OkStatus();
  }

  std::string Describe() const override {
    return absl::StrCat(
        "winograd", kM, ": F(", kM, "x", kM, ",3x3), ", kT, " GEMMs of ",
        geo_.o, "x", geo_.c, " by <= ", block_tiles_, " tiles, ",
        split_blocks_ ? "each block split over threads by channels"
                      : "blocks over threads",
        prepared_u_ != nullptr ? "; weights prepacked (once per model)" : "");
  }

 private:
  // One thread's scratch for the products and the output transform.
  struct Work {
    Aligned packed_v;      // one V_t, packed for the GEMM
    std::vector<float> m;  // T x block_tiles_ x kChunk: a chunk of M
  };

  // Block b's tiles: [first, first + count).
  std::pair<int64_t, int64_t> BlockTiles(int64_t b) const {
    const int64_t first = tiles_ * b / blocks_;
    return {first, tiles_ * (b + 1) / blocks_ - first};
  }

  // U_t = (G g G^T)_t of every weight (o, c), in double, rounded once to
  // float (zero for the padding channels), as T column-major Op x Cp
  // matrices packed into GEMM panels.
  Aligned TransformWeights(const float* weight) const {
    std::vector<float> u(kT * cp_ * op_, 0.0f);  // [t][c][o]
    // o innermost: the writes below run along contiguous rows of u.
    for (int64_t c = 0; c < geo_.c; ++c) {
      for (int64_t o = 0; o < geo_.o; ++o) {
        const float* g = weight + (o * geo_.c + c) * 9;
        double gg[kA][3];  // G g
        for (int i = 0; i < kA; ++i) {
          for (int l = 0; l < 3; ++l) {
            gg[i][l] = F::kG[i][0] * g[l] + F::kG[i][1] * g[3 + l] +
                       F::kG[i][2] * g[6 + l];
          }
        }
        for (int i = 0; i < kA; ++i) {
          for (int j = 0; j < kA; ++j) {
            const double value = gg[i][0] * F::kG[j][0] +
                                 gg[i][1] * F::kG[j][1] + gg[i][2] * F::kG[j][2];
            u[((i * kA + j) * cp_ + c) * op_ + o] = static_cast<float>(value);
          }
        }
      }
    }
    Aligned packed(kT * cp_ * op_);
    PackLhs pack;
    for (int t = 0; t < kT; ++t) {
      pack(packed.data() + t * cp_ * op_, ColMapper(u.data() + t * cp_ * op_, op_),
           cp_, op_);
    }
    return packed;
  }

  const float* u() const {
    return prepared_u_ != nullptr ? prepared_u_->data() : run_u_.data();
  }

  // Where tile `tile` starts: its image and its top-left input or output
  // pixel (input: minus the padding).
  void Locate(int64_t tile, int64_t* n, int64_t* y, int64_t* x) const {
    const int64_t per_image = tiles_h_ * tiles_w_;
    *n = tile / per_image;
    const int64_t r = tile % per_image;
    *y = r / tiles_w_ * kM;
    *x = r % tiles_w_ * kM;
  }

  // V[t][j][c] = (B^T d B)_t for the block's tiles and channels [c0, c1)
  // (multiples of 8).
  void TransformInput(const float* input, int64_t first, int64_t count,
                      int64_t c0, int64_t c1, float* v) const {
    const int64_t plane = geo_.h * geo_.w;
    alignas(32) float patch[kA][kA][kLanes];
    for (int64_t j = 0; j < count; ++j) {
      int64_t n, iy, ix;
      Locate(first + j, &n, &iy, &ix);
      iy -= geo_.attrs.pad_h;
      ix -= geo_.attrs.pad_w;
      const bool inside =
          iy >= 0 && ix >= 0 && iy + kA <= geo_.h && ix + kA <= geo_.w;
      const float* image = input + n * geo_.c * plane;
      for (int64_t cg = c0; cg < c1; cg += kLanes) {
        for (int k = 0; k < kLanes; ++k) {
          const int64_t c = cg + k;
          if (c >= geo_.c) {
            for (int a = 0; a < kA; ++a) {
              for (int b = 0; b < kA; ++b) patch[a][b][k] = 0.0f;
            }
            continue;
          }
          const float* src = image + c * plane;
          if (inside) {
            const float* row = src + iy * geo_.w + ix;
            for (int a = 0; a < kA; ++a, row += geo_.w) {
              for (int b = 0; b < kA; ++b) patch[a][b][k] = row[b];
            }
          } else {
            for (int a = 0; a < kA; ++a) {
              const int64_t y = iy + a;
              for (int b = 0; b < kA; ++b) {
                const int64_t x = ix + b;
                patch[a][b][k] = (y >= 0 && y < geo_.h && x >= 0 && x < geo_.w)
                                     ? src[y * geo_.w + x]
                                     : 0.0f;
              }
            }
          }
        }
        Lanes d[kA][kA], tmp[kA][kA], out[kA][kA];
        for (int a = 0; a < kA; ++a) {
          for (int b = 0; b < kA; ++b) d[a][b] = LoadLanes(patch[a][b]);
        }
        for (int b = 0; b < kA; ++b) F::Input(&d[0][b], kA, &tmp[0][b], kA);
        for (int a = 0; a < kA; ++a) F::Input(&tmp[a][0], 1, &out[a][0], 1);
        for (int a = 0; a < kA; ++a) {
          for (int b = 0; b < kA; ++b) {
            StoreLanes(v + ((a * kA + b) * block_tiles_ + j) * cp_ + cg,
                       out[a][b]);
          }
        }
      }
    }
  }

  // For output channels [o0, o1) (o0 on a GEMM panel), kChunk at a time:
  // M_t = U_t V_t, then each tile's A^T M A + bias (+ ReLU) into the output.
  void MultiplyAndTransformOutput(int64_t first, int64_t count, int64_t o0,
                                  int64_t o1, const float* v, Work& w,
                                  const float* bias, float* output) const {
    for (int64_t oc = o0; oc < o1; oc += kChunk) {
      MultiplyAndTransformChunk(first, count, oc, std::min(o1, oc + kChunk), v,
                                w, bias, output);
    }
  }

  void MultiplyAndTransformChunk(int64_t first, int64_t count, int64_t o0,
                                 int64_t o1, const float* v, Work& w,
                                 const float* bias, float* output) const {
    if (o1 <= o0 || count <= 0) return;
    const int64_t rows = o1 - o0;
    PackRhs pack;
    Gebp gebp;
    for (int t = 0; t < kT; ++t) {
      pack(w.packed_v.data(), ColMapper(v + t * block_tiles_ * cp_, cp_), cp_,
           count);
      float* m = w.m.data() + t * block_tiles_ * kChunk;
      std::fill(m, m + count * kChunk, 0.0f);
      gebp(ResMapper(m, kChunk), u() + t * cp_ * op_ + o0 * cp_,
           w.packed_v.data(), rows, cp_, count, 1.0f);
    }
    const int64_t out_plane = geo_.ho * geo_.wo;
    for (int64_t j = 0; j < count; ++j) {
      int64_t n, oy, ox;
      Locate(first + j, &n, &oy, &ox);
      const int rows_here = static_cast<int>(std::min<int64_t>(kM, geo_.ho - oy));
      const int cols_here = static_cast<int>(std::min<int64_t>(kM, geo_.wo - ox));
      float* tile_out = output + n * geo_.o * out_plane + oy * geo_.wo + ox;
      for (int64_t og = o0; og < o1 && og < geo_.o; og += kLanes) {
        Lanes mt[kA][kA], tmp[kM][kA], y[kM][kM];
        for (int a = 0; a < kA; ++a) {
          for (int b = 0; b < kA; ++b) {
            mt[a][b] = LoadLanes(w.m.data() +
                                 ((a * kA + b) * block_tiles_ + j) * kChunk +
                                 (og - o0));
          }
        }
        for (int b = 0; b < kA; ++b) F::Output(&mt[0][b], kA, &tmp[0][b], kA);
        for (int a = 0; a < kM; ++a) F::Output(&tmp[a][0], 1, &y[a][0], 1);
        // The epilogue of epilogue.h on 8 channels at once: x + bias, then
        // the relu kernel's max(x, 0) (x < 0 ? 0 : x, NaN kept, as
        // std::max(x, 0.0f)) or the clip kernel's Clamp (NaN kept).
        const int lanes = static_cast<int>(std::min<int64_t>(kLanes, geo_.o - og));
        Lanes b = {};
        if (bias != nullptr) {
          alignas(32) float bias_lanes[kLanes] = {};
          std::copy(bias + og, bias + og + lanes, bias_lanes);
          b = LoadLanes(bias_lanes);
        }
        alignas(32) float values[kM][kM][kLanes];
        Lanes low = {}, high = {};
        if (activation_.kind == Activation::Kind::kClip) {
          low += activation_.low;
          high += activation_.high;
        }
        for (int a = 0; a < kM; ++a) {
          for (int c = 0; c < kM; ++c) {
            Lanes x = bias != nullptr ? y[a][c] + b : y[a][c];
            if (activation_.kind != Activation::Kind::kNone) {
              x = x < low ? low : x;  // relu: low = 0
              if (activation_.kind == Activation::Kind::kClip) x = x > high ? high : x;
            }
            StoreLanes(values[a][c], x);
          }
        }
        float* dst0 = tile_out + og * out_plane;
        if (rows_here == kM && cols_here == kM) {
          for (int k = 0; k < lanes; ++k, dst0 += out_plane) {
            float* dst = dst0;
            for (int a = 0; a < kM; ++a, dst += geo_.wo) {
              for (int c = 0; c < kM; ++c) dst[c] = values[a][c][k];
            }
          }
        } else {
          for (int k = 0; k < lanes; ++k, dst0 += out_plane) {
            float* dst = dst0;
            for (int a = 0; a < rows_here; ++a, dst += geo_.wo) {
              for (int c = 0; c < cols_here; ++c) dst[c] = values[a][c][k];
            }
          }
        }
      }
    }
  }

  const Conv2dGeometry geo_;
  const int64_t cp_, op_;  // channels rounded up to 8
  const bool has_bias_;
  const Activation activation_;
  const std::shared_ptr<const CpuContext> context_;
  int64_t tiles_h_ = 0, tiles_w_ = 0, tiles_ = 0;
  int64_t blocks_ = 1;
  int64_t block_tiles_ = 1;  // the most tiles in a block
  bool split_blocks_ = false;
  int64_t o_parts_ = 1;
  std::vector<int64_t> o_bounds_;  // o_parts_ + 1 channel bounds
  // T packed Op x Cp GEMM left operands: of a constant weight, shared by
  // every plan of the model (PreparedWeights); else this run's.
  std::shared_ptr<const Aligned> prepared_u_;
  Aligned run_u_;
  std::vector<std::vector<float>> v_;  // V of a block: per thread, or shared
  std::vector<Work> work_;              // per thread
};

}  // namespace

std::unique_ptr<Kernel> MakeWinogradConv2dKernel(
    const Conv2dGeometry& geo, int m, const Tensor& weight, bool has_bias,
    Activation activation, std::shared_ptr<const CpuContext> context,
    PreparedWeights& prepared) {
  if (m == 2) {
    return std::make_unique<WinogradKernel<F2>>(geo, weight, has_bias, activation,
                                                std::move(context), prepared);
  }
  return std::make_unique<WinogradKernel<F4>>(geo, weight, has_bias, activation,
                                              std::move(context), prepared);
}

}  // namespace cpu
}  // namespace switchyard
