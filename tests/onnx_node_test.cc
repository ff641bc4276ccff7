// ONNX's own backend test suites (Debian's libonnx-testdata: node,
// pytorch-converted, pytorch-operator and simple; one folder per case with
// model.onnx and test_data_set_*/{input,output}_*.pb) imported and run on
// every device. Each (case, device) is passed, failed, or skipped with the
// reason (an op, attribute or dtype the importer does not support, a
// device that is not there, or a case whose stored data is wrong by ONNX's
// own later rules: WrongDataCases lists them). A failure is a bug: the test
// fails. bfloat16 data, stored by ONNX 1.12 as UINT16 bit patterns, is read
// as the bfloat16 the model declares.
//
//   bazel test //tests:onnx_node_test --test_output=all
//   onnx_node_test --suites=simple --filter=conv --summary_json=/tmp/onnx.json
//
// The same runner reads Switchyard's own suites (tests/onnx_cases, written
// by tools/onnx_cases/make_cases.py with ONNX Runtime's outputs) with
// --require_supported; there a case folder holding expected_error.txt is a
// hostile model, which must be refused (loading or running it fails, not
// with Internal) with an error containing that text, and one holding
// known_gap.txt is a model ONNX Runtime runs and Switchyard does not yet: it
// must be refused as unsupported with that text, and is counted as skipped.
//
// Tolerance: ONNX's backend runner's (numpy assert_allclose, rtol 1e-3,
// atol 1e-7), with atol widened to 1e-5 for float32 results (sums in
// another order than numpy's) and both to 5e-3 for float16 ones (float32
// math between float16 roundings, as ONNX Runtime's CPU provider does it,
// rounds differently from float16 math); integers and bools exactly, or
// within the steps a case's integer_tolerance.txt allows ("1: why").

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/backend_registry.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "models/host_array.h"
#include "onnx/converter_registry.h"
#include "onnx/onnx_model.h"
#include "onnx/onnx_tensor.h"

ABSL_FLAG(std::string, data_dir, "",
          "the folder holding the suites' folders (default: the runfiles' copy of "
          "/usr/share/libonnx-testdata/data)");
ABSL_FLAG(std::string, suites, "node,pytorch-converted,pytorch-operator,simple",
          "the suites to run, by folder name; * for every folder in --data_dir");
ABSL_FLAG(std::string, filter, "", "run only cases whose name contains this");
ABSL_FLAG(std::string, devices, "cpu:0,ref:0,cuda:0",
          "devices to run on; one a machine lacks is skipped");
ABSL_FLAG(std::string, summary_json, "",
          "write every result here (for tools/onnx_coverage.py)");
ABSL_FLAG(bool, verbose, false, "print passed cases too");
ABSL_FLAG(bool, require_supported, false,
          "count a case the importer does not support as failed, not skipped "
          "(Switchyard's own suites, tests/onnx_cases)");
ABSL_FLAG(bool, list_supported, false,
          "print the ONNX op types the importer converts and exit");

