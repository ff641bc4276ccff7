// The transformer ops of opset 23, composed from matmul, softmax, gather
// and elementwise ops: RotaryEmbedding (rotary position embeddings) and
// Attention (scaled dot-product attention with grouped-query heads, masks,
// a key/value cache and the optional QK output).

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"
#include "onnx/float_precision.h"

namespace switchyard {
namespace onnx_import {
namespace {

// `v` sliced to [start, end) along its last axis.
absl::StatusOr<Val> LastAxisSlice(NodeContext& ctx, Val v, int64_t start, int64_t end) {
  const int last = ctx.Type(v).shape.rank() - 1;
  return Op(ctx, "slice", {v},
            Attrs({{"starts", std::vector<int64_t>{start}},
                   {"ends", std::vector<int64_t>{end}},
                   {"axes", std::vector<int64_t>{last}}}));
}

absl::StatusOr<Val> Concat(NodeContext& ctx, std::vector<Val> parts, int64_t axis) {
  return Op(ctx, "concat", std::move(parts), Attrs({{"axis", axis}}));
}

absl::StatusOr<Val> Transpose(NodeContext& ctx, Val v, std::vector<int64_t> perm) {
  return Op(ctx, "transpose", {v}, Attrs({{"perm", std::move(perm)}}));
}

// ---------------------------------------------------------------------------
// RotaryEmbedding

// The position ids, checked against the cache's `rows`: on the host each
// one now; computed at run time, gather checks them, and negative ones
// (which gather would count from the end) are first replaced by `rows`, out
// of range, so gather refuses them too.
absl::StatusOr<Val> CheckedPositionIds(NodeContext& ctx, int64_t batch, int64_t seq,
                                       int64_t rows) {
  const Val ids = ctx.In(3);
  if (ctx.Type(ids).dtype != DType::kInt64 || ctx.InShape(3) != Shape({batch, seq})) {
    return absl::InvalidArgumentError(absl::StrCat(
        "position_ids is ", DTypeName(ctx.Type(ids).dtype), " ", ctx.InShape(3).ToString(),
        "; it must be int64 [batch, sequence_length] = [", batch, ", ", seq, "]"));
  }
  if (ctx.Host(ids) != nullptr) {
    SY_ASSIGN_OR_RETURN(std::vector<int64_t> values, ctx.ConstInts(3, "position_ids"));
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] < 0 || values[i] >= rows) {
        const int64_t k = static_cast<int64_t>(i);
        return absl::InvalidArgumentError(absl::StrCat(
            "position_ids[", k / seq, ", ", k % seq, "] is ", values[i],
            "; it must be in [0, ", rows, ") (the rows of cos_cache and sin_cache)"));
      }
    }
    return ids;
  }
  SY_ASSIGN_OR_RETURN(Val negative, Op(ctx, "less", {ids, Scalar(ctx, 0, DType::kInt64)}));
  return Op(ctx, "where",
            {negative, Scalar(ctx, static_cast<double>(rows), DType::kInt64), ids});
}

// The cos or sin values per token as [B, S, R / 2]: the cache rows `ids`
// pick, or the cache itself when there are no ids (ids == kNoVal).
absl::StatusOr<Val> RotaryValues(NodeContext& ctx, int input, const char* name, Val ids,
                                 int64_t batch, int64_t seq, int64_t half) {
  const Shape& cache = ctx.InShape(input);
  const DType t = ctx.Type(ctx.In(0)).dtype;
  if (ctx.Type(ctx.In(input)).dtype != t) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " is ", DTypeName(ctx.Type(ctx.In(input)).dtype),
        "; it must have X's dtype ", DTypeName(t)));
  }
  if (ids == kNoVal) {
    if (cache != Shape({batch, seq, half})) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " is ", cache.ToString(), "; without position_ids it must be [batch, "
          "sequence_length, rotary_embedding_dim / 2] = [", batch, ", ", seq, ", ", half, "]"));
    }
    return ctx.In(input);
  }
  if (cache.rank() != 2 || cache.dim(1) != half || cache.dim(0) < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " is ", cache.ToString(), "; with position_ids it must be [max_position_id + 1, "
        "rotary_embedding_dim / 2] = [M, ", half, "] with M >= 1"));
  }
  return Op(ctx, "gather", {ctx.In(input), ids}, Attrs({{"axis", int64_t{0}}}));
}

