#ifndef SWITCHYARD_ONNX_TESTING_MODEL_PROTO_BUILDER_H_
#define SWITCHYARD_ONNX_TESTING_MODEL_PROTO_BUILDER_H_

// Small ONNX models written with the ModelProto API, for tests of the
// importer and the staged runner:
//
//   onnx::ModelProto m = NewModel(/*opset=*/13);
//   onnx::GraphProto& g = *m.mutable_graph();
//   AddValueInfo(g.add_input(), "x", onnx::TensorProto::FLOAT, {-1});
//   AddValueInfo(g.add_output(), "y", onnx::TensorProto::FLOAT, {-1});
//   AddNode(g, "Neg", {"x"}, {"y"});
//   std::unique_ptr<OnnxModel> model = SaveAndLoad(m, "neg");

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "onnx/onnx_model.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_testing {

// A file name in the test's temporary folder.
std::string TmpPath(const std::string& name);

// IR version 8, one opset import of the default domain.
onnx::ModelProto NewModel(int opset, const std::string& producer = "switchyard_test");

// A graph input or output; a negative dimension is symbolic ("d<k>").
void AddValueInfo(onnx::ValueInfoProto* info, const std::string& name,
                  onnx::TensorProto::DataType type, const std::vector<int64_t>& dims);
// The same, float32.
void AddValueInfo(onnx::ValueInfoProto* info, const std::string& name,
                  const std::vector<int64_t>& dims);

// A node named "<op>_<index>".
onnx::NodeProto* AddNode(onnx::GraphProto& g, const std::string& op,
                         const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs);

onnx::AttributeProto* AddInt(onnx::NodeProto* n, const std::string& name, int64_t v);
onnx::AttributeProto* AddInts(onnx::NodeProto* n, const std::string& name,
                              const std::vector<int64_t>& v);
// A graph attribute (If's branches, Loop's body), named `name` too.
onnx::GraphProto* AddGraph(onnx::NodeProto* n, const std::string& name);

onnx::TensorProto* AddInitializer(onnx::GraphProto& g, const std::string& name,
                                  const std::vector<int64_t>& dims,
                                  const std::vector<float>& values);
onnx::TensorProto* AddInt64Initializer(onnx::GraphProto& g, const std::string& name,
                                       const std::vector<int64_t>& dims,
                                       const std::vector<int64_t>& values);

// Writes `m` to TmpPath(name + ".onnx") and loads it on cpu:0; null (and a
// test failure) when either fails.
std::unique_ptr<OnnxModel> SaveAndLoad(const onnx::ModelProto& m, const std::string& name);

}  // namespace onnx_testing
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_TESTING_MODEL_PROTO_BUILDER_H_
