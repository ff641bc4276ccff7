// ONNX RNN, GRU and LSTM, unrolled over the sequence: within one plan the
// sequence length is known (a staged run converts the model per input
// shape), so each time step is a matmul with the recurrent weights and the
// gates' elementwise ops. The input projection of every step is one matmul
// up front ([seq, batch, input] x [input, gates * hidden]).
//
// Per-sequence lengths (input sequence_lens) mask each step: a batch row
// whose sequence has ended keeps its state and writes zeros to Y; reversed
// directions start each row at its own last element the same way.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "onnx/activation_formulas.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {
namespace {

enum class Cell { kRnn, kGru, kLstm };

// The most time steps (of all directions) one node unrolls into: each is a
// few dozen graph nodes.
constexpr int64_t kMaxUnrolledSteps = 16384;

int Gates(Cell cell) { return cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4; }
// Activations per direction: f (RNN); f, g (GRU); f, g, h (LSTM).
std::vector<std::string> DefaultActivations(Cell cell) {
  switch (cell) {
    case Cell::kRnn: return {"Tanh"};
    case Cell::kGru: return {"Sigmoid", "Tanh"};
    case Cell::kLstm: return {"Sigmoid", "Tanh", "Tanh"};
  }
  return {};
}

struct Activation {
  std::string name;  // lower case
  float alpha = 0, beta = 0;
};

// The activations as ONNX lists them, with their alpha and beta: each
// function that takes a parameter consumes the next value of
// activation_alpha / activation_beta, else its default.
absl::StatusOr<std::vector<Activation>> ReadActivations(NodeContext& ctx, Cell cell,
                                                        int directions) {
  std::vector<std::string> names;
  if (const onnx::AttributeProto* a = ctx.Attr("activations")) {
    for (const std::string& s : a->strings()) names.push_back(s);
  } else {
    for (int d = 0; d < directions; ++d) {
      for (const std::string& s : DefaultActivations(cell)) names.push_back(s);
    }
  }
  const size_t per_direction = DefaultActivations(cell).size();
  if (names.size() != per_direction * directions) {
    return absl::InvalidArgumentError(absl::StrCat(
        "activations lists ", names.size(), " functions; ", per_direction,
        " per direction are needed for ", directions, " direction(s)"));
  }
  std::vector<float> alphas, betas;
  if (ctx.HasAttr("activation_alpha")) {
    SY_ASSIGN_OR_RETURN(alphas, ctx.Floats("activation_alpha"));
  }
  if (ctx.HasAttr("activation_beta")) {
    SY_ASSIGN_OR_RETURN(betas, ctx.Floats("activation_beta"));
  }
  size_t next_alpha = 0, next_beta = 0;
  std::vector<Activation> out;
  for (const std::string& name : names) {
    Activation f{absl::AsciiStrToLower(name)};
    float default_alpha = 0, default_beta = 0;
    bool alpha = true, beta = false;
    if (f.name == "leakyrelu") {
      default_alpha = 0.01f;
    } else if (f.name == "thresholdedrelu" || f.name == "elu") {
      default_alpha = 1.0f;
    } else if (f.name == "hardsigmoid") {
      default_alpha = 0.2f, default_beta = 0.5f, beta = true;
    } else if (f.name == "affine" || f.name == "scaledtanh") {
      default_alpha = 1.0f, default_beta = 0.0f, beta = true;
    } else if (f.name == "sigmoid" || f.name == "tanh" || f.name == "relu" ||
               f.name == "softsign" || f.name == "softplus") {
      alpha = false;
    } else {
      return absl::UnimplementedError(absl::StrCat(
          "activation '", name, "' is not supported (Sigmoid, Tanh, Relu, LeakyRelu, "
          "ThresholdedRelu, Elu, HardSigmoid, Affine, ScaledTanh, Softsign, Softplus)"));
    }
    f.alpha = alpha && next_alpha < alphas.size() ? alphas[next_alpha++] : default_alpha;
    f.beta = beta && next_beta < betas.size() ? betas[next_beta++] : default_beta;
    out.push_back(f);
  }
  return out;
}

absl::StatusOr<Val> Activate(NodeContext& ctx, const Activation& f, Val x) {
  const DType t = ctx.Type(x).dtype;
  auto scalar = [&](double v) { return Scalar(ctx, v, t); };
  if (f.name == "sigmoid") return Op(ctx, "sigmoid", {x});
  if (f.name == "tanh") return Op(ctx, "tanh", {x});
  if (f.name == "relu") return Op(ctx, "relu", {x});
  if (f.name == "leakyrelu") {
    return Op(ctx, "leaky_relu", {x}, Attrs({{"alpha", double{f.alpha}}}));
  }
  if (f.name == "hardsigmoid") {
    return Op(ctx, "hard_sigmoid", {x},
              Attrs({{"alpha", double{f.alpha}}, {"beta", double{f.beta}}}));
  }
  if (f.name == "affine") {
    SY_ASSIGN_OR_RETURN(Val s, Op(ctx, "mul", {x, scalar(f.alpha)}));
    return Op(ctx, "add", {s, scalar(f.beta)});
  }
  if (f.name == "scaledtanh") {
    SY_ASSIGN_OR_RETURN(Val s, Op(ctx, "mul", {x, scalar(f.beta)}));
    SY_ASSIGN_OR_RETURN(Val th, Op(ctx, "tanh", {s}));
    return Op(ctx, "mul", {th, scalar(f.alpha)});
  }
  if (f.name == "thresholdedrelu") return ThresholdedReluOf(ctx, x, f.alpha);
  if (f.name == "elu") return EluOf(ctx, x, f.alpha);
  if (f.name == "softsign") return SoftsignOf(ctx, x);
  return SoftplusOf(ctx, x);
}

// x[start:end] along `axis`.
absl::StatusOr<Val> SliceOf(NodeContext& ctx, Val x, int64_t axis, int64_t start,
                            int64_t end) {
  return Op(ctx, "slice", {x},
            Attrs({{"starts", std::vector<int64_t>{start}},
                   {"ends", std::vector<int64_t>{end}},
                   {"axes", std::vector<int64_t>{axis}}}));
}

// Direction d's [rows, cols] matrix of a [directions, rows, cols] input,
// transposed to [cols, rows] for x * M^T.
absl::StatusOr<Val> DirectionMatrixT(NodeContext& ctx, Val m, int64_t d) {
  const Shape& s = ctx.Type(m).shape;
  SY_ASSIGN_OR_RETURN(Val md, SliceOf(ctx, m, 0, d, d + 1));
  SY_ASSIGN_OR_RETURN(md, Reshape(ctx, md, {s.dim(1), s.dim(2)}));
  return Op(ctx, "transpose", {md}, Attrs({{"perm", std::vector<int64_t>{1, 0}}}));
}

// Direction d's [batch, hidden] state of a [directions, batch, hidden] input.
absl::StatusOr<Val> DirectionState(NodeContext& ctx, Val s, int64_t d) {
  const Shape& shape = ctx.Type(s).shape;
  SY_ASSIGN_OR_RETURN(Val sd, SliceOf(ctx, s, 0, d, d + 1));
  return Reshape(ctx, sd, {shape.dim(1), shape.dim(2)});
}

absl::StatusOr<Val> Clipped(NodeContext& ctx, Val x, std::optional<float> clip) {
  if (!clip.has_value()) return x;
  return Op(ctx, "clip", {x}, Attrs({{"min", -double{*clip}}, {"max", double{*clip}}}));
}

// The gates of `pre` ([batch, n * hidden]) as n values of [batch, hidden].
absl::StatusOr<std::vector<Val>> SplitGates(NodeContext& ctx, Val pre, int n, int64_t hidden) {
  if (n == 1) return std::vector<Val>{pre};
  return ctx.Emit("split", {pre},
                  Attrs({{"axis", int64_t{1}},
                         {"sizes", std::vector<int64_t>(static_cast<size_t>(n), hidden)}}),
                  n);
}

absl::Status ConvertRecurrent(NodeContext& ctx, Cell cell) {
  SY_ASSIGN_OR_RETURN(std::string direction, ctx.String("direction", "forward"));
  SY_ASSIGN_OR_RETURN(int64_t layout, ctx.Int("layout", 0));
  SY_ASSIGN_OR_RETURN(int64_t hidden, ctx.Int("hidden_size", 0));
  std::optional<float> clip;
  if (ctx.HasAttr("clip")) {
    SY_ASSIGN_OR_RETURN(float c, ctx.Float("clip", 0.0f));
    if (!(c > 0)) return absl::InvalidArgumentError("clip must be > 0");
    clip = c;
  }
  int64_t linear_before_reset = 0, input_forget = 0;
  if (cell == Cell::kGru) {
    SY_ASSIGN_OR_RETURN(linear_before_reset, ctx.Int("linear_before_reset", 0));
  }
  if (cell == Cell::kLstm) {
    SY_ASSIGN_OR_RETURN(input_forget, ctx.Int("input_forget", 0));
  }
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    return absl::InvalidArgumentError(absl::StrCat(
        "direction '", direction, "' is not forward, reverse or bidirectional"));
  }
  if (layout != 0 && layout != 1) {
    return absl::InvalidArgumentError(absl::StrCat("layout must be 0 or 1, got ", layout));
  }
  const int directions = direction == "bidirectional" ? 2 : 1;
  SY_ASSIGN_OR_RETURN(std::vector<Activation> activations,
                      ReadActivations(ctx, cell, directions));
  const int gates = Gates(cell);
  const auto swap01 = Attrs({{"perm", std::vector<int64_t>{1, 0, 2}}});