// RotaryEmbedding: the first R = rotary_embedding_dim (default: all) values
// of each head, as R / 2 pairs (x1, x2) (the two halves, or neighbours when
// interleaved), become (cos * x1 - sin * x2, sin * x1 + cos * x2); the rest
// pass through. Works on [B, H, S, D] (4-D) or [B, S, H, D] (3-D reshaped),
// with the cos and sin values shaped to broadcast over the heads.
absl::Status ConvertRotaryEmbedding(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(int64_t interleaved, ctx.Int("interleaved", 0));
  SY_ASSIGN_OR_RETURN(int64_t num_heads, ctx.Int("num_heads", 0));
  SY_ASSIGN_OR_RETURN(int64_t rotary_dim, ctx.Int("rotary_embedding_dim", 0));
  const Shape x = ctx.InShape(0);
  if (!IsFloatingPoint(ctx.Type(ctx.In(0)).dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "X is ", DTypeName(ctx.Type(ctx.In(0)).dtype), "; RotaryEmbedding takes floats"));
  }
  int64_t batch, seq, heads, head_size;
  if (x.rank() == 4) {
    batch = x.dim(0), heads = x.dim(1), seq = x.dim(2), head_size = x.dim(3);
    if (num_heads != 0 && num_heads != heads) {
      return absl::InvalidArgumentError(absl::StrCat(
          "num_heads is ", num_heads, " but the 4-D X ", x.ToString(), " has ", heads,
          " heads ([batch, num_heads, sequence_length, head_size])"));
    }
  } else if (x.rank() == 3) {
    batch = x.dim(0), seq = x.dim(1);
    if (num_heads <= 0 || x.dim(2) % num_heads != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "num_heads is ", num_heads, "; a 3-D X [batch, sequence_length, hidden_size] = ",
          x.ToString(), " needs num_heads > 0 dividing hidden_size ", x.dim(2)));
    }
    heads = num_heads;
    head_size = x.dim(2) / num_heads;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "X must be 3-D [batch, sequence_length, hidden_size] or 4-D [batch, num_heads, "
        "sequence_length, head_size], got ", x.ToString()));
  }
  if (rotary_dim == 0) rotary_dim = head_size;
  if (rotary_dim < 2 || rotary_dim > head_size || rotary_dim % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rotary_embedding_dim is ", rotary_dim, " (0 means head_size, ", head_size,
        "); it must be even and in [2, head_size]"));
  }
  const int64_t half = rotary_dim / 2;
  Val ids = kNoVal;
  if (ctx.HasInput(3)) {
    const Shape& cos_cache = ctx.InShape(1);
    if (cos_cache.rank() != 2 || ctx.InShape(2) != cos_cache) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cos_cache ", cos_cache.ToString(), " and sin_cache ", ctx.InShape(2).ToString(),
          " must both be [max_position_id + 1, rotary_embedding_dim / 2 = ", half,
          "] with position_ids"));
    }
    SY_ASSIGN_OR_RETURN(ids, CheckedPositionIds(ctx, batch, seq, cos_cache.dim(0)));
  }
  SY_ASSIGN_OR_RETURN(Val cos, RotaryValues(ctx, 1, "cos_cache", ids, batch, seq, half));
  SY_ASSIGN_OR_RETURN(Val sin, RotaryValues(ctx, 2, "sin_cache", ids, batch, seq, half));

  // Heads layout: [B, H, S, D] for 4-D, [B, S, H, D] for 3-D; cos and sin
  // get a 1 where the heads are (and a trailing 1 for interleaved pairs).
  const bool four_d = x.rank() == 4;
  Val in = ctx.In(0);
  if (!four_d) {
    SY_ASSIGN_OR_RETURN(in, Reshape(ctx, in, {batch, seq, heads, head_size}));
  }
  std::vector<int64_t> trig_shape =
      four_d ? std::vector<int64_t>{batch, 1, seq, half} : std::vector<int64_t>{batch, seq, 1, half};
  if (interleaved != 0) trig_shape.push_back(1);
  SY_ASSIGN_OR_RETURN(cos, Reshape(ctx, cos, trig_shape));
  SY_ASSIGN_OR_RETURN(sin, Reshape(ctx, sin, trig_shape));

  const Shape heads_shape = ctx.Type(in).shape;
  SY_ASSIGN_OR_RETURN(Val rotated_part, LastAxisSlice(ctx, in, 0, rotary_dim));
  Val x1, x2;
  if (interleaved != 0) {
    // [..., R] -> [..., R / 2, 2]: pairs are neighbours.
    std::vector<int64_t> pairs = heads_shape.dims();
    pairs.back() = half;
    pairs.push_back(2);
    SY_ASSIGN_OR_RETURN(Val paired, Reshape(ctx, rotated_part, pairs));
    SY_ASSIGN_OR_RETURN(x1, LastAxisSlice(ctx, paired, 0, 1));
    SY_ASSIGN_OR_RETURN(x2, LastAxisSlice(ctx, paired, 1, 2));
  } else {
    SY_ASSIGN_OR_RETURN(x1, LastAxisSlice(ctx, rotated_part, 0, half));
    SY_ASSIGN_OR_RETURN(x2, LastAxisSlice(ctx, rotated_part, half, rotary_dim));
  }
  SY_ASSIGN_OR_RETURN(Val cos_x1, Op(ctx, "mul", {cos, x1}));
  SY_ASSIGN_OR_RETURN(Val sin_x2, Op(ctx, "mul", {sin, x2}));
  SY_ASSIGN_OR_RETURN(Val sin_x1, Op(ctx, "mul", {sin, x1}));
  SY_ASSIGN_OR_RETURN(Val cos_x2, Op(ctx, "mul", {cos, x2}));
  SY_ASSIGN_OR_RETURN(Val real, Op(ctx, "sub", {cos_x1, sin_x2}));
  SY_ASSIGN_OR_RETURN(Val imag, Op(ctx, "add", {sin_x1, cos_x2}));
  const int64_t last = heads_shape.rank() - 1;
  Val rotated;
  if (interleaved != 0) {
    SY_ASSIGN_OR_RETURN(Val pairs, Concat(ctx, {real, imag}, last + 1));
    std::vector<int64_t> flat = heads_shape.dims();
    flat.back() = rotary_dim;
    SY_ASSIGN_OR_RETURN(rotated, Reshape(ctx, pairs, flat));
  } else {
    SY_ASSIGN_OR_RETURN(rotated, Concat(ctx, {real, imag}, last));
  }
  Val y = rotated;
  if (rotary_dim < head_size) {
    SY_ASSIGN_OR_RETURN(Val rest, LastAxisSlice(ctx, in, rotary_dim, head_size));
    SY_ASSIGN_OR_RETURN(y, Concat(ctx, {rotated, rest}, last));
  }
  SY_ASSIGN_OR_RETURN(y, Reshape(ctx, y, x.dims()));
  return ctx.SetOutput(0, y);
}

