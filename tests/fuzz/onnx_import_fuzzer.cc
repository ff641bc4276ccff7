// libFuzzer target for the ONNX importer (onnx/onnx_model.h).
//
// Any byte string may come in: it is written to model.onnx in a private
// folder (so external data can only name files there: the model itself, or
// nothing) and loaded with OnnxModel::Load, which parses it, loads its
// initializers and converts every node. Load must return a Status, never
// crash, hang, read out of bounds or allocate without bound; an error names
// the file and never has code Internal (a broken invariant). When a model
// loads and its inputs are small, OnnxModel::Run (staged: If, Loop, NonZero,
// shapes from data) runs it on zeros on the CPU, Loops bounded to
// kMaxLoopIterations: errors there are fine, crashes are not.
//
// Built by tools/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined) and,
// for replaying the corpus in the normal test suite, by Bazel as
// //tests/fuzz:onnx_import_fuzzer_replay_test.

#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/backend_registry.h"
#include "core/dtype.h"
#include "core/tensor.h"
#include "onnx/onnx_model.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

// Inputs up to this many elements in all are run.
constexpr int64_t kMaxRunElements = int64_t{1} << 16;
// A Loop of the fuzz input runs at most this many iterations.
constexpr int64_t kMaxLoopIterations = 64;

const std::string& ModelPath() {
  static const std::string* path = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") +
                        "/onnx_import_fuzzer.XXXXXX";
    FUZZ_CHECK(mkdtemp(templ.data()) != nullptr);
    return new std::string(templ + "/model.onnx");
  }();
  return *path;
}

void WriteModel(absl::string_view bytes) {
  FILE* f = std::fopen(ModelPath().c_str(), "wb");
  FUZZ_CHECK(f != nullptr);
  FUZZ_CHECK(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
  FUZZ_CHECK(std::fclose(f) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using switchyard::OnnxModel;
  WriteModel(absl::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::Load(ModelPath());
  if (!model.ok()) {
    FUZZ_CHECK(model.status().code() != absl::StatusCode::kInternal);
    FUZZ_CHECK(model.status().code() != absl::StatusCode::kOk);
    FUZZ_CHECK(absl::string_view(model.status().message()).find(ModelPath()) !=
               absl::string_view::npos);
    return 0;
  }
  absl::StatusOr<std::vector<switchyard::InputSpec>> specs =
      (*model)->InputSpecs();
  if (!specs.ok()) return 0;
  int64_t elements = 0;
  for (const switchyard::InputSpec& spec : *specs) {
    elements += spec.shape.num_elements();
    if (elements > kMaxRunElements) return 0;
  }
  switchyard::BackendRegistry& registry = switchyard::BackendRegistry::Global();
  absl::StatusOr<switchyard::BackendDevice*> cpu =
      registry.GetDevice(switchyard::Device::Cpu());
  FUZZ_CHECK(cpu.ok());
  std::vector<switchyard::Tensor> inputs;
  for (const switchyard::InputSpec& spec : *specs) {
    const std::vector<char> zeros(
        static_cast<size_t>(spec.shape.num_elements()) *
        switchyard::DTypeSize(spec.dtype));
    absl::StatusOr<switchyard::Tensor> t = switchyard::Tensor::FromBytes(
        spec.shape, spec.dtype, zeros.data(), zeros.size(), **cpu);
    FUZZ_CHECK(t.ok());
    inputs.push_back(*t);
  }
  FUZZ_CHECK((*model)->set_max_loop_iterations(kMaxLoopIterations).ok());
  absl::StatusOr<std::vector<switchyard::Tensor>> out = (*model)->Run(inputs);
  if (out.ok()) {
    FUZZ_CHECK(out->size() == (*model)->outputs().size());
  } else {
    FUZZ_CHECK(out.status().code() != absl::StatusCode::kInternal);
  }
  return 0;
}