  Val x = ctx.In(0);
  const Shape& xs = ctx.InShape(0);
  const Shape& ws = ctx.InShape(1);
  const Shape& rs = ctx.InShape(2);
  if (xs.rank() != 3 || ws.rank() != 3 || rs.rank() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "X, W and R must be 3-D; got ", xs.ToString(), ", ", ws.ToString(), ", ",
        rs.ToString()));
  }
  if (hidden == 0) hidden = rs.dim(2);
  if (layout == 1) {
    SY_ASSIGN_OR_RETURN(x, Op(ctx, "transpose", {x}, swap01));
  }
  const int64_t seq = ctx.Type(x).shape.dim(0), batch = ctx.Type(x).shape.dim(1);
  const int64_t input = xs.dim(2);
  if (ws.dim(0) != directions || rs.dim(0) != directions || ws.dim(1) != gates * hidden ||
      ws.dim(2) != input || rs.dim(1) != gates * hidden || rs.dim(2) != hidden) {
    return absl::InvalidArgumentError(absl::StrCat(
        "for ", directions, " direction(s), ", gates, " gate(s), hidden_size ", hidden,
        " and input size ", input, ", W must be [", directions, ", ", gates * hidden, ", ",
        input, "] and R [", directions, ", ", gates * hidden, ", ", hidden, "]; got ",
        ws.ToString(), " and ", rs.ToString()));
  }
  if (seq == 0) {
    return absl::UnimplementedError("a sequence of length 0 is not supported");
  }
  if (seq * directions > kMaxUnrolledSteps) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "a sequence of ", seq, " steps in ", directions, " direction(s) would unroll into ",
        seq * directions, " steps; Switchyard unrolls at most ", kMaxUnrolledSteps));
  }
  const DType t = ctx.Type(x).dtype;

  // Per-row lengths: a mask per step when some sequence is shorter.
  std::vector<int64_t> lengths;
  if (ctx.HasInput(4)) {
    SY_ASSIGN_OR_RETURN(lengths, ctx.ConstInts(4, "sequence_lens"));
    if (static_cast<int64_t>(lengths.size()) != batch) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sequence_lens has ", lengths.size(), " entries for a batch of ", batch));
    }
    for (int64_t len : lengths) {
      if (len < 0 || len > seq) {
        return absl::InvalidArgumentError(absl::StrCat(
            "sequence_lens holds ", len, ", outside [0, ", seq, "] (the sequence length)"));
      }
    }
    if (std::all_of(lengths.begin(), lengths.end(), [&](int64_t l) { return l == seq; })) {
      lengths.clear();
    }
  }
  auto step_mask = [&](int64_t step) {
    std::vector<char> valid(static_cast<size_t>(batch));
    for (int64_t b = 0; b < batch; ++b) valid[b] = step < lengths[b] ? 1 : 0;
    return ctx.Constant(HostArray(Shape({batch, 1}), DType::kBool, std::move(valid)));
  };

  auto initial = [&](int input_index, int64_t d) -> absl::StatusOr<Val> {
    if (!ctx.HasInput(input_index)) {
      std::vector<char> zeros(static_cast<size_t>(batch * hidden) * DTypeSize(t), 0);
      return ctx.Constant(HostArray(Shape({batch, hidden}), t, std::move(zeros)));
    }
    Val s = ctx.In(input_index);
    if (layout == 1) {
      SY_ASSIGN_OR_RETURN(s, Op(ctx, "transpose", {s}, swap01));
    }
    const Shape& ss = ctx.Type(s).shape;
    if (ss != Shape({directions, batch, hidden})) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", input_index, " (an initial state) must be [", directions, ", ",
          batch, ", ", hidden, "] (before layout), got ", ss.ToString()));
    }
    return DirectionState(ctx, s, d);
  };

  std::vector<Val> ys, hs, cs;  // per direction: Y [seq, 1, batch, hidden], Y_h, Y_c
  for (int64_t d = 0; d < directions; ++d) {
    const Activation* fs = &activations[d * DefaultActivations(cell).size()];
    SY_ASSIGN_OR_RETURN(Val wt, DirectionMatrixT(ctx, ctx.In(1), d));
    SY_ASSIGN_OR_RETURN(Val rt, DirectionMatrixT(ctx, ctx.In(2), d));
    // The input projection of every step, with the biases that add outside
    // the gates' products (all but GRU's recurrent h bias under
    // linear_before_reset).
    SY_ASSIGN_OR_RETURN(Val xw, Op(ctx, "matmul", {x, wt}));
    std::optional<Val> recurrent_h_bias;
    if (ctx.HasInput(3)) {
      const Shape& bs = ctx.InShape(3);
      if (bs != Shape({directions, 2 * gates * hidden})) {
        return absl::InvalidArgumentError(absl::StrCat(
            "B must be [", directions, ", ", 2 * gates * hidden, "], got ", bs.ToString()));
      }
      SY_ASSIGN_OR_RETURN(Val bd, SliceOf(ctx, ctx.In(3), 0, d, d + 1));
      SY_ASSIGN_OR_RETURN(bd, Reshape(ctx, bd, {2 * gates * hidden}));
      SY_ASSIGN_OR_RETURN(Val wb, SliceOf(ctx, bd, 0, 0, gates * hidden));
      SY_ASSIGN_OR_RETURN(Val rb, SliceOf(ctx, bd, 0, gates * hidden, 2 * gates * hidden));
      if (cell == Cell::kGru && linear_before_reset != 0) {
        SY_ASSIGN_OR_RETURN(recurrent_h_bias, SliceOf(ctx, rb, 0, 2 * hidden, 3 * hidden));
        SY_ASSIGN_OR_RETURN(Val rb_zr, SliceOf(ctx, rb, 0, 0, 2 * hidden));
        std::vector<char> zeros(static_cast<size_t>(hidden) * DTypeSize(t), 0);
        const Val zero_h = ctx.Constant(HostArray(Shape({hidden}), t, std::move(zeros)));
        SY_ASSIGN_OR_RETURN(rb, Op(ctx, "concat", {rb_zr, zero_h}, Attrs({{"axis", int64_t{0}}})));
      }
      SY_ASSIGN_OR_RETURN(Val bias, Op(ctx, "add", {wb, rb}));
      SY_ASSIGN_OR_RETURN(xw, Op(ctx, "add", {xw, bias}));
    }
    std::optional<Val> pi, po, pf;  // LSTM's peepholes
    if (cell == Cell::kLstm && ctx.HasInput(7)) {
      if (ctx.InShape(7) != Shape({directions, 3 * hidden})) {
        return absl::InvalidArgumentError(absl::StrCat(
            "P must be [", directions, ", ", 3 * hidden, "], got ", ctx.InShape(7).ToString()));
      }
      SY_ASSIGN_OR_RETURN(Val pd, SliceOf(ctx, ctx.In(7), 0, d, d + 1));
      SY_ASSIGN_OR_RETURN(pd, Reshape(ctx, pd, {3 * hidden}));
      SY_ASSIGN_OR_RETURN(pi, SliceOf(ctx, pd, 0, 0, hidden));
      SY_ASSIGN_OR_RETURN(po, SliceOf(ctx, pd, 0, hidden, 2 * hidden));
      SY_ASSIGN_OR_RETURN(pf, SliceOf(ctx, pd, 0, 2 * hidden, 3 * hidden));
    }
    // GRU multiplies the reset gate in before (or after) the h gate's
    // recurrent product, so its recurrent weights split in two.
    std::optional<Val> rt_zr, rt_h;
    if (cell == Cell::kGru) {
      SY_ASSIGN_OR_RETURN(rt_zr, SliceOf(ctx, rt, 1, 0, 2 * hidden));
      SY_ASSIGN_OR_RETURN(rt_h, SliceOf(ctx, rt, 1, 2 * hidden, 3 * hidden));
    }

    SY_ASSIGN_OR_RETURN(Val h, initial(5, d));
    std::optional<Val> c;
    if (cell == Cell::kLstm) {
      SY_ASSIGN_OR_RETURN(c, initial(6, d));
    }
    const bool reverse = direction == "reverse" || d == 1;
    std::vector<Val> outputs(static_cast<size_t>(seq));
    for (int64_t i = 0; i < seq; ++i) {
      const int64_t step = reverse ? seq - 1 - i : i;
      SY_ASSIGN_OR_RETURN(Val xw_t, SliceOf(ctx, xw, 0, step, step + 1));
      SY_ASSIGN_OR_RETURN(xw_t, Reshape(ctx, xw_t, {batch, gates * hidden}));
      Val h_new;
      std::optional<Val> c_new;
      if (cell == Cell::kRnn) {
        SY_ASSIGN_OR_RETURN(Val hr, Op(ctx, "matmul", {h, rt}));
        SY_ASSIGN_OR_RETURN(Val pre, Op(ctx, "add", {xw_t, hr}));
        SY_ASSIGN_OR_RETURN(pre, Clipped(ctx, pre, clip));
        SY_ASSIGN_OR_RETURN(h_new, Activate(ctx, fs[0], pre));
      } else if (cell == Cell::kGru) {
        SY_ASSIGN_OR_RETURN(std::vector<Val> xg, SplitGates(ctx, xw_t, 3, hidden));
        SY_ASSIGN_OR_RETURN(Val hzr, Op(ctx, "matmul", {h, *rt_zr}));
        SY_ASSIGN_OR_RETURN(std::vector<Val> hg, SplitGates(ctx, hzr, 2, hidden));
        SY_ASSIGN_OR_RETURN(Val z, Op(ctx, "add", {xg[0], hg[0]}));
        SY_ASSIGN_OR_RETURN(z, Clipped(ctx, z, clip));
        SY_ASSIGN_OR_RETURN(z, Activate(ctx, fs[0], z));
        SY_ASSIGN_OR_RETURN(Val r, Op(ctx, "add", {xg[1], hg[1]}));
        SY_ASSIGN_OR_RETURN(r, Clipped(ctx, r, clip));
        SY_ASSIGN_OR_RETURN(r, Activate(ctx, fs[0], r));
        Val hh_rec;
        if (linear_before_reset != 0) {
          SY_ASSIGN_OR_RETURN(Val hh, Op(ctx, "matmul", {h, *rt_h}));
          if (recurrent_h_bias.has_value()) {
            SY_ASSIGN_OR_RETURN(hh, Op(ctx, "add", {hh, *recurrent_h_bias}));
          }
          SY_ASSIGN_OR_RETURN(hh_rec, Op(ctx, "mul", {r, hh}));
        } else {
          SY_ASSIGN_OR_RETURN(Val rh, Op(ctx, "mul", {r, h}));
          SY_ASSIGN_OR_RETURN(hh_rec, Op(ctx, "matmul", {rh, *rt_h}));
        }
        SY_ASSIGN_OR_RETURN(Val hh, Op(ctx, "add", {xg[2], hh_rec}));
        SY_ASSIGN_OR_RETURN(hh, Clipped(ctx, hh, clip));
        SY_ASSIGN_OR_RETURN(hh, Activate(ctx, fs[1], hh));
        // (1 - z) * hh + z * h = hh + z * (h - hh)
        SY_ASSIGN_OR_RETURN(Val diff, Op(ctx, "sub", {h, hh}));
        SY_ASSIGN_OR_RETURN(Val zd, Op(ctx, "mul", {z, diff}));
        SY_ASSIGN_OR_RETURN(h_new, Op(ctx, "add", {hh, zd}));
      } else {
        SY_ASSIGN_OR_RETURN(Val hr, Op(ctx, "matmul", {h, rt}));
        SY_ASSIGN_OR_RETURN(Val pre, Op(ctx, "add", {xw_t, hr}));
        // ONNX's gate order: input, output, forget, cell.
        SY_ASSIGN_OR_RETURN(std::vector<Val> g, SplitGates(ctx, pre, 4, hidden));
        auto peephole = [&](Val gate, const std::optional<Val>& p,
                            Val state) -> absl::StatusOr<Val> {
          if (!p.has_value()) return gate;
          SY_ASSIGN_OR_RETURN(Val ps, Op(ctx, "mul", {*p, state}));
          return Op(ctx, "add", {gate, ps});
        };
        SY_ASSIGN_OR_RETURN(Val in_gate, peephole(g[0], pi, *c));
        SY_ASSIGN_OR_RETURN(in_gate, Clipped(ctx, in_gate, clip));
        SY_ASSIGN_OR_RETURN(in_gate, Activate(ctx, fs[0], in_gate));
        Val forget;
        if (input_forget != 0) {
          SY_ASSIGN_OR_RETURN(forget, Op(ctx, "sub", {Scalar(ctx, 1.0, t), in_gate}));
        } else {
          SY_ASSIGN_OR_RETURN(forget, peephole(g[2], pf, *c));
          SY_ASSIGN_OR_RETURN(forget, Clipped(ctx, forget, clip));
          SY_ASSIGN_OR_RETURN(forget, Activate(ctx, fs[0], forget));
        }
        SY_ASSIGN_OR_RETURN(Val cell_in, Clipped(ctx, g[3], clip));
        SY_ASSIGN_OR_RETURN(cell_in, Activate(ctx, fs[1], cell_in));
        SY_ASSIGN_OR_RETURN(Val kept, Op(ctx, "mul", {forget, *c}));
        SY_ASSIGN_OR_RETURN(Val added, Op(ctx, "mul", {in_gate, cell_in}));
        SY_ASSIGN_OR_RETURN(c_new, Op(ctx, "add", {kept, added}));
        SY_ASSIGN_OR_RETURN(Val out_gate, peephole(g[1], po, *c_new));
        SY_ASSIGN_OR_RETURN(out_gate, Clipped(ctx, out_gate, clip));
        SY_ASSIGN_OR_RETURN(out_gate, Activate(ctx, fs[0], out_gate));
        SY_ASSIGN_OR_RETURN(Val hc, Activate(ctx, fs[2], *c_new));
        SY_ASSIGN_OR_RETURN(h_new, Op(ctx, "mul", {out_gate, hc}));
      }
      Val y_t = h_new;
      if (!lengths.empty()) {
        const Val valid = step_mask(step);
        SY_ASSIGN_OR_RETURN(y_t, Op(ctx, "where", {valid, h_new, Scalar(ctx, 0.0, t)}));
        SY_ASSIGN_OR_RETURN(h_new, Op(ctx, "where", {valid, h_new, h}));
        if (c_new.has_value()) {
          SY_ASSIGN_OR_RETURN(c_new, Op(ctx, "where", {valid, *c_new, *c}));
        }
      }
      h = h_new;
      c = c_new;
      outputs[static_cast<size_t>(step)] = y_t;
    }
    if (ctx.OutputUsed(0)) {
      std::vector<Val> steps;
      for (Val y_t : outputs) {
        SY_ASSIGN_OR_RETURN(Val y4, Reshape(ctx, y_t, {1, 1, batch, hidden}));
        steps.push_back(y4);
      }
      SY_ASSIGN_OR_RETURN(Val y, steps.size() == 1
                                     ? absl::StatusOr<Val>(steps[0])
                                     : Op(ctx, "concat", steps, Attrs({{"axis", int64_t{0}}})));
      ys.push_back(y);
    }
    SY_ASSIGN_OR_RETURN(Val h3, Reshape(ctx, h, {1, batch, hidden}));
    hs.push_back(h3);
    if (c.has_value()) {
      SY_ASSIGN_OR_RETURN(Val c3, Reshape(ctx, *c, {1, batch, hidden}));
      cs.push_back(c3);
    }
  }

  // Directions joined: Y [seq, directions, batch, hidden], Y_h and Y_c
  // [directions, batch, hidden]; layout 1 puts the batch first.
  auto joined = [&](const std::vector<Val>& parts, int64_t axis) -> absl::StatusOr<Val> {
    if (parts.size() == 1) return parts[0];
    return Op(ctx, "concat", parts, Attrs({{"axis", axis}}));
  };
  SY_RETURN_IF_ERROR(SkipUnusedOutput(ctx, 0));
  if (ctx.OutputUsed(0)) {
    SY_ASSIGN_OR_RETURN(Val y, joined(ys, 1));
    if (layout == 1) {
      SY_ASSIGN_OR_RETURN(
          y, Op(ctx, "transpose", {y}, Attrs({{"perm", std::vector<int64_t>{2, 0, 1, 3}}})));
    }
    SY_RETURN_IF_ERROR(ctx.SetOutput(0, y));
  }
  const int last = cell == Cell::kLstm ? 2 : 1;
  for (int o = 1; o <= last && o < ctx.num_outputs(); ++o) {
    SY_RETURN_IF_ERROR(SkipUnusedOutput(ctx, o));
    if (!ctx.OutputUsed(o)) continue;
    SY_ASSIGN_OR_RETURN(Val s, joined(o == 1 ? hs : cs, 0));
    if (layout == 1) {
      SY_ASSIGN_OR_RETURN(s, Op(ctx, "transpose", {s}, swap01));
    }
    SY_RETURN_IF_ERROR(ctx.SetOutput(o, s));
  }
  return absl::OkStatus();
}

absl::Status ConvertRNN(NodeContext& ctx) { return ConvertRecurrent(ctx, Cell::kRnn); }
absl::Status ConvertGRU(NodeContext& ctx) { return ConvertRecurrent(ctx, Cell::kGru); }
absl::Status ConvertLSTM(NodeContext& ctx) { return ConvertRecurrent(ctx, Cell::kLstm); }

SY_REGISTER_ONNX_CONVERTER("RNN", ConvertRNN, 3);
SY_REGISTER_ONNX_CONVERTER("GRU", ConvertGRU, 3);
SY_REGISTER_ONNX_CONVERTER("LSTM", ConvertLSTM, 3);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