// ---------------------------------------------------------------------------
// Attention

// Input `i` (Q, K or V) as [B, heads, S, head_size]: 4-D as it is, 3-D
// [B, S, heads * head_size] split into `heads` (the attribute `heads_attr`).
struct Heads {
  Val value = kNoVal;
  int64_t batch = 0, heads = 0, seq = 0, size = 0;
};

absl::StatusOr<Heads> ToHeads(NodeContext& ctx, int i, const char* name,
                              const char* heads_attr, int64_t heads_value) {
  const Shape& s = ctx.InShape(i);
  Heads h;
  h.value = ctx.In(i);
  if (s.rank() == 4) {
    h.batch = s.dim(0), h.heads = s.dim(1), h.seq = s.dim(2), h.size = s.dim(3);
    return h;
  }
  if (s.rank() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be 3-D [batch, sequence_length, hidden_size] or 4-D [batch, heads, "
        "sequence_length, head_size], got ", s.ToString()));
  }
  if (heads_value <= 0 || s.dim(2) % heads_value != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        heads_attr, " is ", heads_value, "; the 3-D ", name, " ", s.ToString(), " needs ",
        heads_attr, " > 0 dividing its hidden size ", s.dim(2)));
  }
  h.batch = s.dim(0), h.seq = s.dim(1), h.heads = heads_value, h.size = s.dim(2) / heads_value;
  SY_ASSIGN_OR_RETURN(h.value, Reshape(ctx, h.value, {h.batch, h.seq, h.heads, h.size}));
  SY_ASSIGN_OR_RETURN(h.value, Transpose(ctx, h.value, {0, 2, 1, 3}));
  return h;
}

// The past cache input `i` joined before the new keys or values `kv`
// along the sequence.
absl::StatusOr<Val> WithPast(NodeContext& ctx, int i, const char* name, const Heads& kv) {
  const Shape& past = ctx.InShape(i);
  if (past.rank() != 4 || past.dim(0) != kv.batch || past.dim(1) != kv.heads ||
      past.dim(3) != kv.size) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " is ", past.ToString(), "; it must be [batch, kv_num_heads, past_sequence_length, ",
        "head_size] = [", kv.batch, ", ", kv.heads, ", P, ", kv.size, "]"));
  }
  return Concat(ctx, {ctx.In(i), kv.value}, 2);
}

