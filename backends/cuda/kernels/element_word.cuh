#ifndef SWITCHYARD_BACKENDS_CUDA_KERNELS_ELEMENT_WORD_CUH_
#define SWITCHYARD_BACKENDS_CUDA_KERNELS_ELEMENT_WORD_CUH_

// For the .cu files of the data-movement kernels (strided_copy.cu, pad.cu,
// gather.cu, where.cu), which move elements without reading them: picks the
// unsigned word of an element's size, so that one kernel template serves
// every dtype.
//
//   return WithElementWord(element_size, [&](auto word) {
//     using T = decltype(word);
//     MyKernel<T><<<Blocks(n), kThreads, 0, stream>>>(...);
//     return cudaGetLastError();
//   });

#include <cstddef>
#include <cstdint>

#include "cuda_runtime_api.h"

namespace switchyard {
namespace cuda {
namespace kernels {

// Calls launch(T{}) with T the unsigned integer of element_size bytes (1, 2,
// 4 or 8); cudaErrorInvalidValue for any other size.
template <typename Launch>
cudaError_t WithElementWord(size_t element_size, Launch&& launch) {
  switch (element_size) {
    case 1: return launch(uint8_t{});
    case 2: return launch(uint16_t{});
    case 4: return launch(uint32_t{});
    case 8: return launch(uint64_t{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CUDA_KERNELS_ELEMENT_WORD_CUH_
