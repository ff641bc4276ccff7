#ifndef SWITCHYARD_BACKENDS_REFERENCE_KERNELS_TRUTH_TABLES_H_
#define SWITCHYARD_BACKENDS_REFERENCE_KERNELS_TRUTH_TABLES_H_

// The oracle's own truth tables on bools, spelled out once: the logical ops
// apply them to whole bools, the bitwise ops to each bit.

#include "absl/strings/string_view.h"

namespace switchyard {
namespace reference {

using Formula = bool (*)(bool a, bool b);

// "and", "or", "xor" and "not" (unary: b is unused); nullptr for any other.
inline Formula TruthTable(absl::string_view name) {
  if (name == "and") return [](bool a, bool b) { return a && b; };
  if (name == "or") return [](bool a, bool b) { return a || b; };
  if (name == "xor") return [](bool a, bool b) { return a != b; };
  if (name == "not") return [](bool a, bool) { return !a; };
  return nullptr;
}

}  // namespace reference
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_REFERENCE_KERNELS_TRUTH_TABLES_H_