namespace switchyard {
namespace {

enum class Outcome { kPassed, kFailed, kSkipped };

struct Result {
  std::string suite, name, device;
  Outcome outcome;
  std::string reason;
  std::vector<std::string> op_types;
  bool known_gap = false;  // skipped as its known_gap.txt says
};

std::vector<std::string> ListDir(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (absl::StartsWith(name, prefix) && name != "." && name != "..") {
      names.push_back(name);
    }
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string FirstLine(absl::string_view s) {
  std::string line(s.substr(0, s.find('\n')));
  if (line.size() > 300) line = line.substr(0, 300) + " ...";
  return line;
}

std::string DataDir() {
  if (!absl::GetFlag(FLAGS_data_dir).empty()) return absl::GetFlag(FLAGS_data_dir);
  for (const char* env : {"TEST_SRCDIR", "RUNFILES_DIR"}) {
    const char* root = std::getenv(env);
    if (root == nullptr) continue;
    for (const char* sub : {"/onnx_testdata", "/switchyard/external/onnx_testdata"}) {
      const std::string dir = absl::StrCat(root, sub);
      if (Exists(dir + "/node")) return dir;
    }
  }
  return "/usr/share/libonnx-testdata/data";
}

// Empty when `got` matches `want`; else what differs. Integer outputs
// match exactly, or within `integer_tolerance` steps where the case's
// integer_tolerance.txt allows it (and says why).
std::string Compare(const HostArray& got, const HostArray& want, int64_t integer_tolerance) {
  if (got.shape != want.shape) {
    return absl::StrCat("shape ", got.shape.ToString(), ", expected ",
                        want.shape.ToString());
  }
  if (got.dtype != want.dtype) {
    return absl::StrCat("dtype ", DTypeName(got.dtype), ", expected ",
                        DTypeName(want.dtype));
  }
  const bool exact = !IsFloatingPoint(want.dtype);
  const bool half = want.dtype == DType::kFloat16;
  const double rtol = half ? 5e-3 : 1e-3;
  const double atol = half ? 5e-3 : want.dtype == DType::kFloat32 ? 1e-5 : 1e-7;
  int64_t bad = 0, worst = -1;
  double worst_excess = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double g = got.ElementAsDouble(i), w = want.ElementAsDouble(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    const double diff = std::abs(g - w);
    const double allowed = exact ? static_cast<double>(integer_tolerance)
                                 : atol + rtol * std::abs(w);
    if (!(diff <= allowed)) {
      ++bad;
      const double excess = std::isnan(diff) ? 1e300 : diff - allowed;
      if (worst < 0 || excess > worst_excess) {
        worst = i;
        worst_excess = excess;
      }
    }
  }
  if (bad == 0) return "";
  return absl::StrCat(bad, " of ", want.num_elements(),
                      " elements differ; worst at ", worst, ": got ",
                      got.ElementAsDouble(worst), ", expected ",
                      want.ElementAsDouble(worst));
}

// The data set's tensors `prefix`0.pb, `prefix`1.pb, ... `declared` has the
// model's dtypes for them: ONNX (1.12) stores bfloat16 test data as UINT16
// bit patterns, read here as the bfloat16 the model declares.
absl::StatusOr<std::vector<HostArray>> ReadSet(const std::string& dir,
                                               const std::string& prefix,
                                               const std::vector<DType>& declared) {
  std::vector<HostArray> arrays;
  for (int i = 0;; ++i) {
    const std::string path = absl::StrCat(dir, "/", prefix, i, ".pb");
    if (!Exists(path)) break;
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    onnx::TensorProto proto;
    if (!proto.ParseFromString(bytes)) {
      return absl::InvalidArgumentError(absl::StrCat(path, " is not a TensorProto"));
    }
    if (proto.data_type() == onnx::TensorProto::UINT16 && i < static_cast<int>(declared.size()) &&
        declared[i] == DType::kBFloat16) {
      proto.set_data_type(onnx::TensorProto::BFLOAT16);
    }
    SY_ASSIGN_OR_RETURN(HostArray a, onnx_import::ReadTensorProto(proto, dir));
    arrays.push_back(std::move(a));
  }
  return arrays;
}

// Moves `model` to `device` and uploads `inputs` there.
absl::StatusOr<std::vector<Tensor>> Upload(OnnxModel& model, const Device& device,
                                           const std::vector<HostArray>& inputs,
                                           BackendRegistry& registry) {
  SY_RETURN_IF_ERROR(model.To(device));
  SY_ASSIGN_OR_RETURN(BackendDevice * backend, registry.GetDevice(device));
  std::vector<Tensor> tensors;
  for (const HostArray& a : inputs) {
    SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromBytes(a.shape, a.dtype, a.bytes.data(),
                                                    a.bytes.size(), *backend));
    tensors.push_back(std::move(t));
  }
  return tensors;
}

// Runs one data set on `device`; "" when every output matches.
// `declared` names the model's inputs in order.
absl::StatusOr<std::string> RunSet(OnnxModel& model, const Device& device,
                                   const std::vector<std::string>& declared,
                                   const std::vector<HostArray>& inputs,
                                   const std::vector<HostArray>& outputs,
                                   int64_t integer_tolerance, BackendRegistry& registry) {
  if (inputs.size() != declared.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the data set has ", inputs.size(), " inputs, the model ",
        declared.size()));
  }
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> tensors, Upload(model, device, inputs, registry));
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> got, model.Run(tensors));
  if (got.size() != outputs.size()) {
    return absl::StrCat(got.size(), " outputs, expected ", outputs.size());
  }
  for (size_t i = 0; i < got.size(); ++i) {
    SY_ASSIGN_OR_RETURN(std::vector<char> bytes, got[i].ToBytes());
    const HostArray g(got[i].shape(), got[i].dtype(), std::move(bytes));
    const std::string diff = Compare(g, outputs[i], integer_tolerance);
    if (!diff.empty()) return absl::StrCat("output ", i, ": ", diff);
  }
  return std::string();
}

