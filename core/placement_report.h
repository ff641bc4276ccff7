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
    // Both devices' memory is the host's: the tensor changes device without
    // a copy (core/shared_memory.h), and no bytes move.
    bool shared = false;
  };
  struct Fallback {
    std::string node;
    Device from;
    Device to;
    std::string reason;  // why `from` cannot run it
  };
  std::vector<Move> moves;
  std::vector<Fallback> fallbacks;

  // Copies that move bytes; shared moves are not counted.
  int64_t BytesPerRun() const;
  int CopiesPerRun() const;
  // Device changes every run that share memory instead of copying.
  int SharesPerRun() const;
  // "auto placement: 1 copy per run, 602112 bytes per run\n  every run: input cpu:0 -> cuda:0 ..."
  std::string ToString() const;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PLACEMENT_REPORT_H_
