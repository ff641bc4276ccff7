// ONNX Einsum as transposes, reshapes and either one batched matmul (two
// float32 operands: the contraction becomes [B, M, K] x [B, K, N], as ONNX
// Runtime and PyTorch lower it) or a broadcast product summed over the
// contracted labels (any count of operands, any numeric dtype).
//
//   "bij,bjk->bik"  batch b, rows i, columns k, contracted j
//   "...ii->...i"   a diagonal: not supported (a repeated label in one term)

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "onnx/convert_util.h"
#include "onnx/converter_registry.h"

namespace switchyard {
namespace onnx_import {
namespace {

// Labels: a letter is its character; the ellipsis' dims are kEllipsis + j,
// j counting from the first of the widest ellipsis (right-aligned, as
// numpy broadcasts).
using Label = int;
constexpr Label kEllipsis = 256;

// One term as written: its letters, and where its "..." stands.
struct Term {
  std::vector<char> letters;
  bool has_ellipsis = false;
  int ellipsis_at = 0;  // index into letters where "..." stands
};

absl::StatusOr<Term> ParseTerm(const std::string& text) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      if (t.has_ellipsis || text.compare(i, 3, "...") != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "term '", text, "': '.' only as one '...' per term"));
      }
      t.has_ellipsis = true;
      t.ellipsis_at = static_cast<int>(t.letters.size());
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      t.letters.push_back(c);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "term '", text, "': '", std::string(1, c), "' is not a letter or '...'"));
    }
  }
  return t;
}

// The labels of a term whose "..." covers `ellipsis_dims` axes, `widest`
// the most any term's covers.
std::vector<Label> Labels(const Term& t, int ellipsis_dims, int widest) {
  std::vector<Label> labels(t.letters.begin(), t.letters.end());
  if (t.has_ellipsis) {
    std::vector<Label> e;
    for (int j = widest - ellipsis_dims; j < widest; ++j) e.push_back(kEllipsis + j);
    labels.insert(labels.begin() + t.ellipsis_at, e.begin(), e.end());
  }
  return labels;
}

std::string LabelName(Label l) {
  return l < kEllipsis ? std::string(1, static_cast<char>(l))
                       : absl::StrCat("...[", l - kEllipsis, "]");
}

// An operand with its labels, one per axis.
struct Operand {
  Val value;
  std::vector<Label> labels;
};

// `x` with its axes in the order of `order` (a permutation of its labels).
absl::StatusOr<Operand> Permute(NodeContext& ctx, const Operand& x,
                                const std::vector<Label>& order) {
  if (order == x.labels) return x;
  std::vector<int64_t> perm;
  for (Label l : order) {
    perm.push_back(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin());
  }
  SY_ASSIGN_OR_RETURN(Val v, Op(ctx, "transpose", {x.value}, Attrs({{"perm", perm}})));
  return Operand{v, order};
}

// `x` summed over the labels in `drop` it has.
absl::StatusOr<Operand> SumOut(NodeContext& ctx, const Operand& x,
                               const std::vector<Label>& drop) {
  std::vector<int64_t> axes;
  Operand kept{x.value, {}};
  for (size_t a = 0; a < x.labels.size(); ++a) {
    if (std::count(drop.begin(), drop.end(), x.labels[a]) > 0) {
      axes.push_back(static_cast<int64_t>(a));
    } else {
      kept.labels.push_back(x.labels[a]);
    }
  }
  if (axes.empty()) return x;
  SY_ASSIGN_OR_RETURN(kept.value, Op(ctx, "reduce_sum", {x.value},
                                     Attrs({{"axes", axes}, {"keepdims", false}})));
  return kept;
}