std::vector<std::string> OpTypes(const std::string& model_path) {
  std::vector<std::string> ops;
  std::ifstream in(model_path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::ModelProto proto;
  if (!proto.ParseFromString(bytes)) return ops;
  for (const auto& node : proto.graph().node()) {
    if (std::find(ops.begin(), ops.end(), node.op_type()) == ops.end()) {
      ops.push_back(node.op_type());
    }
  }
  return ops;
}

// Cases whose stored data is wrong by ONNX's own later rules: listed, each
// with the reason, and skipped rather than counted as Switchyard's failures.
const std::map<std::string, std::string>& WrongDataCases() {
  static const auto* cases = new std::map<std::string, std::string>{
      {"test_cast_FLOAT_to_BFLOAT16",
       "expected data is wrong: ONNX 1.12 truncated float32 to bfloat16; the Cast spec "
       "(and ONNX from 1.13) rounds to nearest even, as Switchyard does"},
      {"test_castlike_BFLOAT16_to_FLOAT",
       "expected data is wrong: the data set feeds 'like' as shape [1], the model declares "
       "[3, 4] (ONNX 1.12's generator)"},
      {"test_castlike_BFLOAT16_to_FLOAT_expanded",
       "expected data is wrong: the data set feeds 'like' as shape [1], the model declares "
       "[3, 4] (ONNX 1.12's generator)"},
      {"test_castlike_FLOAT_to_BFLOAT16",
       "expected data is wrong: 'like' fed as shape [1] against a declared [3, 4], and "
       "truncated rather than rounded bfloat16 (ONNX 1.12's generator)"},
      {"test_castlike_FLOAT_to_BFLOAT16_expanded",
       "expected data is wrong: 'like' fed as shape [1] against a declared [3, 4], and "
       "truncated rather than rounded bfloat16 (ONNX 1.12's generator)"},
  };
  return *cases;
}

// A hostile case: the error loading or running its data set on `device`,
// or OK when both succeed (which fails the case).
absl::Status LoadAndRun(const std::string& dir, const Device& device,
                        BackendRegistry& registry) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<OnnxModel> model,
                      OnnxModel::Load(dir + "/model.onnx", registry));
  std::vector<DType> dtypes;
  for (const OnnxValueInfo& in : model->inputs()) dtypes.push_back(in.dtype);
  SY_ASSIGN_OR_RETURN(std::vector<HostArray> inputs,
                      ReadSet(dir + "/test_data_set_0", "input_", dtypes));
  SY_ASSIGN_OR_RETURN(std::vector<Tensor> tensors, Upload(*model, device, inputs, registry));
  return model->Run(tensors).status();
}

