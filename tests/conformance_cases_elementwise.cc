// The elementwise op family's conformance cases (see conformance_cases.h).

#include <vector>

#include "tests/conformance_cases.h"

namespace switchyard {
namespace conformance {

std::vector<ConformanceCase> ElementwiseConformanceCases() { return {}; }

}  // namespace conformance
}  // namespace switchyard
