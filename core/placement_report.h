#ifndef SWITCHYARD_CORE_PLACEMENT_REPORT_H_
#define SWITCHYARD_CORE_PLACEMENT_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/device.h"

namespace switchyard {

// What the auto placement policy did to a graph, for the user to read.
struct PlacementReport {
  struct Move {
    std::string value;  // "input", "features.0.weight"
    Device from;
    Device to;
    int64_t bytes;
    bool per_run;  // a copy node (every run); false: a parameter moved once
  };
  struct Fallback {
    std::string node;
    Device from;
    Device to;
    std::string reason;  // why `from` cannot run it
  };
  std::vector<Move> moves;
  std::vector<Fallback> fallbacks;

  int64_t BytesPerRun() const;
  int CopiesPerRun() const;
  // "auto placement: 1 copy per run (602112 bytes): input cpu:0 -> ref:0; ..."
  std::string ToString() const;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PLACEMENT_REPORT_H_