// Keys or values [B, Hkv, T, D] repeated to [B, Hkv * g, T, D]: query head
// j reads kv head j / g.
absl::StatusOr<Val> RepeatHeads(NodeContext& ctx, Val v, int64_t g) {
  if (g == 1) return v;
  const Shape s = ctx.Type(v).shape;
  SY_ASSIGN_OR_RETURN(Val r, Reshape(ctx, v, {s.dim(0), s.dim(1), 1, s.dim(2), s.dim(3)}));
  SY_ASSIGN_OR_RETURN(
      r, Op(ctx, "expand", {r},
            Attrs({{"shape", std::vector<int64_t>{s.dim(0), s.dim(1), g, s.dim(2), s.dim(3)}}})));
  return Reshape(ctx, r, {s.dim(0), s.dim(1) * g, s.dim(2), s.dim(3)});
}

// The largest causal mask made at import (256 MiB of float32).
constexpr int64_t kMaxCausalBiasElements = int64_t{1} << 26;

// A host constant [rows, cols] of dtype `t`: 0 where key j is visible to
// query i (j <= i + offset), -inf elsewhere.
Val CausalBias(NodeContext& ctx, int64_t rows, int64_t cols, int64_t offset, DType t) {
  std::vector<char> bytes(static_cast<size_t>(rows * cols) * DTypeSize(t));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      SetElementFromDouble(bytes.data(), t, i * cols + j,
                           j <= i + offset ? 0.0 : -std::numeric_limits<double>::infinity());
    }
  }
  return ctx.Constant(HostArray(Shape({rows, cols}), t, std::move(bytes)));
}

// The attention mask as an additive bias: a bool mask is 0 where true,
// -inf where false; a float mask is added as it is. It must broadcast to
// the scores [B, Hq, Sq, T].
absl::StatusOr<Val> MaskBias(NodeContext& ctx, const Shape& scores, DType t) {
  const Val mask = ctx.In(3);
  const Shape& m = ctx.InShape(3);
  bool broadcasts = m.rank() <= 4;
  for (int k = 1; broadcasts && k <= m.rank(); ++k) {
    const int64_t d = m.dim(m.rank() - k);
    broadcasts = d == 1 || d == scores.dim(4 - k);
  }
  if (!broadcasts) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attn_mask is ", m.ToString(), "; it must broadcast to [batch, q_num_heads, "
        "q_sequence_length, total_sequence_length] = ", scores.ToString(),
        " (total_sequence_length = past_sequence_length + kv_sequence_length)"));
  }
  const DType mt = ctx.Type(mask).dtype;
  if (mt == DType::kBool) {
    return Op(ctx, "where", {mask, Scalar(ctx, 0.0, t),
                             Scalar(ctx, -std::numeric_limits<double>::infinity(), t)});
  }
  if (mt != t) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attn_mask is ", DTypeName(mt), "; it must be bool or Q's dtype ", DTypeName(t)));
  }
  return mask;
}

