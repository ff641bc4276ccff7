#include "backends/cuda/cuda_libraries.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "local_cuda/cuda_config.h"

namespace switchyard {
namespace cuda {
namespace {

constexpr char kPathVariable[] = "SWITCHYARD_CUDA_LIBRARY_PATH";

// The file a dlopen handle refers to.
std::string LoadedPath(void* handle, const std::string& fallback) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr &&
      map->l_name != nullptr && map->l_name[0] != '\0') {
    return map->l_name;
  }
  return fallback;
}

}  // namespace

absl::StatusOr<OpenedLibrary> OpenLibrary(const std::string& soname,
                                          const std::string& what,
                                          const std::string& how_to_get) {
  std::vector<std::string> candidates;
  if (const char* dirs = std::getenv(kPathVariable)) {
    for (absl::string_view dir : absl::StrSplit(dirs, ':', absl::SkipEmpty())) {
      candidates.push_back(absl::StrCat(dir, "/", soname));
    }
  }
  candidates.push_back(soname);  // the dynamic loader's own search
  const std::string toolkit_dir = SWITCHYARD_CUDA_LIB_DIR;
  if (!toolkit_dir.empty()) candidates.push_back(toolkit_dir + "/" + soname);

  std::vector<std::string> failures;
  for (const std::string& candidate : candidates) {
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      return OpenedLibrary{handle, LoadedPath(handle, candidate)};
    }
    const char* error = dlerror();
    failures.push_back(error != nullptr ? error : candidate + ": unknown error");
  }
  return absl::UnavailableError(absl::StrCat(
      what, " could not be loaded (", absl::StrJoin(failures, "; "),
      "). Install it (", how_to_get, ") and put the directory holding ",
      soname, " in ", kPathVariable, " or LD_LIBRARY_PATH"));
}

namespace {

template <typename Fn>
bool Resolve(void* handle, const char* name, Fn* fn,
             std::vector<std::string>* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (*fn == nullptr) missing->push_back(name);
  return *fn != nullptr;
}

absl::StatusOr<CublasLtApi> OpenCublasLt() {
  absl::StatusOr<OpenedLibrary> opened =
      OpenLibrary("libcublasLt.so.13", "cuBLASLt (libcublasLt.so.13, CUDA 13)",
           "the CUDA 13 toolkit's cuBLAS, the libcublas-13 package, or pip's "
           "nvidia-cublas with PyTorch (CUDA 13 wheels install it in "
           "site-packages/nvidia/cu13/lib, CUDA 12 ones in nvidia/cublas/lib, "
           "which is the wrong major version)");
  if (!opened.ok()) return opened.status();
  CublasLtApi api;
  api.path = opened->path;
  std::vector<std::string> missing;
#define SY_RESOLVE(name) Resolve(opened->handle, #name, &api.name, &missing);
  SY_CUBLASLT_FUNCTIONS(SY_RESOLVE)
#undef SY_RESOLVE
  if (!missing.empty()) {
    return absl::UnavailableError(absl::StrCat(
        api.path, " lacks ", absl::StrJoin(missing, ", "),
        "; it is not a cuBLASLt this build can use (it needs CUDA 13's)"));
  }
  api.version = api.cublasLtGetVersion();
  return api;
}

absl::StatusOr<CudnnApi> OpenCudnn() {
  absl::StatusOr<OpenedLibrary> opened =
      OpenLibrary("libcudnn.so.9", "cuDNN 9 (libcudnn.so.9)",
           "cuDNN 9 for CUDA 13: NVIDIA's cudnn9-cuda-13 package, or pip's "
           "nvidia-cudnn-cu13 with PyTorch");
  if (!opened.ok()) return opened.status();
  CudnnApi api;
  api.path = opened->path;
  std::vector<std::string> missing;
#define SY_RESOLVE(name) Resolve(opened->handle, #name, &api.name, &missing);
  SY_CUDNN_FUNCTIONS(SY_RESOLVE)
#undef SY_RESOLVE
  if (!missing.empty()) {
    return absl::UnavailableError(absl::StrCat(
        api.path, " lacks ", absl::StrJoin(missing, ", "),
        "; it is not a cuDNN 9 this build can use"));
  }
  api.cudnnGetLastErrorString =
      reinterpret_cast<decltype(api.cudnnGetLastErrorString)>(
          dlsym(opened->handle, "cudnnGetLastErrorString"));
  std::vector<std::string> fused_missing;
#define SY_RESOLVE(name) Resolve(opened->handle, #name, &api.name, &fused_missing);
  SY_CUDNN_FUSED_FUNCTIONS(SY_RESOLVE)
#undef SY_RESOLVE
  api.has_fused_conv_bias_activation = fused_missing.empty();
  api.version = api.cudnnGetVersion();
  api.cudart_version = api.cudnnGetCudartVersion();
  if (api.version / 10000 != 9) {
    return absl::UnavailableError(absl::StrCat(
        api.path, " is cuDNN ", api.version, "; this build needs cuDNN 9"));
  }
  return api;
}

std::string CudnnVersionString(size_t v) {
  return absl::StrCat(v / 10000, ".", (v % 10000) / 100, ".", v % 100);
}

std::string CublasVersionString(size_t v) {
  // cublasLtGetVersion(): major * 10000 + minor * 100 + patch.
  return absl::StrCat(v / 10000, ".", (v % 10000) / 100, ".", v % 100);
}

}  // namespace

