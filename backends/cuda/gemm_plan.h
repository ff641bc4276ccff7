#ifndef SWITCHYARD_BACKENDS_CUDA_GEMM_PLAN_H_
#define SWITCHYARD_BACKENDS_CUDA_GEMM_PLAN_H_

// How matmul, gemm and linear become cublasLtMatmul calls: the layouts,
// transposes, batch counts and strides, alpha/beta and the C operand, worked
// out on the host from shapes alone. No CUDA here (not even its headers), so
// //backends/cuda:gemm_plan_test checks every case without a GPU;
// kernels/cublaslt_matmul.h turns an LtMatmulArgs into cuBLASLt descriptors.
//
// Row-major tensors are cuBLAS's column-major matrices transposed: y [M, N]
// is an N x M matrix with leading dimension N. So y = op(a) op(b) is computed
// as y^T = op(b)^T op(a)^T: cuBLASLt's A is the node's b (the weight of a
// linear), its B the node's a, its D the output. Nothing moves in memory;
// a transpose of the node (gemm's trans_a/trans_b, linear's weight) becomes
// TRANSA/TRANSB.
//
//   absl::StatusOr<GemmPlan> plan = PlanMatmul(Shape({8, 3, 4}), Shape({4, 5}));
//   plan->route == GemmRoute::kCublasLt; plan->folded_into_rows  // [24,4]x[4,5]
//   for (const LtCall& call : plan->calls) ...  // one cublasLtMatmul each

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/shape.h"
#include "ops/gemm_attrs.h"
#include "ops/matmul_geometry.h"

namespace switchyard {
namespace cuda {

// One operand as cuBLASLt sees it: a column-major rows x cols matrix with
// leading dimension ld (before TRANSA/TRANSB), batch_count of them
// batch_stride elements apart (0: the same matrix for every batch entry,
// which is how a broadcast operand is read).
struct LtLayout {
  int64_t rows = 0, cols = 0, ld = 0;
  int64_t batch_count = 1;
  int64_t batch_stride = 0;
};

// The arguments of one set of cublasLtMatmul calls, D = alpha op(A) op(B) +
// beta C (+ bias), in cuBLASLt's terms (A is the node's b, see the top).
// C, when read, has D's layout.
struct LtMatmulArgs {
  bool trans_a = false, trans_b = false;  // TRANSA, TRANSB
  LtLayout a, b, d;
  float alpha = 1.0f, beta = 0.0f;
  // CUBLASLT_EPILOGUE_BIAS: bias[r] added to D's row r (a linear's bias,
  // one per output feature). Never a ReLU epilogue: cuBLASLt's turns NaN
  // into 0 where cpu:0 and PyTorch keep it, so linear+relu runs relu.cu.
  bool bias_epilogue = false;
  // The largest power of two, at most 256, that divides the byte address of
  // every A, B, C and D pointer a call passes and every batch stride (the
  // buffers themselves are 256-byte aligned): cuBLASLt's heuristic is told
  // (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*), as it assumes 256 otherwise.
  int alignment_bytes = 256;
};

// y = op(a) op(b) for row-major a ([M, K], or [K, M] with trans_a), b
// ([K, N], or [N, K] with trans_b) and y [M, N]; alpha 1, beta 0, one matrix.
LtMatmulArgs RowMajorProduct(int64_t m, int64_t n, int64_t k, bool trans_a,
                             bool trans_b);

// linear: y [rows, out] = x [rows, in] w^T (+ bias [out] in the epilogue).
LtMatmulArgs PlanLinear(int64_t rows, int64_t in, int64_t out, bool has_bias);

enum class GemmRoute {
  kNothing,     // the output is empty
  kCublasLt,    // `calls` through cuBLASLt
  kTileKernel,  // kernels/gemm.cu, for what cuBLASLt cannot take (`why`)
};

// Element offsets into the node's a, b and y of one cublasLtMatmul call
// (its batch then starts there).
struct LtCall {
  int64_t a = 0, b = 0, y = 0;
};

// gemm's c: not read, read as cuBLASLt's C (c is already [M, N]), or copied
// broadcast into y first and then read back as C = D = y (any other shape
// ONNX allows: [], [1], [N], [1, N], [M, 1]; cuBLASLt's C has no
// broadcast).
enum class GemmC { kNone, kInput, kBroadcastIntoOutput };

struct GemmPlan {
  GemmRoute route = GemmRoute::kNothing;
  std::string why;  // kTileKernel: what cuBLASLt cannot take
  LtMatmulArgs lt;
  std::vector<LtCall> calls;  // kCublasLt: at least one
  GemmC c = GemmC::kNone;
  GemmBiasSteps c_steps;  // kBroadcastIntoOutput: where c[i, j] is read
  // What the batch became, for tests and messages: b's one matrix shared by
  // every batch entry, so the batch folded into a's rows (one plain GEMM);
  // a's or b's matrix reused along cuBLASLt's strided batch (stride 0).
  bool folded_into_rows = false;
  bool a_broadcast = false, b_broadcast = false;
};

// Above this many cuBLASLt calls (batch dimensions that no single stride
// describes, e.g. [B, 1, M, K] x [1, C, K, N]), each of fewer than
// kMinMacsPerCall multiply-adds, one launch of the tile kernel is cheaper
// than the host's per-call cost.
inline constexpr int64_t kMaxLtCalls = 64;
inline constexpr int64_t kMinMacsPerCall = int64_t{1} << 24;

// matmul (numpy.matmul, ops/matmul_geometry.h): a broadcast batch as one
// strided-batched call where one stride per operand describes it, a shared b
// folded into the rows, else a loop of calls over the other batch
// dimensions. InvalidArgument from MatmulGeometryOf.
absl::StatusOr<GemmPlan> PlanMatmul(const Shape& a, const Shape& b);

// gemm (ONNX Gemm): a and b 2-D, c null when the node has none.
// InvalidArgument for shapes that do not fit together.
absl::StatusOr<GemmPlan> PlanGemm(const Shape& a, const Shape& b, const Shape* c,
                                  const GemmAttrs& attrs);

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_GEMM_PLAN_H_
