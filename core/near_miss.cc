#include "core/near_miss.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace switchyard {
namespace {

char Fold(char c) { return c == '-' ? '_' : absl::ascii_tolower(static_cast<unsigned char>(c)); }

}  // namespace

int EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<int> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int above = row[j];
      const int substitute = diagonal + (Fold(a[i - 1]) == Fold(b[j - 1]) ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string NearestName(absl::string_view typed, const std::vector<std::string>& names) {
  std::string best;
  int best_distance = 1 << 30;
  bool tie = false;
  for (const std::string& name : names) {
    const int d = EditDistance(typed, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
      tie = false;
    } else if (d == best_distance && name != best) {
      tie = true;
    }
  }
  // Short names are one letter from many others ("tpu", "cpu"): for them
  // only a letter missing or extra ("dnn", "dnnl") counts.
  int allowed = typed.size() <= 4 ? 1 : 2;
  if (typed.size() <= 3 && best.size() == typed.size()) allowed = 0;
  if (best.empty() || tie || best_distance == 0 || best_distance > allowed) return "";
  return best;
}

std::string MeantDevice(absl::string_view typed, const std::vector<std::string>& types) {
  const std::string lower = absl::AsciiStrToLower(typed);
  absl::string_view type = lower;
  std::string index = "0";
  if (const size_t colon = type.find(':'); colon != absl::string_view::npos) {
    index = std::string(type.substr(colon + 1));
    type = type.substr(0, colon);
  }
  auto has = [&](absl::string_view t) {
    return std::find(types.begin(), types.end(), t) != types.end();
  };
  const size_t digits = type.find_first_of("0123456789");
  if (digits != absl::string_view::npos && digits > 0 &&
      type.find_first_not_of("0123456789", digits) == absl::string_view::npos &&
      has(type.substr(0, digits))) {
    return absl::StrCat(type.substr(0, digits), ":", type.substr(digits));
  }
  if (type == "gpu" || type == "nvidia") {  // never "cpu", one letter away
    return has("cuda") ? absl::StrCat("cuda:", index) : "";
  }
  if ((type == "mkldnn" || type == "onednn") && has("dnnl")) return absl::StrCat("dnnl:", index);
  const std::string nearest = NearestName(type, types);
  return nearest.empty() ? "" : absl::StrCat(nearest, ":", index);
}

}  // namespace switchyard
