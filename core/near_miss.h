#ifndef SWITCHYARD_CORE_NEAR_MISS_H_
#define SWITCHYARD_CORE_NEAR_MISS_H_

// "Did you mean ...?" for names a user mistyped: the closest of the names
// a tool knows, by edit distance, when it is close enough to be a typo.
//
//   NearestName("inputs", {"input", "iterations"}) == "input"
//   NearestName("zzz", {"input"}) == ""

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace switchyard {

// Levenshtein distance (insertions, deletions, substitutions), ignoring
// case and treating '-' and '_' alike.
int EditDistance(absl::string_view a, absl::string_view b);

// The name of `names` nearest to `typed`, if at most 2 edits away (1 when
// `typed` has 4 letters or fewer; for 3 or fewer, only a missing or extra
// letter) and nearer than every other; else "".
std::string NearestName(absl::string_view typed, const std::vector<std::string>& names);

// The device `typed` (a --device or device= value that names no backend)
// probably means, given the registered `types`; "" when nothing is near:
// a type and its index without the colon ("cuda0" -> "cuda:0"), PyTorch's
// and oneDNN's other names ("gpu" -> "cuda:0", "mkldnn" -> "dnnl:0"), or a
// typo ("dnn:1" -> "dnnl:1"); never the CPU for "gpu". Case is ignored.
std::string MeantDevice(absl::string_view typed, const std::vector<std::string>& types);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_NEAR_MISS_H_