std::string LibrarySearchPathVariable() { return kPathVariable; }

absl::StatusOr<const CublasLtApi*> LoadCublasLt() {
  // Leaked on purpose: kernels may run from static destructors.
  static const absl::StatusOr<CublasLtApi>* api =
      new absl::StatusOr<CublasLtApi>(OpenCublasLt());
  if (!api->ok()) return api->status();
  return &**api;
}

absl::StatusOr<const CudnnApi*> LoadCudnn() {
  static const absl::StatusOr<CudnnApi>* api =
      new absl::StatusOr<CudnnApi>(OpenCudnn());
  if (!api->ok()) return api->status();
  return &**api;
}

std::string CublasLtDescription() {
  absl::StatusOr<const CublasLtApi*> api = LoadCublasLt();
  if (!api.ok()) return absl::StrCat("unavailable: ", api.status().message());
  return absl::StrCat(CublasVersionString((*api)->version), " (",
                      (*api)->path, ")");
}

std::string CudnnDescription() {
  absl::StatusOr<const CudnnApi*> api = LoadCudnn();
  if (!api.ok()) return absl::StrCat("unavailable: ", api.status().message());
  return absl::StrCat(CudnnVersionString((*api)->version), " for CUDA ",
                      (*api)->cudart_version / 1000, ".",
                      ((*api)->cudart_version % 1000) / 10, " (", (*api)->path,
                      ")");
}

absl::Status CublasLtCheck(const CublasLtApi& api, cublasStatus_t status,
                           absl::string_view call, absl::string_view device) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  const std::string message =
      absl::StrCat(call, " on ", device, " failed: ",
                   api.cublasLtGetStatusName(status), " (",
                   api.cublasLtGetStatusString(status), ")");
  switch (status) {
    case CUBLAS_STATUS_ALLOC_FAILED:
      return absl::ResourceExhaustedError(message);
    case CUBLAS_STATUS_NOT_SUPPORTED:
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return absl::UnimplementedError(message);
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return absl::UnavailableError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::Status CudnnCheck(const CudnnApi& api, cudnnStatus_t status,
                        absl::string_view call, absl::string_view device) {
  if (status == CUDNN_STATUS_SUCCESS) return absl::OkStatus();
  std::string message = absl::StrCat(call, " on ", device, " failed: ",
                                     api.cudnnGetErrorString(status));
  if (api.cudnnGetLastErrorString != nullptr) {
    char details[512] = {0};
    api.cudnnGetLastErrorString(details, sizeof(details));
    if (details[0] != '\0') absl::StrAppend(&message, " (", details, ")");
  }
  if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
      status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) {
    return absl::ResourceExhaustedError(message);
  }
  // cuDNN 9 groups its codes in categories of 1000.
  switch (static_cast<int>(CUDNN_STATUS_CATEGORY(status))) {
    case 1000:  // initialization, sub-library loading, versions
      return absl::UnavailableError(message);
    case 3000:  // CUDNN_STATUS_NOT_SUPPORTED_*
      return absl::UnimplementedError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace cuda
}  // namespace switchyard
