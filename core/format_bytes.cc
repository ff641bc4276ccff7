#include "core/format_bytes.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace switchyard {

std::string FormatBytes(int64_t bytes) {
  if (bytes < 0) return "?";
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat("%.2f %s", value, units[unit]);
}

}  // namespace switchyard
