#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_SHAPE_KERNELS_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_SHAPE_KERNELS_H_

// Registration shared by the shape ops' CPU kernels (transpose, concat,
// split, slice, gather, pad, expand): they move elements without reading
// them, so one kernel serves every dtype by element size.
//
//   [[maybe_unused]] const bool kRegistered =
//       RegisterEveryDType("transpose", &MakeTransposeKernel);

#include <string>

#include "backends/cpu/cpu_device.h"
#include "core/dtype.h"

namespace switchyard {
namespace cpu {

// Registers `make` as `op`'s kernel factory for each of the 9 dtypes;
// false when one of them was taken.
inline bool RegisterEveryDType(
    const std::string& op,
    const KernelRegistry<CpuDevice>::Factory& make) {
  bool all = true;
  for (DType dtype : AllDTypes()) {
    all &= CpuKernels().Register(op, dtype, make);
  }
  return all;
}

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_SHAPE_KERNELS_H_
