#ifndef SWITCHYARD_OPS_ELEMENTWISE_LIST_TYPES_H_
#define SWITCHYARD_OPS_ELEMENTWISE_LIST_TYPES_H_

// The column types of the elementwise op lists (SY_UNARY_ELEMENTWISE_OPS in
// ops/unary_functors.h, SY_BINARY_ELEMENTWISE_OPS in ops/binary_functors.h):
// the element types an op's CPU and reference kernels take, and the marker
// of an op without attributes. Plain C++, also for nvcc.
//
//   X("neg", Neg, SignedTypes, 1, NoAttrs)

#include <cstdint>

namespace switchyard {

// A list of element types; the backends register one kernel per type.
template <typename... Ts>
struct ElementTypes {};

using FloatingTypes = ElementTypes<float, double>;
// ONNX's Neg: no unsigned types.
using SignedTypes = ElementTypes<float, double, int64_t, int32_t, int8_t>;
using NumericTypes =
    ElementTypes<float, double, int64_t, int32_t, int8_t, uint8_t>;
// Pow: integers narrower than 32 bits overflow at once.
using FloatingAndWideIntegerTypes =
    ElementTypes<float, double, int64_t, int32_t>;

// The attribute column of an op that has none.
struct NoAttrs {};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_ELEMENTWISE_LIST_TYPES_H_
