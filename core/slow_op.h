#ifndef SWITCHYARD_CORE_SLOW_OP_H_
#define SWITCHYARD_CORE_SLOW_OP_H_

// How reports name the node that takes the most time, and what they advise
// about it: the profile summary's verdict (core/profiler_summary.h) and the
// stream's diagnosis (core/timeline_analysis.h) say the same.

#include <string>

namespace switchyard {

// `name` as a report line shows it: whole up to 100 characters; a fused
// kernel's joined name ("a+b+...+z", thousands of characters for a
// backbone) as "a+...+z (N nodes)"; any other long name as "..." and its end,
// where a layer path says the most.
std::string ShortNodeName(const std::string& name);

// One clause of advice for a node that dominates the time, by what it is:
// non-maximum suppression (fewer boxes in), a copy (keep data on the
// device), a host step, anything else (its parts in the profile, another
// device). Worded for every front end: no flag names.
std::string SlowOpAdvice(const std::string& name, const std::string& device);

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_SLOW_OP_H_
