// The (op, element type) lists that the cpu and reference backends both
// register, one per op family: the reference backend is the conformance
// oracle of the cpu one, so they must agree, and adding a dtype is one edit
// here. Each backend expands a list with its own factories (same names in
// both, in each backend's namespace):
//   SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), "cumsum", MakeCumSum,
//                                SY_CUMSUM_TYPES);
//   #define SY_REGISTER_REDUCE(op, kind, T) ... MakeReduce<Reduction::kind, T>
//   SY_REDUCE_KERNELS(SY_REGISTER_REDUCE)
// Macros only (no includes beyond <cstdint>), so including it costs nothing.

#ifndef SWITCHYARD_OPS_KERNEL_LISTS_H_
#define SWITCHYARD_OPS_KERNEL_LISTS_H_

#include <cstdint>

// cumsum, by element type.
#define SY_CUMSUM_TYPES float, double, int64_t, int32_t

// one_hot, by its indices' type (one kernel serves every values dtype).
#define SY_ONE_HOT_INDEX_TYPES int64_t, int32_t, float

// argmax and argmin, by element type.
#define SY_ARG_REDUCE_TYPES float, double, int64_t, int32_t

// bitwise_not/and/or/xor, by integer type.
#define SY_BITWISE_TYPES int64_t, int32_t, int8_t, uint8_t

// reduce_*: X(op, Reduction enumerator, element type). float64: ONNX's
// double reductions (ReduceLogSumExp and the like in numpy's default
// dtype); int64 prod for shape arithmetic (detectors reduce image sizes).
#define SY_REDUCE_KERNELS(X)                                      \
  X("reduce_sum", kSum, float) X("reduce_sum", kSum, double)      \
  X("reduce_mean", kMean, float) X("reduce_mean", kMean, double)  \
  X("reduce_prod", kProd, float) X("reduce_prod", kProd, int64_t) \
  SY_REDUCE_MIN_MAX_KERNELS(X, float)                             \
  SY_REDUCE_MIN_MAX_KERNELS(X, double)                            \
  SY_REDUCE_MIN_MAX_KERNELS(X, int64_t)                           \
  SY_REDUCE_MIN_MAX_KERNELS(X, int32_t)
#define SY_REDUCE_MIN_MAX_KERNELS(X, T)                           \
  X("reduce_max", kMax, T)                                        \
  X("reduce_min", kMin, T)

// Linear quantization: X(op, DType enumerator, factory).
#define SY_LINEAR_QUANTIZATION_KERNELS(X)                    \
  X("quantize_linear", kFloat32, MakeQuantize)               \
  X("dequantize_linear", kUInt8, MakeDequantize)             \
  X("dequantize_linear", kInt8, MakeDequantize)              \
  X("qlinear_add", kUInt8, MakeQLinearAdd)                   \
  X("qlinear_add", kInt8, MakeQLinearAdd)                    \
  X("dynamic_quantize_linear", kFloat32, MakeDynamicQuantize)

#endif  // SWITCHYARD_OPS_KERNEL_LISTS_H_
