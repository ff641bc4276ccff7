#ifndef SWITCHYARD_BACKENDS_REFERENCE_KERNELS_MOVEMENT_H_
#define SWITCHYARD_BACKENDS_REFERENCE_KERNELS_MOVEMENT_H_

// What the reference's shape-op kernels (transpose, concat, split, slice,
// gather, pad, expand, where) share: a base that checks what the executor
// hands over, and the index arithmetic they are written in. They move
// elements without reading them, so each registers one factory for every
// dtype (SY_REGISTER_KERNEL_FOR_DTYPES, core/kernel_registry.h). Each kernel
// walks its output element by element, turns the flat index into a
// multi-index, computes the input multi-index the op's definition names,
// and copies that element's bytes: no strides, merging or tiling, so that
// it can be read against the op's definition line by line.
//
//   for (int64_t i = 0; i < out.num_elements(); ++i) {
//     std::vector<int64_t> o = Unravel(i, out.shape());
//     ... compute the input index `in` from `o` ...
//     CopyElement(input, Ravel(in, input.shape()), out, i);
//   }

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "backends/reference/ref_device.h"
#include "core/backend.h"
#include "core/dtype.h"
#include "core/kernel_registry.h"
#include "core/tensor.h"

namespace switchyard {
namespace reference {

// Checks that every tensor is defined and on this kernel's device and that
// the counts are the op's, then runs Move. (Dtypes differ between operands
// here, so RefKernel's one-dtype check does not fit.)
class MovementKernel : public Kernel {
 public:
  MovementKernel(const RefDevice& device, std::string op, int min_inputs,
                 int max_inputs, int outputs)
      : device_(device.device()),
        op_(std::move(op)),
        min_inputs_(min_inputs),
        max_inputs_(max_inputs),
        outputs_(outputs) {}

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) final {
    const int in = static_cast<int>(inputs.size());
    const int out = static_cast<int>(outputs.size());
    if (in < min_inputs_ || (max_inputs_ >= 0 && in > max_inputs_) ||
        (outputs_ >= 0 && out != outputs_)) {
      return absl::InternalError(absl::StrCat(
          "reference ", op_, " got ", in, " inputs and ", out, " outputs"));
    }
    for (int i = 0; i < in + out; ++i) {
      const Tensor* t = i < in ? inputs[i] : outputs[i - in];
      if (t == nullptr || !t->defined() || t->device() != device_) {
        return absl::InternalError(absl::StrCat(
            "reference ", op_, ": ", i < in ? "input " : "output ",
            i < in ? i : i - in, " is undefined or not on ",
            device_.ToString(), " (a placement bug)"));
      }
    }
    return Move(inputs, outputs);
  }

 protected:
  virtual absl::Status Move(absl::Span<const Tensor* const> inputs,
                            absl::Span<Tensor* const> outputs) = 0;

 private:
  Device device_;
  std::string op_;
  int min_inputs_, max_inputs_, outputs_;  // -1: any
};

// The row-major multi-index of flat index `flat` in `shape`.
inline std::vector<int64_t> Unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    index[d] = flat % shape.dim(d);
    flat /= shape.dim(d);
  }
  return index;
}

// The flat index of multi-index `index` in `shape`.
inline int64_t Ravel(const std::vector<int64_t>& index, const Shape& shape) {
  int64_t flat = 0;
  for (int d = 0; d < shape.rank(); ++d) flat = flat * shape.dim(d) + index[d];
  return flat;
}

// to[j] = from[i], the element's bytes (the two share a dtype).
inline void CopyElement(const Tensor& from, int64_t i, Tensor& to, int64_t j) {
  const size_t size = DTypeSize(to.dtype());
  std::memcpy(to.data<char>() + j * size, from.data<char>() + i * size, size);
}

}  // namespace reference
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_REFERENCE_KERNELS_MOVEMENT_H_