std::string FirstLineOf(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

Result RunRefusal(const std::string& dir, const std::string& suite, const std::string& name,
                  const Device& device, const std::vector<std::string>& ops,
                  BackendRegistry& registry) {
  const std::string expected = FirstLineOf(dir + "/expected_error.txt");
  const absl::Status s = LoadAndRun(dir, device, registry);
  Result r{suite, name, device.ToString(), Outcome::kPassed, "", ops};
  if (s.ok()) {
    r.outcome = Outcome::kFailed;
    r.reason = absl::StrCat("a hostile model ran; expected an error containing '", expected,
                            "'");
  } else if (s.code() == absl::StatusCode::kInternal ||
             !absl::StrContains(s.message(), expected)) {
    r.outcome = Outcome::kFailed;
    r.reason = absl::StrCat("refused with ", absl::StatusCodeToString(s.code()), " '",
                            FirstLine(s.message()), "'; expected an error containing '",
                            expected, "'");
  } else {
    r.reason = FirstLine(s.message());
  }
  return r;
}

std::vector<Result> RunMatchCase(const std::string& dir, const std::string& suite,
                                 const std::string& name, const std::vector<Device>& devices,
                                 BackendRegistry& registry);

// A known gap passes as skipped only while Switchyard refuses it as
// unsupported for the reason the file gives; once it runs, the file goes.
std::vector<Result> RunCase(const std::string& dir, const std::string& suite,
                            const std::string& name, const std::vector<Device>& devices,
                            BackendRegistry& registry) {
  std::vector<Result> results = RunMatchCase(dir, suite, name, devices, registry);
  if (!Exists(dir + "/known_gap.txt")) return results;
  const std::string expected = FirstLineOf(dir + "/known_gap.txt");
  for (Result& r : results) {
    if (r.outcome == Outcome::kSkipped && absl::StrContains(r.reason, expected)) {
      r.known_gap = true;
      r.reason = absl::StrCat("known gap: ", r.reason);
    } else if (r.outcome != Outcome::kFailed) {
      r.reason = absl::StrCat(
          r.outcome == Outcome::kPassed ? "runs and matches now" : r.reason,
          "; expected a refusal as unsupported containing '", expected,
          "' (known_gap.txt): make it a match case if it runs");
      r.outcome = Outcome::kFailed;
    }
  }
  return results;
}

std::vector<Result> RunMatchCase(const std::string& dir, const std::string& suite,
                                 const std::string& name, const std::vector<Device>& devices,
                                 BackendRegistry& registry) {
  std::vector<Result> results;
  const std::vector<std::string> ops = OpTypes(dir + "/model.onnx");
  if (Exists(dir + "/expected_error.txt")) {
    for (const Device& d : devices) {
      results.push_back(RunRefusal(dir, suite, name, d, ops, registry));
    }
    return results;
  }
  auto all = [&](Outcome outcome, const std::string& reason) {
    for (const Device& d : devices) {
      results.push_back({suite, name, d.ToString(), outcome, reason, ops});
    }
    return results;
  };
  if (auto wrong = WrongDataCases().find(name); wrong != WrongDataCases().end()) {
    return all(Outcome::kSkipped, wrong->second);
  }
  // Inputs that decide shapes (a Reshape's shape fed as an input) are fed
  // like any other: OnnxModel::Run reads their contents when it needs them.
  absl::StatusOr<std::unique_ptr<OnnxModel>> model =
      OnnxModel::Load(dir + "/model.onnx", registry);
  if (!model.ok()) {
    const bool unsupported = model.status().code() == absl::StatusCode::kUnimplemented;
    return all(unsupported ? Outcome::kSkipped : Outcome::kFailed,
               FirstLine(model.status().message()));
  }
  std::vector<std::string> declared;
  std::vector<DType> input_dtypes, output_dtypes;
  for (const OnnxValueInfo& in : (*model)->inputs()) {
    declared.push_back(in.name);
    input_dtypes.push_back(in.dtype);
  }
  for (const OnnxValueInfo& out : (*model)->outputs()) output_dtypes.push_back(out.dtype);
  std::vector<std::string> sets = ListDir(dir, "test_data_set_");
  // integer_tolerance.txt: "N: why" (8-bit results truncated from float
  // sums, where the order of ONNX Runtime's float arithmetic decides values
  // that land within rounding of an integer).
  int64_t integer_tolerance = 0;
  if (Exists(dir + "/integer_tolerance.txt")) {
    const std::string line = FirstLineOf(dir + "/integer_tolerance.txt");
    if (!absl::SimpleAtoi(line.substr(0, line.find(':')), &integer_tolerance) ||
        integer_tolerance < 0 || integer_tolerance > 1) {
      return all(Outcome::kFailed,
                 absl::StrCat("integer_tolerance.txt says '", line, "'; want 'N: why', N 0 or 1"));
    }
  }
  for (const Device& device : devices) {
    Result r{suite, name, device.ToString(), Outcome::kPassed, "", ops};
    for (const std::string& set : sets) {
      const std::string set_dir = absl::StrCat(dir, "/", set);
      absl::StatusOr<std::vector<HostArray>> inputs = ReadSet(set_dir, "input_", input_dtypes);
      absl::StatusOr<std::vector<HostArray>> outputs =
          ReadSet(set_dir, "output_", output_dtypes);
      absl::StatusOr<std::string> diff =
          !inputs.ok()    ? absl::StatusOr<std::string>(inputs.status())
          : !outputs.ok() ? absl::StatusOr<std::string>(outputs.status())
                          : RunSet(**model, device, declared, *inputs, *outputs,
                                   integer_tolerance, registry);
      if (!diff.ok()) {
        const bool unsupported = diff.status().code() == absl::StatusCode::kUnimplemented;
        r.outcome = unsupported ? Outcome::kSkipped : Outcome::kFailed;
        r.reason = absl::StrCat(set, ": ", FirstLine(diff.status().message()));
        break;
      }
      if (!diff->empty()) {
        r.outcome = Outcome::kFailed;
        r.reason = absl::StrCat(set, ": ", *diff);
        break;
      }
    }
    results.push_back(r);
  }
  return results;
}

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

int Main() {
  if (absl::GetFlag(FLAGS_list_supported)) {
    for (const std::string& op : onnx_import::SupportedOpTypes()) {
      std::printf("%s\n", op.c_str());
    }
    return 0;
  }
  BackendRegistry& registry = BackendRegistry::Global();
  std::vector<Device> devices;
  for (absl::string_view spec : absl::StrSplit(absl::GetFlag(FLAGS_devices), ',')) {
    absl::StatusOr<Device> d = Device::Parse(spec);
    if (!d.ok()) {
      std::fprintf(stderr, "%s\n", std::string(d.status().message()).c_str());
      return 2;
    }
    if (!registry.GetDevice(*d).ok()) {
      std::printf("device %s: not available here, skipped\n", d->ToString().c_str());
      continue;
    }
    devices.push_back(*d);
  }
  const std::string root = DataDir();
  std::vector<std::string> suites = absl::StrSplit(absl::GetFlag(FLAGS_suites), ',');
  if (absl::GetFlag(FLAGS_suites) == "*") suites = ListDir(root, "");
  std::vector<Result> results;
  for (const std::string& suite_name : suites) {
    const std::string suite(suite_name);
    const std::string dir = absl::StrCat(root, "/", suite);
    std::vector<std::string> cases = ListDir(dir, "test_");
    if (cases.empty()) {
      std::fprintf(stderr,
                   "no ONNX test cases in %s; install Debian's libonnx-testdata "
                   "(tools/setup.sh does)\n", dir.c_str());
      return 1;
    }
    for (const std::string& name : cases) {
      if (!absl::StrContains(name, absl::GetFlag(FLAGS_filter))) continue;
      for (Result& r : RunCase(absl::StrCat(dir, "/", name), suite, name, devices, registry)) {
        results.push_back(std::move(r));
      }
    }
  }
  std::map<std::string, std::map<std::string, std::map<Outcome, int>>> counts;  // device, suite
  if (absl::GetFlag(FLAGS_require_supported)) {
    for (Result& r : results) {
      if (r.outcome != Outcome::kSkipped || r.known_gap) continue;
      r.outcome = Outcome::kFailed;
      r.reason = absl::StrCat("not supported: ", r.reason);
    }
  }
  for (const Result& r : results) {
    ++counts[r.device][r.suite][r.outcome];
    ++counts[r.device]["all"][r.outcome];
    if (r.outcome == Outcome::kFailed) {
      std::printf("FAILED  %s/%s on %s: %s\n", r.suite.c_str(), r.name.c_str(), r.device.c_str(),
                  r.reason.c_str());
    } else if (absl::GetFlag(FLAGS_verbose)) {
      std::printf("%s %s/%s on %s%s%s\n",
                  r.outcome == Outcome::kPassed ? "passed " : "skipped", r.suite.c_str(),
                  r.name.c_str(), r.device.c_str(), r.reason.empty() ? "" : ": ",
                  r.reason.c_str());
    }
  }
  int failed = 0;
  for (const auto& [device, by_suite] : counts) {
    for (const auto& [suite, c] : by_suite) {
      auto get = [&](Outcome o) { auto it = c.find(o); return it == c.end() ? 0 : it->second; };
      std::printf("%s %s: %d passed, %d failed, %d skipped\n", device.c_str(), suite.c_str(),
                  get(Outcome::kPassed), get(Outcome::kFailed), get(Outcome::kSkipped));
      if (suite == "all") failed += get(Outcome::kFailed);
    }
  }
  const std::string json_path = absl::GetFlag(FLAGS_summary_json);
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "[\n";
    for (size_t i = 0; i < results.size(); ++i) {
      const Result& r = results[i];
      const char* o = r.outcome == Outcome::kPassed   ? "passed"
                      : r.outcome == Outcome::kFailed ? "failed"
                                                      : "skipped";
      out << "  {\"suite\": \"" << r.suite << "\", \"case\": \"" << r.name
          << "\", \"device\": \"" << r.device
          << "\", \"outcome\": \"" << o << "\", \"reason\": \"" << JsonEscape(r.reason)
          << "\", \"op_types\": [";
      for (size_t k = 0; k < r.op_types.size(); ++k) {
        out << (k ? ", " : "") << "\"" << r.op_types[k] << "\"";
      }
      out << "]}" << (i + 1 < results.size() ? "," : "") << "\n";
    }
    out << "]\n";
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace switchyard

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return switchyard::Main();
}
