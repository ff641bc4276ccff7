#include "onnx/qdq_fusion.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "onnx/onnx_tensor.h"

namespace switchyard {
namespace onnx_import {
namespace {

bool IsDefaultDomain(const onnx::NodeProto& n) {
  return n.domain().empty() || n.domain() == "ai.onnx";
}

bool Is(const onnx::NodeProto* n, const char* op) {
  return n != nullptr && IsDefaultDomain(*n) && n->op_type() == op;
}

const onnx::AttributeProto* FindAttr(const onnx::NodeProto& n, const char* name) {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

// Every name a node's subgraphs read (If/Loop bodies), at any depth.
void CollectSubgraphReads(const onnx::NodeProto& node, std::set<std::string>& names) {
  for (const onnx::AttributeProto& a : node.attribute()) {
    std::vector<const onnx::GraphProto*> graphs;
    if (a.has_g()) graphs.push_back(&a.g());
    for (const onnx::GraphProto& g : a.graphs()) graphs.push_back(&g);
    for (const onnx::GraphProto* g : graphs) {
      for (const onnx::NodeProto& n : g->node()) {
        for (const std::string& in : n.input()) names.insert(in);
        CollectSubgraphReads(n, names);
      }
      for (const onnx::ValueInfoProto& out : g->output()) names.insert(out.name());
    }
  }
}

class QdqGraph {
 public:
  QdqGraph(onnx::GraphProto& graph, const std::string& model_dir)
      : graph_(graph), model_dir_(model_dir) {
    for (const onnx::TensorProto& t : graph.initializer()) initializers_[t.name()] = &t;
    for (const onnx::ValueInfoProto& out : graph.output()) pinned_.insert(out.name());
    for (int i = 0; i < graph.node_size(); ++i) {
      const onnx::NodeProto& n = graph.node(i);
      for (const std::string& out : n.output()) producer_[out] = i;
      for (const std::string& in : n.input()) {
        if (in.empty()) continue;
        ++readers_[in];
        reader_[in] = i;
      }
      CollectSubgraphReads(n, pinned_);
    }
  }

  const onnx::NodeProto* Producer(const std::string& name) const {
    auto it = producer_.find(name);
    return it == producer_.end() ? nullptr : &graph_.node(it->second);
  }
  int Readers(const std::string& name) const {
    auto it = readers_.find(name);
    return it == readers_.end() ? 0 : it->second;
  }
  // The one node that reads `name` (null unless exactly one does).
  const onnx::NodeProto* OnlyReader(const std::string& name) const {
    return Readers(name) == 1 ? &graph_.node(reader_.at(name)) : nullptr;
  }
  bool Pinned(const std::string& name) const { return pinned_.count(name) > 0; }

  const onnx::TensorProto* Initializer(const std::string& name) const {
    auto it = initializers_.find(name);
    return it == initializers_.end() ? nullptr : it->second;
  }
  // -1 for dims that are negative or whose product overflows.
  int64_t Elements(const onnx::TensorProto& t) const {
    int64_t n = 1;
    for (int64_t d : t.dims()) {
      if (d < 0 || (d > 0 && n > std::numeric_limits<int64_t>::max() / d)) return -1;
      n *= d;
    }
    return n;
  }
  // A constant's values as doubles, or nullopt when it is no initializer
  // or cannot be read.
  std::optional<std::vector<double>> Values(const std::string& name) const {
    const onnx::TensorProto* t = Initializer(name);
    if (t == nullptr) return std::nullopt;
    absl::StatusOr<HostArray> a = ReadTensorProto(*t, model_dir_);
    if (!a.ok()) return std::nullopt;
    std::vector<double> v(a->num_elements());
    for (int64_t i = 0; i < a->num_elements(); ++i) v[i] = a->ElementAsDouble(i);
    return v;
  }

  onnx::GraphProto& graph() { return graph_; }

 private:
  onnx::GraphProto& graph_;
  const std::string& model_dir_;
  std::map<std::string, const onnx::TensorProto*> initializers_;
  std::map<std::string, int> producer_;
  std::map<std::string, int> readers_;
  std::map<std::string, int> reader_;  // the last node reading each name
  std::set<std::string> pinned_;  // graph outputs, names subgraphs read
};

bool IsEightBitType(int32_t t) {
  return t == onnx::TensorProto::UINT8 || t == onnx::TensorProto::INT8;
}

// A Q or DQ node's scale and zero point, when constant and of a form
// QLinearConv takes: float32 scale of 1 (or `channels`) values, zero point
// absent or 8-bit of as many values.
struct QuantConstants {
  std::vector<double> scale;
  std::string zero_point;  // "" when absent
  // The zero point's type; when it is absent, uint8 (QuantizeLinear's
  // output then), but a DequantizeLinear's data may be of either type.
  int32_t type = onnx::TensorProto::UINT8;
};

std::optional<QuantConstants> ReadConstants(const QdqGraph& g, const onnx::NodeProto& n,
                                            int64_t channels) {
  if (n.input_size() < 2 || n.input_size() > 3) return std::nullopt;
  if (const onnx::AttributeProto* block = FindAttr(n, "block_size");
      block != nullptr && block->i() != 0) {
    return std::nullopt;
  }
  const onnx::TensorProto* scale = g.Initializer(n.input(1));
  if (scale == nullptr || scale->data_type() != onnx::TensorProto::FLOAT) return std::nullopt;
  const int64_t count = g.Elements(*scale);
  if (count != 1 && count != channels) return std::nullopt;
  if (count > 1) {
    // Per channel: along axis 0 (the conv weight's output channels).
    const onnx::AttributeProto* axis = FindAttr(n, "axis");
    if (axis == nullptr || axis->i() != 0) return std::nullopt;
  }
  QuantConstants c;
  std::optional<std::vector<double>> s = g.Values(n.input(1));
  if (!s.has_value()) return std::nullopt;
  for (double v : *s) {
    if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
  }
  c.scale = *s;
  if (n.input_size() == 3 && !n.input(2).empty()) {
    const onnx::TensorProto* zp = g.Initializer(n.input(2));
    if (zp == nullptr || !IsEightBitType(zp->data_type()) || g.Elements(*zp) != count) {
      return std::nullopt;
    }
    c.zero_point = n.input(2);
    c.type = zp->data_type();
  }
  return c;
}

// The bias DQ's int32 constant, when its zero point is 0 and its scales are
// x_scale * w_scale (what QLinearConv assumes of its int32 bias).
std::optional<std::string> ReadBias(const QdqGraph& g, const onnx::NodeProto* dq,
                                    int64_t channels, double x_scale,
                                    const std::vector<double>& w_scale) {
  if (!Is(dq, "DequantizeLinear") || dq->input_size() < 2) return std::nullopt;
  const onnx::TensorProto* b = g.Initializer(dq->input(0));
  if (b == nullptr || b->data_type() != onnx::TensorProto::INT32 || b->dims_size() != 1 ||
      b->dims(0) != channels) {
    return std::nullopt;
  }
  if (dq->input_size() == 3 && !dq->input(2).empty()) {
    std::optional<std::vector<double>> zp = g.Values(dq->input(2));
    if (!zp.has_value()) return std::nullopt;
    for (double z : *zp) {
      if (z != 0) return std::nullopt;
    }
  }
  std::optional<std::vector<double>> s = g.Values(dq->input(1));
  if (!s.has_value() || (s->size() != 1 && static_cast<int64_t>(s->size()) != channels)) {
    return std::nullopt;
  }
  for (int64_t o = 0; o < channels; ++o) {
    const double want = x_scale * w_scale[w_scale.size() == 1 ? 0 : o];
    const double have = (*s)[s->size() == 1 ? 0 : o];
    if (std::abs(have - want) > 1e-6 * want) return std::nullopt;
  }
  return dq->input(0);
}

// The QuantizeLinear that alone reads `y`, with per-tensor constants, whose
// output type is `type`; null otherwise.
const onnx::NodeProto* SoleQuantize(const QdqGraph& g, const std::string& y, int32_t type,
                                    QuantConstants* constants) {
  if (g.Pinned(y)) return nullptr;
  const onnx::NodeProto* q = g.OnlyReader(y);
  // Arity first: the fusion reads nodes before any converter has checked them.
  if (!Is(q, "QuantizeLinear") || q->input_size() < 2 || q->output_size() != 1 ||
      q->input(0) != y) {
    return nullptr;
  }
  if (FindAttr(*q, "output_dtype") != nullptr) return nullptr;
  std::optional<QuantConstants> c = ReadConstants(g, *q, 1);
  if (!c.has_value() || c->type != type) return nullptr;
  *constants = *c;
  return q;
}

// The QLinearConv node for `conv`, or nullopt when its group does not
// qualify. `q` is set to the QuantizeLinear it absorbs.
std::optional<onnx::NodeProto> QLinearConvFor(const QdqGraph& g, const onnx::NodeProto& conv,
                                              const onnx::NodeProto** q) {
  if (conv.input_size() < 2 || conv.input_size() > 3 || conv.output_size() != 1) {
    return std::nullopt;
  }
  const onnx::NodeProto* dq_x = g.Producer(conv.input(0));
  const onnx::NodeProto* dq_w = g.Producer(conv.input(1));
  if (!Is(dq_x, "DequantizeLinear") || !Is(dq_w, "DequantizeLinear") ||
      dq_x->input_size() < 2 || dq_w->input_size() < 2) {
    return std::nullopt;
  }
  const onnx::TensorProto* w = g.Initializer(dq_w->input(0));
  if (w == nullptr || !IsEightBitType(w->data_type()) || w->dims_size() < 3) return std::nullopt;
  const int64_t channels = w->dims(0);

  std::optional<QuantConstants> xc = ReadConstants(g, *dq_x, 1);
  std::optional<QuantConstants> wc = ReadConstants(g, *dq_w, channels);
  // x's type is its zero point's: without one it is unknown here.
  if (!xc.has_value() || xc->zero_point.empty() || !wc.has_value() ||
      (!wc->zero_point.empty() && wc->type != w->data_type())) {
    return std::nullopt;
  }
  // The reader of y: a QuantizeLinear with constant per-tensor parameters
  // making x's type (QLinearConv's y_zero_point defaults to it).
  QuantConstants yc;
  const onnx::NodeProto* quantize = SoleQuantize(g, conv.output(0), xc->type, &yc);
  if (quantize == nullptr) return std::nullopt;

  std::string bias;
  if (conv.input_size() == 3 && !conv.input(2).empty()) {
    std::optional<std::string> b =
        ReadBias(g, g.Producer(conv.input(2)), channels, xc->scale[0], wc->scale);
    if (!b.has_value()) return std::nullopt;
    bias = *b;
  }

  onnx::NodeProto fused;
  fused.set_name(conv.name());
  fused.set_op_type("QLinearConv");
  for (const std::string& in :
       {dq_x->input(0), dq_x->input(1), xc->zero_point, dq_w->input(0), dq_w->input(1),
        wc->zero_point, quantize->input(1), yc.zero_point}) {
    fused.add_input(in);
  }
  if (!bias.empty()) fused.add_input(bias);
  fused.add_output(quantize->output(0));
  *fused.mutable_attribute() = conv.attribute();
  *q = quantize;
  return fused;
}

// DQ(a), DQ(b) -> Add -> Q as com.microsoft QLinearAdd (converted to one
// qlinear_add op when a and b share a shape, else composed as before).
std::optional<onnx::NodeProto> QLinearAddFor(const QdqGraph& g, const onnx::NodeProto& add,
                                             const onnx::NodeProto** q) {
  if (add.input_size() != 2 || add.output_size() != 1) return std::nullopt;
  const onnx::NodeProto* dq_a = g.Producer(add.input(0));
  const onnx::NodeProto* dq_b = g.Producer(add.input(1));
  if (!Is(dq_a, "DequantizeLinear") || !Is(dq_b, "DequantizeLinear") ||
      dq_a->input_size() < 2 || dq_b->input_size() < 2) {
    return std::nullopt;
  }
  std::optional<QuantConstants> ac = ReadConstants(g, *dq_a, 1);
  std::optional<QuantConstants> bc = ReadConstants(g, *dq_b, 1);
  // The operands' types are their zero points': without them unknown here.
  if (!ac.has_value() || !bc.has_value() || ac->zero_point.empty() ||
      bc->zero_point.empty() || ac->type != bc->type) {
    return std::nullopt;
  }
  QuantConstants yc;
  const onnx::NodeProto* quantize = SoleQuantize(g, add.output(0), ac->type, &yc);
  if (quantize == nullptr) return std::nullopt;
  onnx::NodeProto fused;
  fused.set_name(add.name());
  fused.set_op_type("QLinearAdd");
  fused.set_domain("com.microsoft");
  for (const std::string& in : {dq_a->input(0), dq_a->input(1), ac->zero_point, dq_b->input(0),
                                dq_b->input(1), bc->zero_point, quantize->input(1),
                                yc.zero_point}) {
    fused.add_input(in);
  }
  fused.add_output(quantize->output(0));
  *q = quantize;
  return fused;
}

}  // namespace

int FuseQdqGroups(onnx::GraphProto& graph, const std::string& model_dir) {
  std::set<const onnx::NodeProto*> removed;
  std::map<const onnx::NodeProto*, onnx::NodeProto> replaced;
  {
    QdqGraph g(graph, model_dir);
    for (const onnx::NodeProto& n : graph.node()) {
      const onnx::NodeProto* q = nullptr;
      std::optional<onnx::NodeProto> fused;
      if (Is(&n, "Conv")) {
        fused = QLinearConvFor(g, n, &q);
      } else if (Is(&n, "Add")) {
        fused = QLinearAddFor(g, n, &q);
      }
      if (!fused.has_value()) continue;
      replaced.emplace(&n, *std::move(fused));
      removed.insert(q);
    }
  }
  if (replaced.empty()) return 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (const onnx::NodeProto& n : graph.node()) {
    if (removed.count(&n) > 0) continue;
    auto it = replaced.find(&n);
    *nodes.Add() = it == replaced.end() ? n : it->second;
  }
  graph.mutable_node()->Swap(&nodes);

  // DequantizeLinear nodes nothing reads any more (a conv's weight and bias,
  // an activation only fused convs read).
  QdqGraph after(graph, model_dir);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (const onnx::NodeProto& n : graph.node()) {
    const bool dead = Is(&n, "DequantizeLinear") && n.output_size() == 1 &&
                      after.Readers(n.output(0)) == 0 && !after.Pinned(n.output(0));
    if (!dead) *kept.Add() = n;
  }
  graph.mutable_node()->Swap(&kept);
  return static_cast<int>(replaced.size());
}

}  // namespace onnx_import
}  // namespace switchyard
