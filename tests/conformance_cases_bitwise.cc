// Conformance cases for the bitwise ops (ops/bitwise.cc): every integer
// dtype, values of both signs (integers are drawn in [-100, 100], uint8 in
// [0, 255]), and for the binary ones each broadcasting shape a kernel
// walks differently (scalar, row, column, rank mismatch, both sides, empty,
// outputs split across threads). Exact: one integer result.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "tests/conformance_cases.h"

namespace switchyard {
namespace conformance {

std::vector<ConformanceCase> BitwiseConformanceCases() {
  struct Pattern {
    const char* name;
    Shape input, other;
  };
  const std::vector<Pattern> patterns = {
      {"same_shape", Shape({2, 3, 4}), Shape({2, 3, 4})},
      {"scalar_other", Shape({2, 3}), Shape()},
      {"row", Shape({3, 4, 5}), Shape({5})},
      {"column", Shape({3, 4, 5}), Shape({4, 1})},
      {"rank_mismatch", Shape({2, 3, 4, 5}), Shape({3, 1, 5})},
      {"both_sides", Shape({2, 1, 4}), Shape({3, 1})},
      {"empty", Shape({0, 3}), Shape({3})},
      {"threaded_row", Shape({64, 1000}), Shape({1000})},
  };
  std::vector<ConformanceCase> cases;
  for (DType dtype : {DType::kInt64, DType::kInt32, DType::kInt8, DType::kUInt8}) {
    for (const char* op : {"bitwise_and", "bitwise_or", "bitwise_xor"}) {
      for (const Pattern& p : patterns) {
        ConformanceCase c =
            InDType(Case(absl::StrCat(op, "_", p.name), op, {p.input, p.other}), dtype);
        c.tolerance = Tolerance{0, 0};
        cases.push_back(std::move(c));
      }
    }
    for (const Shape& shape : {Shape({3, 4}), Shape(), Shape({0, 2}), Shape({300, 200})}) {
      ConformanceCase c = InDType(
          Case(absl::StrCat("bitwise_not_", shape.num_elements()), "bitwise_not", {shape}),
          dtype);
      c.tolerance = Tolerance{0, 0};
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

}  // namespace conformance
}  // namespace switchyard
