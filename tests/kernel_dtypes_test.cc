// The backends' registration tables against the op schemas: every (op,
// dtype) the cpu, reference and cuda backends register a kernel for is an op
// the schemas define and a dtype its schema takes, so no kernel is dead code
// and no table claims a dtype that validation refuses; and the families the
// cpu and reference backends share a list for (ops/kernel_lists.h) are the
// same in both. The schemas may take more dtypes than a backend runs (float16
// on a GPU): that is a capability question, answered by Supports.

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_device.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/reference/reference_backend.h"
#include "core/op_def.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace {

using Keys = std::vector<std::pair<std::string, DType>>;

void ExpectAllowedBySchemas(const Keys& keys, const std::string& backend) {
  for (const auto& [op, dtype] : keys) {
    absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(op);
    ASSERT_TRUE(def.ok()) << backend << " registers a kernel for " << op
                          << ", which no op schema defines";
    const std::vector<DType>& takes = (*def)->schema().dtypes;
    EXPECT_TRUE(takes.empty() || std::find(takes.begin(), takes.end(), dtype) != takes.end())
        << backend << " registers " << op << " for " << DTypeName(dtype)
        << ", which its schema does not take";
  }
}

TEST(KernelDTypesTest, EveryRegisteredKernelIsOneItsSchemaTakes) {
  ExpectAllowedBySchemas(cpu::CpuKernels().Keys(), "cpu");
  ExpectAllowedBySchemas(reference::ReferenceKernelKeys(), "ref");
  ExpectAllowedBySchemas(cuda::CudaKernelKeys(), "cuda");
}

// The families of ops/kernel_lists.h: the cpu backend and its oracle
// register exactly the same (op, dtype) pairs.
TEST(KernelDTypesTest, SharedFamiliesAreTheSameInCpuAndReference) {
  const std::set<std::string> shared = {
      "cumsum",      "one_hot",     "argmax",     "argmin",          "bitwise_not",
      "bitwise_and", "bitwise_or",  "bitwise_xor", "reduce_sum",     "reduce_mean",
      "reduce_prod", "reduce_max",  "reduce_min", "quantize_linear", "dequantize_linear",
      "qlinear_add", "dynamic_quantize_linear"};
  auto of = [&](const Keys& keys) {
    std::set<std::pair<std::string, DType>> picked;
    for (const auto& key : keys) {
      if (shared.count(key.first) > 0) picked.insert(key);
    }
    return picked;
  };
  const auto cpu = of(cpu::CpuKernels().Keys());
  EXPECT_EQ(cpu, of(reference::ReferenceKernelKeys()));
  std::set<std::string> seen;
  for (const auto& key : cpu) seen.insert(key.first);
  EXPECT_EQ(seen, shared) << "an op of the list has no kernel at all";
}

}  // namespace
}  // namespace switchyard