// Attention (opset 23): softmax(Q K^T * scale (soft-capped) + mask and
// causal biases) V per head, query heads sharing kv heads in groups; past
// keys and values are prepended (the present outputs). A query row no key
// may see is zeros, as ONNX's errata and ONNX Runtime give, not NaN.
absl::Status ConvertAttention(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(int64_t is_causal, ctx.Int("is_causal", 0));
  SY_ASSIGN_OR_RETURN(int64_t q_num_heads, ctx.Int("q_num_heads", 0));
  SY_ASSIGN_OR_RETURN(int64_t kv_num_heads, ctx.Int("kv_num_heads", 0));
  SY_ASSIGN_OR_RETURN(int64_t qk_mode, ctx.Int("qk_matmul_output_mode", 0));
  SY_ASSIGN_OR_RETURN(float softcap, ctx.Float("softcap", 0.0f));
  const DType t = ctx.Type(ctx.In(0)).dtype;
  SY_ASSIGN_OR_RETURN(DType softmax_type, FloatPrecisionAttr(ctx, "softmax_precision", t));
  if (!IsFloatingPoint(t)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Q is ", DTypeName(t), "; Attention takes floating-point Q, K and V"));
  }
  for (int i : {1, 2}) {
    if (ctx.Type(ctx.In(i)).dtype != t) {
      return absl::InvalidArgumentError(absl::StrCat(
          i == 1 ? "K" : "V", " is ", DTypeName(ctx.Type(ctx.In(i)).dtype),
          "; Switchyard needs Q, K and V of one dtype (Q is ", DTypeName(t), ")"));
    }
  }
  if (ctx.num_inputs() > 6 && ctx.HasInput(6)) {
    return absl::UnimplementedError("nonpad_kv_seqlen (Attention version 24) is not supported");
  }
  if (qk_mode < 0 || qk_mode > 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "qk_matmul_output_mode is ", qk_mode, "; it must be 0 (Q K^T), 1 (after softcap), "
        "2 (after the mask) or 3 (after softmax)"));
  }
  if (!std::isfinite(softcap) || softcap < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softcap is ", softcap, "; it must be finite and >= 0 (0: no soft cap)"));
  }
  const bool q3 = ctx.InShape(0).rank() == 3;
  const bool k3 = ctx.InShape(1).rank() == 3;
  SY_ASSIGN_OR_RETURN(Heads q, ToHeads(ctx, 0, "Q", "q_num_heads", q_num_heads));
  SY_ASSIGN_OR_RETURN(Heads k, ToHeads(ctx, 1, "K", "kv_num_heads", kv_num_heads));
  SY_ASSIGN_OR_RETURN(Heads v, ToHeads(ctx, 2, "V", "kv_num_heads", kv_num_heads));
  if (!q3 && q_num_heads != 0 && q_num_heads != q.heads) {
    return absl::InvalidArgumentError(absl::StrCat(
        "q_num_heads is ", q_num_heads, " but the 4-D Q has ", q.heads, " heads"));
  }
  if (!k3 && kv_num_heads != 0 && kv_num_heads != k.heads) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kv_num_heads is ", kv_num_heads, " but the 4-D K has ", k.heads, " heads"));
  }
  if (k.batch != q.batch || v.batch != q.batch) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Q, K and V have batch sizes ", q.batch, ", ", k.batch, " and ", v.batch,
        "; they must agree"));
  }
  if (k.size != q.size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "K's head_size is ", k.size, " but Q's is ", q.size, "; they must agree"));
  }
  if (v.heads != k.heads || v.seq != k.seq) {
    return absl::InvalidArgumentError(absl::StrCat(
        "V has ", v.heads, " heads and ", v.seq, " positions but K has ", k.heads, " and ",
        k.seq, "; they must agree"));
  }
  if (k.heads <= 0 || q.heads % k.heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Q has ", q.heads, " heads and K and V have ", k.heads,
        " (kv_num_heads); q_num_heads must be a multiple of kv_num_heads"));
  }
  const bool has_past_key = ctx.num_inputs() > 4 && ctx.HasInput(4);
  const bool has_past_value = ctx.num_inputs() > 5 && ctx.HasInput(5);
  if (has_past_key != has_past_value) {
    return absl::InvalidArgumentError(absl::StrCat(
        has_past_key ? "past_key is given without past_value"
                     : "past_value is given without past_key",
        "; the cache needs both past_key and past_value"));
  }
  int64_t past = 0;
  if (has_past_key) {
    past = ctx.InShape(4).rank() == 4 ? ctx.InShape(4).dim(2) : 0;
    if (ctx.InShape(5).rank() != 4 || ctx.InShape(5).dim(2) != past) {
      return absl::InvalidArgumentError(absl::StrCat(
          "past_value is ", ctx.InShape(5).ToString(), " and past_key ",
          ctx.InShape(4).ToString(), "; their past_sequence_length must agree"));
    }
    SY_ASSIGN_OR_RETURN(k.value, WithPast(ctx, 4, "past_key", k));
    SY_ASSIGN_OR_RETURN(v.value, WithPast(ctx, 5, "past_value", v));
  }
  if (ctx.num_outputs() > 1) SY_RETURN_IF_ERROR(ctx.SetOutput(1, k.value));
  if (ctx.num_outputs() > 2) SY_RETURN_IF_ERROR(ctx.SetOutput(2, v.value));
  const int64_t total = past + k.seq;

  // Scores: (Q sqrt(scale)) (K sqrt(scale))^T, the split keeping fp16 in
  // range as ONNX suggests; a negative scale scales Q alone.
  double scale = 1.0 / std::sqrt(static_cast<double>(q.size > 0 ? q.size : 1));
  if (ctx.HasAttr("scale")) {
    SY_ASSIGN_OR_RETURN(float s, ctx.Float("scale", 0.0f));
    if (!std::isfinite(s)) {
      return absl::InvalidArgumentError(absl::StrCat("scale is ", s, "; it must be finite"));
    }
    scale = s;
  }
  const double q_factor = scale >= 0 ? std::sqrt(scale) : scale;
  const double k_factor = scale >= 0 ? std::sqrt(scale) : 1.0;
  SY_ASSIGN_OR_RETURN(Val keys, RepeatHeads(ctx, k.value, q.heads / k.heads));
  SY_ASSIGN_OR_RETURN(Val values, RepeatHeads(ctx, v.value, q.heads / k.heads));
  SY_ASSIGN_OR_RETURN(Val qs, Op(ctx, "mul", {q.value, Scalar(ctx, q_factor, t)}));
  SY_ASSIGN_OR_RETURN(Val ks, Op(ctx, "mul", {keys, Scalar(ctx, k_factor, t)}));
  SY_ASSIGN_OR_RETURN(Val kt, Transpose(ctx, ks, {0, 1, 3, 2}));
  SY_ASSIGN_OR_RETURN(Val scores, Op(ctx, "matmul", {qs, kt}));
  Val qk_output = scores;  // mode 0
  if (softcap > 0) {
    SY_ASSIGN_OR_RETURN(Val over, Op(ctx, "div", {scores, Scalar(ctx, softcap, t)}));
    SY_ASSIGN_OR_RETURN(Val th, Op(ctx, "tanh", {over}));
    SY_ASSIGN_OR_RETURN(scores, Op(ctx, "mul", {th, Scalar(ctx, softcap, t)}));
  }
  if (qk_mode == 1) qk_output = scores;
  const Shape scores_shape({q.batch, q.heads, q.seq, total});
  const bool masked = ctx.num_inputs() > 3 && ctx.HasInput(3);
  if (masked) {
    SY_ASSIGN_OR_RETURN(Val bias, MaskBias(ctx, scores_shape, t));
    SY_ASSIGN_OR_RETURN(scores, Op(ctx, "add", {scores, bias}));
  }
  if (is_causal != 0) {
    if (q.seq * total > kMaxCausalBiasElements) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the causal mask would be [", q.seq, ", ", total, "], built on the host at import; "
          "Switchyard allows at most ", kMaxCausalBiasElements, " elements"));
    }
    // Bottom-right aligned: the past keys are all visible.
    SY_ASSIGN_OR_RETURN(scores,
                        Op(ctx, "add", {scores, CausalBias(ctx, q.seq, total, past, t)}));
  }
  if (qk_mode == 2) qk_output = scores;
  SY_ASSIGN_OR_RETURN(Val logits, CastTo(ctx, scores, softmax_type));
  SY_ASSIGN_OR_RETURN(Val probs, Op(ctx, "softmax", {logits}, Attrs({{"dim", int64_t{-1}}})));
  SY_ASSIGN_OR_RETURN(probs, CastTo(ctx, probs, t));
  if (masked) {
    // Rows whose every score is -inf give NaN in softmax: zeros instead.
    SY_ASSIGN_OR_RETURN(
        Val row_max, Op(ctx, "reduce_max", {scores},
                        Attrs({{"axes", std::vector<int64_t>{3}}, {"keepdims", true}})));
    SY_ASSIGN_OR_RETURN(
        Val none_visible,
        Op(ctx, "equal", {row_max, Scalar(ctx, -std::numeric_limits<double>::infinity(), t)}));
    SY_ASSIGN_OR_RETURN(probs, Op(ctx, "where", {none_visible, Scalar(ctx, 0.0, t), probs}));
  }
  if (qk_mode == 3) qk_output = probs;
  SY_ASSIGN_OR_RETURN(Val y, Op(ctx, "matmul", {probs, values}));
  if (q3) {
    SY_ASSIGN_OR_RETURN(y, Transpose(ctx, y, {0, 2, 1, 3}));
    SY_ASSIGN_OR_RETURN(y, Reshape(ctx, y, {q.batch, q.seq, q.heads * v.size}));
  }
  SY_RETURN_IF_ERROR(ctx.SetOutput(0, y));
  if (ctx.num_outputs() > 3) SY_RETURN_IF_ERROR(ctx.SetOutput(3, qk_output));
  return absl::OkStatus();
}

SY_REGISTER_ONNX_CONVERTER("RotaryEmbedding", ConvertRotaryEmbedding, 3);
SY_REGISTER_ONNX_CONVERTER("Attention", ConvertAttention, 3);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
