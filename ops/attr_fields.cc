#include "ops/attr_fields.h"

namespace switchyard {
namespace attr_fields_internal {

absl::Status MustBe(absl::string_view name, absl::string_view must_be,
                    const AttrValue& got, absl::string_view hint) {
  return absl::InvalidArgumentError(absl::StrCat(
      "attribute '", name, "' must be ", must_be, ", got ",
      AttrValueToString(got), hint));
}

}  // namespace attr_fields_internal
}  // namespace switchyard
