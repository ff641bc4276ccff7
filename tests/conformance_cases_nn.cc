// The nn op family's conformance cases (see conformance_cases.h).

#include <vector>

#include "tests/conformance_cases.h"

namespace switchyard {
namespace conformance {

std::vector<ConformanceCase> NnConformanceCases() { return {}; }

}  // namespace conformance
}  // namespace switchyard
