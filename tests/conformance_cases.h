#ifndef SWITCHYARD_TESTS_CONFORMANCE_CASES_H_
#define SWITCHYARD_TESTS_CONFORMANCE_CASES_H_

// The backend conformance cases: every op, in every dtype some backend
// registers a kernel for, with several attribute combinations on small
// shapes, seeded random inputs per case, and a per-op (and per-dtype)
// tolerance against the reference backend; plus fused groups (conv2d+relu,
// linear+relu) that a backend may claim as one partition and must compute
// as the reference computes the two nodes. Used by tests/conformance_test.cc
// (every registered device) and tests/plugin_conformance_test.cc (the
// reference backend loaded as a plugin).
//
//   for (const ConformanceCase& c : ConformanceCases()) {
//     absl::StatusOr<OpResult> want =
//         ReferenceResult(c, registry, reference::ReferenceKernelKeys());
//     absl::StatusOr<OpResult> got = RunCase(c, *Device::Parse("cuda:0"),
//     registry); std::string mismatch = CompareResults(*got, *want,
//     ToleranceFor(c));
//   }

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace switchyard {
namespace conformance {

// Elementwise |got - want| <= atol + rtol * |want|.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// An operand whose dtype differs from the case's (gather's indices, where's
// x and y), and for an integer dtype the range of its values.
struct OperandValues {
  DType dtype = DType::kInt64;
  // Integer dtypes: uniform in [low, high] when low < high (gather's
  // indices: [-n, n - 1]), else as ConformanceCase says. Floating dtypes:
  // as ConformanceCase says, ignoring these.
  int64_t low = 0;
  int64_t high = 0;
  // Every value 0 (a symmetric weight's zero point).
  bool zeros = false;
};

struct ConformanceCase {
  std::string name;            // unique, [a-z0-9_]: "conv2d_stride2_pad1"
  std::string op;              // an OpRegistry name
  // Of every operand not in `operand_values`; the first operand's dtype is
  // the kernel's key (where: bool, its condition's).
  DType dtype = DType::kFloat32;
  std::vector<Shape> inputs;   // graph inputs, the first operands
  std::vector<Shape> params;   // constants after them (weight, bias)
  AttrMap attrs;
  // Floating values are uniform in [-scale, scale); integers in [-100, 100]
  // (uint8: [0, 255]); bool 0 or 1.
  float scale = 1.0f;
  // Params (by index) whose values must be positive (variances): |v| + 0.1.
  std::vector<int> positive_params;
  // A relu after the op, reading only its output: a group a backend may
  // fuse ("conv2d+relu"); the reference runs the two nodes.
  bool then_relu = false;
  // Overrides the per-op table in ToleranceFor (for the float32 case).
  std::optional<Tolerance> tolerance;
  // Operands (by index: the inputs, then the params) of another dtype than
  // `dtype`. They keep it when the reference runs the case in float32.
  std::map<int, OperandValues> operand_values;
};

// A case with every operand of the case's dtype (float32 unless changed).
ConformanceCase Case(std::string name, std::string op, std::vector<Shape> inputs,
                     std::vector<Shape> params = {},
                     std::vector<std::pair<std::string, AttrValue>> attrs = {});
// The same case in another dtype, named "<name>_<dtype>".
ConformanceCase InDType(ConformanceCase c, DType dtype);

// For gtest's messages.
void PrintTo(const ConformanceCase& c, std::ostream* os);

// Every case: the original ops' (conformance_cases.cc) and each op
// family's own file (conformance_cases_<family>.cc).
std::vector<ConformanceCase> ConformanceCases();
std::vector<ConformanceCase> ElementwiseConformanceCases();
std::vector<ConformanceCase> ShapeConformanceCases();
std::vector<ConformanceCase> NnConformanceCases();
std::vector<ConformanceCase> BitwiseConformanceCases();

// Exact for ops with one correctly rounded result (relu, add, max_pool2d,
// flatten, dropout) in every dtype; loose enough for float32 sums in
// another order (and for TF32-free GPU math) for the rest, widened for
// float16 and bfloat16 by their precision. See the table in the .cc.
Tolerance ToleranceFor(const ConformanceCase& c);

// The op's first output; the others, for an op with several
// (non_max_suppression's count), in `more`, compared the same way.
struct OpResult {
  Shape shape;
  DType dtype = DType::kFloat32;
  std::vector<double> values;
  std::vector<OpResult> more;  // outputs 1, 2, ...
  // The partitions the devices claimed ("conv2d+relu"), in run order.
  std::vector<std::string> partitions;
};

// Builds the case's graph on `device` (inputs and params there), compiles
// it with `registry` and the standard pipeline, runs it, and reads every
// output back (as many as the op's shape inference gives: split has one
// per size). The inputs depend only on the case, never on the device.
// With `run_as`, the same values (all exact in both dtypes) run in that
// dtype instead of the case's.
absl::StatusOr<OpResult> RunCase(const ConformanceCase& c, const Device& device,
                                 BackendRegistry& registry,
                                 std::optional<DType> run_as = std::nullopt);

// The oracle: the case on ref:0 of `registry`, in the case's dtype when the
// reference has that kernel (among `reference_keys`), else in float32 and
// rounded to the case's dtype.
absl::StatusOr<OpResult> ReferenceResult(
    const ConformanceCase& c, BackendRegistry& registry,
    const std::vector<std::pair<std::string, DType>>& reference_keys);

// Empty when the shapes and dtypes of every output match and every element
// is within tolerance; else, for the first output that differs, the number
// of bad elements and the worst one, with both values.
std::string CompareResults(const OpResult& got, const OpResult& want,
                           Tolerance tolerance);

}  // namespace conformance
}  // namespace switchyard

#endif  // SWITCHYARD_TESTS_CONFORMANCE_CASES_H_
