#ifndef SWITCHYARD_TESTS_CONFORMANCE_CASES_H_
#define SWITCHYARD_TESTS_CONFORMANCE_CASES_H_

// The backend conformance cases: every op with several attribute
// combinations on small shapes, random inputs from a fixed seed per case,
// and a per-op tolerance against the reference backend. Used by
// tests/conformance_test.cc (every registered device) and
// tests/plugin_conformance_test.cc (the reference backend loaded as a plugin).
//
//   for (const ConformanceCase& c : ConformanceCases()) {
//     absl::StatusOr<OpResult> want = RunCase(c, *Device::Parse("ref:0"), registry);
//     absl::StatusOr<OpResult> got = RunCase(c, *Device::Parse("cuda:0"), registry);
//     std::string mismatch = CompareResults(*got, *want, ToleranceFor(c.op));
//   }

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/backend_registry.h"
#include "core/device.h"
#include "core/shape.h"

namespace switchyard {
namespace conformance {

struct ConformanceCase {
  std::string name;            // unique, [a-z0-9_]: "conv2d_stride2_pad1"
  std::string op;              // an OpRegistry name
  std::vector<Shape> inputs;   // graph inputs, the first operands
  std::vector<Shape> params;   // constants after them (weight, bias)
  AttrMap attrs;
  float scale = 1.0f;          // values are uniform in [-scale, scale)
};

// For gtest's messages.
void PrintTo(const ConformanceCase& c, std::ostream* os);

std::vector<ConformanceCase> ConformanceCases();

// Elementwise |got - want| <= atol + rtol * |want|.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// Exact for ops with one correctly rounded result (relu, add, max_pool2d,
// flatten, dropout); loose enough for float32 sums in another order (and
// for TF32-free GPU math) for the rest. See the table in the .cc.
Tolerance ToleranceFor(const std::string& op);

struct OpResult {
  Shape shape;
  std::vector<float> values;
};

// Builds the case's one-node graph on `device` (inputs and params there),
// compiles it with `registry` and the standard pipeline, runs it, and reads
// the output back. The inputs depend only on the case, never on the device.
absl::StatusOr<OpResult> RunCase(const ConformanceCase& c, const Device& device,
                                 BackendRegistry& registry);

// Empty when the shapes match and every element is within tolerance; else
// the number of bad elements and the worst one, with both values.
std::string CompareResults(const OpResult& got, const OpResult& want,
                           Tolerance tolerance);

}  // namespace conformance
}  // namespace switchyard

#endif  // SWITCHYARD_TESTS_CONFORMANCE_CASES_H_
