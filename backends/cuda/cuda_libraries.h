#ifndef SWITCHYARD_BACKENDS_CUDA_CUDA_LIBRARIES_H_
#define SWITCHYARD_BACKENDS_CUDA_CUDA_LIBRARIES_H_

// cuBLASLt and cuDNN, loaded with dlopen on first use.
//
// Why not link them: they are shared libraries (hundreds of MB, not on every
// machine). A binary linked against libcublasLt.so.13 does not even start
// where it is missing: the dynamic loader stops it before main, and
// `switchyard devices` could not say why. The CUDA runtime is linked
// statically (it loads the driver itself), and these two are opened here
// when a kernel first needs them, so every binary starts everywhere, and a
// missing library becomes a Status naming the library, every place tried
// and how to fix it.
//
// Where they are looked for, in order:
//   1. each directory of SWITCHYARD_CUDA_LIBRARY_PATH (colon-separated);
//   2. the dynamic loader's search: LD_LIBRARY_PATH, /etc/ld.so.cache, ...;
//   3. the toolkit's library directory found at build time
//      (local_cuda/cuda_config.h: SWITCHYARD_CUDA_LIB_DIR).
// PyTorch's pip wheels carry both (CUDA 13 wheels:
// site-packages/nvidia/cu13/lib and .../nvidia/cudnn/lib; CUDA 12 wheels
// put a cuBLAS of the wrong major version in .../nvidia/cublas/lib): point
// SWITCHYARD_CUDA_LIBRARY_PATH there.
//
// Only the major version is fixed (libcublasLt.so.13, libcudnn.so.9: their
// ABI is stable within one); the versions found are reported in
// `switchyard devices`.
//
//   absl::StatusOr<const CublasLtApi*> lt = LoadCublasLt();
//   if (!lt.ok()) return lt.status();   // Unavailable: "libcublasLt.so.13 ..."
//   SY_RETURN_IF_ERROR(CublasLtCheck(**lt, (*lt)->cublasLtCreate(&handle),
//                                    "cublasLtCreate", "cuda:0"));

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cublasLt.h"
#include "cudnn.h"

namespace switchyard {
namespace cuda {

// The cuBLASLt functions the backend calls, resolved from the loaded library.
struct CublasLtApi {
  std::string path;  // the file that was loaded
  size_t version = 0;
#define SY_CUBLASLT_FUNCTIONS(X)                                      \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetVersion)          \
  X(cublasLtGetStatusName) X(cublasLtGetStatusString)                 \
  X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute) X(cublasLtMatrixLayoutCreate)     \
  X(cublasLtMatrixLayoutDestroy) X(cublasLtMatrixLayoutSetAttribute)  \
  X(cublasLtMatmulPreferenceCreate)                                   \
  X(cublasLtMatmulPreferenceDestroy)                                  \
  X(cublasLtMatmulPreferenceSetAttribute)                             \
  X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmul)
#define SY_DECLARE_FUNCTION(name) decltype(&::name) name = nullptr;
  SY_CUBLASLT_FUNCTIONS(SY_DECLARE_FUNCTION)
};

// The cuDNN functions the backend calls (the v7-style descriptor API, still
// supported in cuDNN 9).
struct CudnnApi {
  std::string path;
  size_t version = 0;         // cudnnGetVersion(): 91900 for 9.19.0
  size_t cudart_version = 0;  // the CUDA runtime cuDNN was built for
#define SY_CUDNN_FUNCTIONS(X)                                                 \
  X(cudnnGetVersion) X(cudnnGetCudartVersion) X(cudnnGetErrorString)          \
  X(cudnnCreate) X(cudnnDestroy) X(cudnnSetStream)                            \
  X(cudnnCreateTensorDescriptor) X(cudnnDestroyTensorDescriptor)              \
  X(cudnnSetTensor4dDescriptor) X(cudnnCreateFilterDescriptor)                \
  X(cudnnDestroyFilterDescriptor) X(cudnnSetFilter4dDescriptor)               \
  X(cudnnCreateConvolutionDescriptor) X(cudnnDestroyConvolutionDescriptor)    \
  X(cudnnSetConvolution2dDescriptor) X(cudnnSetConvolutionGroupCount)         \
  X(cudnnSetConvolutionMathType) X(cudnnGetConvolution2dForwardOutputDim)     \
  X(cudnnFindConvolutionForwardAlgorithmEx)                                   \
  X(cudnnGetConvolutionForwardWorkspaceSize) X(cudnnConvolutionForward)       \
  X(cudnnAddTensor)
  SY_CUDNN_FUNCTIONS(SY_DECLARE_FUNCTION)
  // Optional (cuDNN >= 9.0): details of the last error; may be null.
  decltype(&::cudnnGetLastErrorString) cudnnGetLastErrorString = nullptr;
  // Optional: the fused convolution + bias + activation, which conv2d+relu
  // partitions use only when SWITCHYARD_CUDNN_FUSED_CONV_RELU=1 (its ReLU
  // need not keep NaN; kernels/conv2d.cc). Null where the library lacks one
  // of them; conv2d+relu then runs the convolution and the backend's own
  // NaN-keeping bias+relu kernel, as it does by default.
#define SY_CUDNN_FUSED_FUNCTIONS(X)                                   \
  X(cudnnCreateActivationDescriptor)                                  \
  X(cudnnSetActivationDescriptor) X(cudnnDestroyActivationDescriptor) \
      X(cudnnConvolutionBiasActivationForward)
  SY_CUDNN_FUSED_FUNCTIONS(SY_DECLARE_FUNCTION)
  bool has_fused_conv_bias_activation = false;  // all four resolved
#undef SY_DECLARE_FUNCTION
};

// Loaded once per process; later calls return the same result (or the same
// error: Unavailable, naming each place tried and the fix).
absl::StatusOr<const CublasLtApi*> LoadCublasLt();
absl::StatusOr<const CudnnApi*> LoadCudnn();

// "cuBLASLt 13.0.2.14 (/usr/local/cuda/lib64/libcublasLt.so.13)", or
// "unavailable: <why>", for device listings. Loads the library.
std::string CublasLtDescription();
std::string CudnnDescription();

// A cuBLASLt / cuDNN result as a Status naming the call, the error and the
// device: "cublasLtMatmul on cuda:0 failed: CUBLAS_STATUS_NOT_SUPPORTED (...)".
absl::Status CublasLtCheck(const CublasLtApi& api, cublasStatus_t status,
                           absl::string_view call, absl::string_view device);
absl::Status CudnnCheck(const CudnnApi& api, cudnnStatus_t status,
                        absl::string_view call, absl::string_view device);

// The name of the variable searched first: "SWITCHYARD_CUDA_LIBRARY_PATH".
std::string LibrarySearchPathVariable();

// dlopen()s `soname` from the places above; Unavailable naming `what`, every
// place tried (with dlerror's words) and `how_to_get` when none has it.
// LoadCublasLt and LoadCudnn use it; tests call it with other names.
struct OpenedLibrary {
  void* handle = nullptr;
  std::string path;  // the file the dynamic loader mapped
};
absl::StatusOr<OpenedLibrary> OpenLibrary(const std::string& soname,
                                          const std::string& what,
                                          const std::string& how_to_get);

}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_CUDA_LIBRARIES_H_
