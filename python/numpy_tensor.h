#ifndef SWITCHYARD_PYTHON_NUMPY_TENSOR_H_
#define SWITCHYARD_PYTHON_NUMPY_TENSOR_H_

// numpy arrays to Switchyard tensors and back.
//
// In: an array of the dtype the model declares, C-contiguous, aligned and in
// native byte order, is borrowed without a copy when the tensor goes to the
// CPU (the tensor's buffer holds a reference to the array until it is
// dropped). Anything else that converts without loss is copied first: a
// strided or reversed view, a big-endian array, a narrower integer or float
// (int32 -> int64, float16 -> float32), bool to any dtype, and Python
// lists and scalars (taken as the declared dtype). A conversion that can
// lose values (float64 -> float32, int64 -> int32, float -> int) is refused
// with an InvalidArgument saying how to convert it.
//
// Out: a CPU tensor becomes an array over the tensor's own buffer, which the
// array keeps alive (no copy); a tensor on another device is copied to the
// host. bfloat16, which numpy lacks, comes out as float32 (exactly); in,
// a uint16 array is taken as bfloat16 bit patterns (ONNX's numpy_helper
// convention) and floating-point values are rounded to bfloat16. The float8
// types likewise come out as float32 and go in as values rounded to them;
// int4 and uint4 are int8 and uint8 arrays (each value checked to fit).
//
// GPU memory (an object with __cuda_array_interface__: a torch tensor on
// cuda:N) is never copied through the host on its way to that GPU: the
// tensor is the feed's memory when the model's device is that GPU and the
// dtype is the declared one; another device gets a copy made by core.
//
//   Tensor x = ArrayToTensor(feed, "input", DType::kFloat32, cpu, &borrowed);
//   py::array y = TensorToArray(outputs[0]);

#include <string>

#include "core/backend.h"
#include "core/dtype.h"
#include "core/tensor.h"
#include "pybind11/numpy.h"
#include "pybind11/pybind11.h"

namespace switchyard {
namespace python {

// The numpy dtype of `dtype` (float32 for bfloat16 and float8, int8 and
// uint8 for int4 and uint4, which numpy lacks).
pybind11::dtype NumpyDType(DType dtype);
// "float32", "int64", ...: the name numpy and Switchyard share ("bfloat16"
// for bfloat16).
std::string DTypeString(DType dtype);

// `value` (an array, a list, a scalar) as a tensor of `dtype` on `device`.
// `name` is the input's name, for errors. `borrowed` (optional) is set to
// whether the tensor shares the array's memory.
Tensor ArrayToTensor(const pybind11::handle& value, const std::string& name,
                     DType dtype, BackendDevice& device, bool* borrowed = nullptr);

// The tensor as a numpy array (a view of a CPU tensor's buffer, else a copy).
// `copy` forces a copy (an output that shares memory with an input).
pybind11::array TensorToArray(const Tensor& tensor, bool copy = false);

}  // namespace python
}  // namespace switchyard

#endif  // SWITCHYARD_PYTHON_NUMPY_TENSOR_H_
