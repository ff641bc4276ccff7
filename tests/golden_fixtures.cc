#include "tests/golden_fixtures.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "gtest/gtest.h"
#include "models/batch_norm.h"
#include "models/conv2d.h"
#include "models/parameterless_layers.h"
#include "models/safetensors.h"
#include "models/sequential.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace golden {

std::vector<std::string> OpCaseFiles() {
  std::vector<std::string> cases;
  for (const auto& entry : std::filesystem::directory_iterator(kDataDir)) {
    const std::string name = entry.path().filename().string();
    if (absl::StrContains(name, "__")) cases.push_back(name);
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

absl::StatusOr<AttrMap> ParseAttrs(const std::string& text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("bad attrs JSON: ", text));
  }
  AttrMap attrs;
  for (auto it = json.begin(); it != json.end(); ++it) {
    const nlohmann::json& v = it.value();
    if (v.is_boolean()) {
      attrs.Set(it.key(), v.get<bool>());
    } else if (v.is_number_integer()) {
      attrs.Set(it.key(), v.get<int64_t>());
    } else if (v.is_number_float()) {
      attrs.Set(it.key(), v.get<double>());
    } else if (v.is_array()) {
      attrs.Set(it.key(), v.get<std::vector<int64_t>>());
    } else {
      return absl::InvalidArgumentError(absl::StrCat("bad attr ", it.key()));
    }
  }
  return attrs;
}

Tensor OnDevice(const HostArray& array, const Device& device) {
  absl::StatusOr<BackendDevice*> backend_device =
      BackendRegistry::Global().GetDevice(device);
  EXPECT_TRUE(backend_device.ok()) << backend_device.status();
  absl::StatusOr<Tensor> t =
      Tensor::FromBytes(array.shape, array.dtype, array.bytes.data(),
                        array.bytes.size(), **backend_device);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

absl::StatusOr<OpGolden> ReadOpGolden(const std::string& file,
                                      const Device& device) {
  absl::StatusOr<SafetensorsFile> read =
      ReadSafetensors(absl::StrCat(kDataDir, "/", file));
  if (!read.ok()) return read.status();
  const auto& t = read->tensors;
  absl::StatusOr<AttrMap> attrs = ParseAttrs(read->metadata.at("attrs"));
  if (!attrs.ok()) return attrs.status();

  OpGolden golden;
  golden.op = read->metadata.at("op");
  std::vector<ValueId> operands;
  for (const char* name : {"input", "input0", "input1"}) {
    if (t.count(name) == 0) continue;
    operands.push_back(golden.graph.AddInput(name, t.at(name).shape, device));
    golden.inputs.push_back(OnDevice(t.at(name), device));
  }
  for (const char* name : {"weight", "bias", "running_mean", "running_var"}) {
    if (t.count(name) > 0) {
      operands.push_back(
          golden.graph.AddConstant(name, OnDevice(t.at(name), device)));
    }
  }
  golden.graph.AddOutput(
      golden.graph.AddNode(golden.op, "golden", operands, *attrs));
  golden.want = t.at("output");
  return golden;
}

absl::StatusOr<ModelGolden> ReadModelGolden(const std::string& name) {
  absl::StatusOr<SafetensorsFile> read =
      ReadSafetensors(absl::StrCat(kDataDir, "/", name, ".safetensors"));
  if (!read.ok()) return read.status();
  ModelGolden golden;
  golden.state = std::move(read->tensors);
  golden.metadata = std::move(read->metadata);
  for (const char* key : {"input", "output"}) {
    if (golden.state.count(key) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ".safetensors has no '", key, "' tensor"));
    }
  }
  golden.input = golden.state.at("input");
  golden.want = golden.state.at("output");
  golden.state.erase("input");
  golden.state.erase("output");
  return golden;
}

absl::StatusOr<nn::VggConfig> VggConfigOf(const ModelGolden& golden) {
  const auto& meta = golden.metadata;
  for (const char* key : {"cfg", "hidden", "num_classes", "avgpool"}) {
    if (meta.count(key) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("VGG golden without '", key, "' metadata"));
    }
  }
  nn::VggConfig config;
  for (const auto& v : nlohmann::json::parse(meta.at("cfg"))) {
    config.layers.push_back(v.is_string() ? nn::VggConfig::kPool
                                          : v.get<int64_t>());
  }
  config.hidden = std::stoll(meta.at("hidden"));
  config.num_classes = std::stoll(meta.at("num_classes"));
  config.avgpool = nlohmann::json::parse(meta.at("avgpool"))[0].get<int64_t>();
  return config;
}

ConvBnSmall::ConvBnSmall() {
  auto features = std::make_unique<nn::Sequential>();
  nn::Conv2dOptions first;
  first.pad_h = first.pad_w = 1;
  first.bias = false;
  features->Add(std::make_unique<nn::Conv2d>(3, 8, 3, 3, first));
  features->Add(std::make_unique<nn::BatchNorm2d>(8, 1e-5));
  features->Add(std::make_unique<nn::ReLU>());
  nn::Conv2dOptions second;
  second.pad_h = second.pad_w = 1;
  second.stride_h = second.stride_w = 2;
  features->Add(std::make_unique<nn::Conv2d>(8, 16, 3, 3, second));
  features->Add(std::make_unique<nn::BatchNorm2d>(16, 1e-3));
  features->Add(std::make_unique<nn::ReLU>());
  features_ = RegisterChild("features", std::move(features));
}

absl::StatusOr<ValueId> ConvBnSmall::Trace(Graph& graph, ValueId x,
                                           const std::string& path) const {
  return features_->Trace(graph, x,
                          path.empty() ? "features" : path + ".features");
}

void ExpectOpClose(const std::vector<float>& got, const HostArray& want,
                   const std::string& what) {
  ASSERT_EQ(static_cast<int64_t>(got.size()), want.num_elements()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const double expected = want.ElementAsDouble(static_cast<int64_t>(i));
    ASSERT_NEAR(got[i], expected, 1e-5 + 1e-4 * std::abs(expected))
        << what << " element " << i;
  }
}

void ExpectModelClose(const std::vector<float>& got, const HostArray& want,
                      const std::string& what) {
  ASSERT_EQ(static_cast<int64_t>(got.size()), want.num_elements()) << what;
  double scale = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    scale = std::max(scale, std::abs(want.ElementAsDouble(i)));
  }
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want.ElementAsDouble(static_cast<int64_t>(i)),
                1e-4 * scale)
        << what << " element " << i;
  }
}

}  // namespace golden
}  // namespace switchyard
