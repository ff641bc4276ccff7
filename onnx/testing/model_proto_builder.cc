#include "onnx/testing/model_proto_builder.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace onnx_testing {

std::string TmpPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

onnx::ModelProto NewModel(int opset, const std::string& producer) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name(producer);
  onnx::OperatorSetIdProto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name(producer);
  return m;
}

void AddValueInfo(onnx::ValueInfoProto* info, const std::string& name,
                  onnx::TensorProto::DataType type, const std::vector<int64_t>& dims) {
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(type);
  auto* shape = tensor->mutable_shape();
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] < 0) {
      shape->add_dim()->set_dim_param(absl::StrCat("d", k));
    } else {
      shape->add_dim()->set_dim_value(dims[k]);
    }
  }
}

void AddValueInfo(onnx::ValueInfoProto* info, const std::string& name,
                  const std::vector<int64_t>& dims) {
  AddValueInfo(info, name, onnx::TensorProto::FLOAT, dims);
}

onnx::NodeProto* AddNode(onnx::GraphProto& g, const std::string& op,
                         const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs) {
  onnx::NodeProto* n = g.add_node();
  n->set_name(absl::StrCat(op, "_", g.node_size() - 1));
  n->set_op_type(op);
  for (const auto& s : inputs) n->add_input(s);
  for (const auto& s : outputs) n->add_output(s);
  return n;
}

onnx::AttributeProto* AddInt(onnx::NodeProto* n, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
  return a;
}

onnx::AttributeProto* AddInts(onnx::NodeProto* n, const std::string& name,
                              const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
  return a;
}

onnx::GraphProto* AddGraph(onnx::NodeProto* n, const std::string& name) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

onnx::TensorProto* AddInitializer(onnx::GraphProto& g, const std::string& name,
                                  const std::vector<int64_t>& dims,
                                  const std::vector<float>& values) {
  onnx::TensorProto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()),
                              values.size() * sizeof(float)));
  return t;
}

onnx::TensorProto* AddInt64Initializer(onnx::GraphProto& g, const std::string& name,
                                       const std::vector<int64_t>& dims,
                                       const std::vector<int64_t>& values) {
  onnx::TensorProto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
  return t;
}

std::unique_ptr<OnnxModel> SaveAndLoad(const onnx::ModelProto& m, const std::string& name) {
  const std::string path = TmpPath(name + ".onnx");
  std::string bytes;
  EXPECT_TRUE(m.SerializeToString(&bytes));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  EXPECT_TRUE(out.good()) << path;
  absl::StatusOr<std::unique_ptr<OnnxModel>> model = OnnxModel::Load(path);
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? std::move(*model) : nullptr;
}

}  // namespace onnx_testing
}  // namespace switchyard
