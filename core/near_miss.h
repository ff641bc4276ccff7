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

// The name of `names` nearest to `typed`, if at most 2 edits away (1 for
// names of 4 letters or fewer) and nearer than every other; else "".
std::string NearestName(absl::string_view typed, const std::vector<std::string>& names);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_NEAR_MISS_H_
