// CUDA, cuBLASLt and cuDNN errors as Status values, and the dlopen loader of
// cuBLASLt and cuDNN. Needs no GPU: the libraries load on any machine that
// has them (this one, where the toolkit is), and a missing library must be
// an Unavailable error naming every place tried.

#include "backends/cuda/cuda_libraries.h"

#include <cstdlib>
#include <string>

#include "backends/cuda/cuda_status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace switchyard {
namespace cuda {
namespace {

using ::testing::HasSubstr;

TEST(CudaStatusTest, NamesTheCallTheErrorAndTheDevice) {
  EXPECT_TRUE(CudaStatus(cudaSuccess, "cudaMalloc", "cuda:0").ok());
  absl::Status oom = CudaStatus(cudaErrorMemoryAllocation, "cudaMalloc", "cuda:1");
  EXPECT_EQ(oom.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(oom.message(),
            "cudaMalloc on cuda:1 failed: cudaErrorMemoryAllocation (out of memory)");
  EXPECT_EQ(CudaStatus(cudaErrorInsufficientDriver, "cudaGetDeviceCount", "cuda").code(),
            absl::StatusCode::kUnavailable);
  absl::Status image = CudaStatus(cudaErrorNoKernelImageForDevice, "k", "cuda:0");
  EXPECT_EQ(image.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(image.message(), HasSubstr("SWITCHYARD_CUDA_ARCHS"));
  EXPECT_EQ(CudaStatus(cudaErrorIllegalAddress, "cudaStreamSynchronize", "cuda:0").code(),
            absl::StatusCode::kInternal);
}

TEST(CudaStatusTest, MacroReportsTheFunctionName) {
  auto failing = []() -> absl::Status {
    SY_CUDA_RETURN_IF_ERROR(cudaSetDevice(-7), "cuda:-7");
    return absl::OkStatus();
  };
  absl::Status status = failing();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("cudaSetDevice on cuda:-7 failed: cudaError"));
  EXPECT_EQ(CallName("cudaMemcpyAsync(a, b, n, kind, s)"), "cudaMemcpyAsync");
  EXPECT_EQ(CudaVersionString(13000), "13.0");
  EXPECT_EQ(CudaVersionString(12080), "12.8");
}

TEST(CudaLibrariesTest, AMissingLibraryIsUnavailableNamingEveryPlaceTried) {
  ASSERT_EQ(setenv(LibrarySearchPathVariable().c_str(), "/nonexistent/a:/nonexistent/b", 1), 0);
  absl::StatusOr<OpenedLibrary> lib =
      OpenLibrary("libswitchyard_no_such_library.so.7", "Frobnicator 7",
                  "apt-get install frobnicator");
  unsetenv(LibrarySearchPathVariable().c_str());
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), absl::StatusCode::kUnavailable);
  const std::string message(lib.status().message());
  EXPECT_THAT(message, HasSubstr("Frobnicator 7 could not be loaded"));
  EXPECT_THAT(message, HasSubstr("/nonexistent/a/libswitchyard_no_such_library.so.7"));
  EXPECT_THAT(message, HasSubstr("/nonexistent/b/libswitchyard_no_such_library.so.7"));
  EXPECT_THAT(message, HasSubstr("apt-get install frobnicator"));
  EXPECT_THAT(message, HasSubstr("SWITCHYARD_CUDA_LIBRARY_PATH or LD_LIBRARY_PATH"));
}

// Where the libraries are installed (the toolkit here has both), they load
// and resolve every function; where not, the error says so. Either way no
// GPU is touched.
TEST(CudaLibrariesTest, CublasLtLoadsOrSaysWhy) {
  absl::StatusOr<const CublasLtApi*> api = LoadCublasLt();
  if (!api.ok()) {
    EXPECT_EQ(api.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(api.status().message(), HasSubstr("libcublasLt.so.13"));
    GTEST_SKIP() << "cuBLASLt is not installed here: " << api.status();
  }
  EXPECT_EQ((*api)->version / 10000, 13u);
  EXPECT_NE((*api)->cublasLtMatmul, nullptr);
  EXPECT_THAT((*api)->path, HasSubstr("libcublasLt.so.13"));
  EXPECT_THAT(CublasLtDescription(), HasSubstr("13."));
  // Status strings come from the library.
  absl::Status status =
      CublasLtCheck(**api, CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmul", "cuda:0");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(),
              HasSubstr("cublasLtMatmul on cuda:0 failed: CUBLAS_STATUS_NOT_SUPPORTED"));
}

TEST(CudaLibrariesTest, CudnnLoadsOrSaysWhy) {
  absl::StatusOr<const CudnnApi*> api = LoadCudnn();
  if (!api.ok()) {
    EXPECT_EQ(api.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(api.status().message(), HasSubstr("libcudnn.so.9"));
    GTEST_SKIP() << "cuDNN is not installed here: " << api.status();
  }
  EXPECT_EQ((*api)->version / 10000, 9u);
  EXPECT_NE((*api)->cudnnConvolutionForward, nullptr);
  EXPECT_THAT(CudnnDescription(), HasSubstr("9."));
  absl::Status status =
      CudnnCheck(**api, CUDNN_STATUS_NOT_SUPPORTED, "cudnnConvolutionForward", "cuda:0");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("cudnnConvolutionForward on cuda:0 failed: "));
  EXPECT_EQ(CudnnCheck(**api, CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED, "x",
                       "cuda:0")
                .code(),
            absl::StatusCode::kResourceExhausted);
}

// cuDNN 9 still exports the fused convolution + bias + activation that
// conv2d+relu partitions call; without it they fall back to our own
// bias+relu kernel, so a library lacking it must still load.
TEST(CudaLibrariesTest, CudnnHasTheFusedConvolutionOrFallsBack) {
  absl::StatusOr<const CudnnApi*> api = LoadCudnn();
  if (!api.ok()) GTEST_SKIP() << "cuDNN is not installed here: " << api.status();
  const bool all = (*api)->cudnnCreateActivationDescriptor != nullptr &&
                   (*api)->cudnnSetActivationDescriptor != nullptr &&
                   (*api)->cudnnDestroyActivationDescriptor != nullptr &&
                   (*api)->cudnnConvolutionBiasActivationForward != nullptr;
  EXPECT_EQ((*api)->has_fused_conv_bias_activation, all);
  // Every cuDNN 9 release so far has them.
  EXPECT_TRUE(all) << (*api)->path;
}

}  // namespace
}  // namespace cuda
}  // namespace switchyard
