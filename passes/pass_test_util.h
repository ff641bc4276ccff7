#ifndef SWITCHYARD_PASSES_PASS_TEST_UTIL_H_
#define SWITCHYARD_PASSES_PASS_TEST_UTIL_H_

// What the pass tests share: a pass that must not match leaves the
// shape-inferred graph exactly as it was.

#include <string>

#include "absl/status/statusor.h"
#include "core/graph.h"
#include "core/pass.h"
#include "core/passes/shape_inference.h"
#include "gtest/gtest.h"

namespace switchyard {

// Infers `graph`'s shapes, runs `pass` and expects it to report no change
// and to leave the graph's text as it was.
inline void ExpectPassLeavesGraph(Pass& pass, Graph& graph) {
  absl::StatusOr<bool> inferred = ShapeInferencePass().Run(graph);
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  const std::string before = graph.ToText();
  absl::StatusOr<bool> changed = pass.Run(graph);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(graph.ToText(), before);
}

}  // namespace switchyard

#endif  // SWITCHYARD_PASSES_PASS_TEST_UTIL_H_