absl::Status ConvertEinsum(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::string equation, ctx.String("equation", ""));
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> texts = absl::StrSplit(lhs, ',');
  if (static_cast<int>(texts.size()) != ctx.num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "equation '", equation, "' has ", texts.size(), " input terms for ",
        ctx.num_inputs(), " inputs"));
  }
  // Each operand's labels and each label's size.
  std::vector<Term> terms;
  int widest = 0;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    SY_ASSIGN_OR_RETURN(Term t, ParseTerm(texts[i]));
    const int rank = ctx.InShape(i).rank();
    const int ellipsis_dims = rank - static_cast<int>(t.letters.size());
    if (ellipsis_dims < 0 || (!t.has_ellipsis && ellipsis_dims != 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "term '", texts[i], "' does not fit input ", i, " of shape ",
          ctx.InShape(i).ToString()));
    }
    widest = std::max(widest, ellipsis_dims);
    terms.push_back(t);
  }
  std::vector<Operand> operands;
  std::map<Label, int64_t> size;
  std::map<Label, int> uses;  // in how many operands
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.InShape(i);
    const int ellipsis_dims = s.rank() - static_cast<int>(terms[i].letters.size());
    Operand x{ctx.In(i), Labels(terms[i], ellipsis_dims, widest)};
    for (size_t a = 0; a < x.labels.size(); ++a) {
      const Label l = x.labels[a];
      if (std::count(x.labels.begin(), x.labels.end(), l) > 1) {
        return absl::UnimplementedError(absl::StrCat(
            "term '", texts[i], "' repeats label '", LabelName(l),
            "' (a diagonal); Switchyard's Einsum takes each label once per term"));
      }
      const int64_t d = s.dim(static_cast<int>(a));
      auto [it, fresh] = size.emplace(l, d);
      if (!fresh && it->second != d) {
        // Only the ellipsis' dims broadcast, as in numpy.
        if (l >= kEllipsis && (it->second == 1 || d == 1)) {
          it->second = std::max(it->second, d);
        } else {
          return absl::InvalidArgumentError(absl::StrCat(
              "label '", LabelName(l), "' is ", it->second, " in one operand and ", d,
              " in input ", i));
        }
      }
      ++uses[l];
    }
    operands.push_back(x);
  }
  // The output's labels: as written, or (implicit) the ellipsis, then the
  // letters used once, in alphabetical order.
  std::vector<Label> out;
  if (arrow != std::string::npos) {
    SY_ASSIGN_OR_RETURN(Term t, ParseTerm(equation.substr(arrow + 2)));
    out = Labels(t, t.has_ellipsis ? widest : 0, widest);
    for (Label l : out) {
      if (size.count(l) == 0 || std::count(out.begin(), out.end(), l) > 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "output label '", LabelName(l), "' is repeated or in no input term"));
      }
    }
  } else {
    for (int j = 0; j < widest; ++j) out.push_back(kEllipsis + j);
    for (const auto& [l, n] : uses) {
      if (l < kEllipsis && n == 1) out.push_back(l);
    }
  }
  auto in_out = [&](Label l) { return std::count(out.begin(), out.end(), l) > 0; };

  // Labels only one operand has and the output lacks are summed first.
  for (Operand& x : operands) {
    std::vector<Label> own;
    for (Label l : x.labels) {
      if (uses[l] == 1 && !in_out(l)) own.push_back(l);
    }
    SY_ASSIGN_OR_RETURN(x, SumOut(ctx, x, own));
  }

  const DType dtype = ctx.Type(ctx.In(0)).dtype;
  if (operands.size() == 2 && dtype == DType::kFloat32) {
    const Operand& a = operands[0];
    const Operand& b = operands[1];
    auto has = [](const Operand& x, Label l) {
      return std::count(x.labels.begin(), x.labels.end(), l) > 0;
    };
    std::vector<Label> batch, m, n, k;
    bool same_batch = true;
    for (Label l : a.labels) {
      if (has(b, l)) {
        (in_out(l) ? batch : k).push_back(l);
        const Shape& sa = ctx.Type(a.value).shape;
        const Shape& sb = ctx.Type(b.value).shape;
        const auto at = [](const Operand& x, Label l) {
          return static_cast<int>(std::find(x.labels.begin(), x.labels.end(), l) -
                                  x.labels.begin());
        };
        same_batch &= sa.dim(at(a, l)) == sb.dim(at(b, l));
      } else {
        m.push_back(l);
      }
    }
    for (Label l : b.labels) {
      if (!has(a, l)) n.push_back(l);
    }
    if (same_batch) {
      auto product = [&](const std::vector<Label>& ls) {
        int64_t p = 1;
        for (Label l : ls) p *= size[l];
        return p;
      };
      auto concat = [](std::vector<Label> x, const std::vector<Label>& y) {
        x.insert(x.end(), y.begin(), y.end());
        return x;
      };
      SY_ASSIGN_OR_RETURN(Operand ap, Permute(ctx, a, concat(concat(batch, m), k)));
      SY_ASSIGN_OR_RETURN(Operand bp, Permute(ctx, b, concat(concat(batch, k), n)));
      SY_ASSIGN_OR_RETURN(Val a3, Reshape(ctx, ap.value,
                                          {product(batch), product(m), product(k)}));
      SY_ASSIGN_OR_RETURN(Val b3, Reshape(ctx, bp.value,
                                          {product(batch), product(k), product(n)}));
      SY_ASSIGN_OR_RETURN(Val c3, Op(ctx, "matmul", {a3, b3}));
      Operand c{c3, concat(concat(batch, m), n)};
      std::vector<int64_t> dims;
      for (Label l : c.labels) dims.push_back(size[l]);
      SY_ASSIGN_OR_RETURN(c.value, Reshape(ctx, c3, dims));
      SY_ASSIGN_OR_RETURN(c, Permute(ctx, c, out));
      return ctx.SetOutput(0, c.value);
    }
  }

  // Every label in one order (the output's first), each operand aligned
  // to it with 1 for the labels it lacks, multiplied, the rest summed.
  std::vector<Label> all = out;
  for (const Operand& x : operands) {
    for (Label l : x.labels) {
      if (std::count(all.begin(), all.end(), l) == 0) all.push_back(l);
    }
  }
  std::optional<Val> product;
  for (const Operand& x : operands) {
    std::vector<Label> order;
    for (Label l : all) {
      if (std::count(x.labels.begin(), x.labels.end(), l) > 0) order.push_back(l);
    }
    SY_ASSIGN_OR_RETURN(Operand p, Permute(ctx, x, order));
    std::vector<int64_t> dims;
    const Shape& s = ctx.Type(p.value).shape;
    for (Label l : all) {
      auto it = std::find(p.labels.begin(), p.labels.end(), l);
      dims.push_back(it == p.labels.end() ? 1 : s.dim(static_cast<int>(it - p.labels.begin())));
    }
    SY_ASSIGN_OR_RETURN(Val aligned, Reshape(ctx, p.value, dims));
    if (product.has_value()) {
      SY_ASSIGN_OR_RETURN(aligned, Op(ctx, "mul", {*product, aligned}));
    }
    product = aligned;
  }
  Val y = *product;
  if (all.size() > out.size()) {
    std::vector<int64_t> axes;
    for (size_t a = out.size(); a < all.size(); ++a) axes.push_back(static_cast<int64_t>(a));
    SY_ASSIGN_OR_RETURN(y, Op(ctx, "reduce_sum", {y}, Attrs({{"axes", axes}, {"keepdims", false}})));
  }
  return ctx.SetOutput(0, y);
}

SY_REGISTER_ONNX_CONVERTER("Einsum", ConvertEinsum);

}  // namespace
}  // namespace onnx_import
}  // namespace switchyard
