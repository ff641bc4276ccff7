// cuda_libraries_test in a build without CUDA: nothing to load.

#include "backends/cuda/cuda_backend.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace cuda {
namespace {

TEST(CudaLibrariesTest, BuiltWithoutCuda) {
  EXPECT_FALSE(BuiltWithCuda());
  GTEST_SKIP() << "this build has no CUDA; cuBLASLt and cuDNN are never loaded";
}

}  // namespace
}  // namespace cuda
}  // namespace switchyard
