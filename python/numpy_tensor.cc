// numpy <-> Tensor (see numpy_tensor.h for what is borrowed, copied or refused).

#include "python/numpy_tensor.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/backend_registry.h"
#include "core/buffer.h"
#include "core/shape.h"
#include "python/status.h"

namespace switchyard {
namespace python {

namespace py = pybind11;

namespace {

// A Python object kept alive by a Buffer: the reference is dropped (under
// the GIL, from whichever thread drops the buffer) when the buffer goes.
std::function<void(void*)> ReleaseReference(py::object owner) {
  PyObject* ptr = owner.release().ptr();  // the reference now belongs to the lambda
  return [ptr](void*) {
    if (!Py_IsInitialized()) return;  // the interpreter is gone with its objects
    py::gil_scoped_acquire gil;
    Py_DECREF(ptr);
  };
}

// Whether numpy dtype `from` converts to `to` without losing any value:
// bool to anything; a signed integer to a signed one at least as wide; an
// unsigned one to an unsigned one at least as wide or a signed one wider; a
// float to a float at least as wide.
bool LosslessCast(const py::dtype& from, const py::dtype& to) {
  const char f = from.kind(), t = to.kind();
  const auto fs = from.itemsize(), ts = to.itemsize();
  if (f == 'b') return t == 'b' || t == 'i' || t == 'u' || t == 'f';
  if (f == 'i') return t == 'i' && ts >= fs;
  if (f == 'u') return (t == 'u' && ts >= fs) || (t == 'i' && ts > fs);
  if (f == 'f') return t == 'f' && ts >= fs;
  return false;
}

std::string NumpyName(const py::dtype& dtype) {
  return py::str(dtype.attr("name")).cast<std::string>();
}

// `ready` (C-contiguous, aligned, native order, of `dtype`'s size) as a
// tensor on `device`: the array's own memory on the CPU, else a copy.
Tensor Wrap(const py::array& ready, DType dtype, BackendDevice& device) {
  std::vector<int64_t> dims(ready.shape(), ready.shape() + ready.ndim());
  const Shape shape(dims);
  const size_t bytes = static_cast<size_t>(ready.nbytes());
  if (device.device().type() != "cpu" || bytes == 0) {
    return ValueOrThrow(Tensor::FromBytes(shape, dtype, ready.data(), bytes, device));
  }
  // The CPU reads host memory: the tensor is the array's memory.
  void* data = const_cast<void*>(ready.data());
  auto buffer = std::make_shared<Buffer>(device, device.device(), data, bytes,
                                         ReleaseReference(ready));
  return Tensor(shape, dtype, std::move(buffer));
}

// Real values of any numpy dtype rounded to `dtype`'s bits by `round`
// (bfloat16 and the float8 types, which numpy lacks).
template <typename Bits, typename Round>
Tensor RoundedTensor(const py::array& array, const std::string& name, DType dtype,
                     BackendDevice& device, const char* also, const Round& round) {
  py::module_ np = py::module_::import("numpy");
  const char kind = array.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        "input '", name, "' is a numpy array of ", NumpyName(array.dtype()),
        "; the model declares ", DTypeName(dtype), ": give real values (rounded to ",
        DTypeName(dtype), ")", also)));
  }
  py::array_t<float, py::array::c_style | py::array::forcecast> f =
      np.attr("ascontiguousarray")(array, py::dtype("float32"));
  py::array_t<Bits> bits(std::vector<py::ssize_t>(f.shape(), f.shape() + f.ndim()));
  const float* in = f.data();
  Bits* out = bits.mutable_data();
  for (py::ssize_t i = 0; i < f.size(); ++i) out[i] = round(in[i]);
  return Wrap(bits, dtype, device);
}

// numpy has no bfloat16. As ONNX's numpy_helper does, a uint16 array holds
// bfloat16 bit patterns (taken as they are); real values are rounded to
// bfloat16 (to nearest even).
Tensor BFloat16Tensor(const py::handle& value, const std::string& name,
                      BackendDevice& device, bool* borrowed) {
  py::module_ np = py::module_::import("numpy");
  py::array array = np.attr("asarray")(value);
  const py::dtype given = array.dtype();
  if (given.kind() == 'u' && given.itemsize() == 2) {
    py::array ready = np.attr("require")(array, py::dtype("uint16"), py::make_tuple("C", "A"));
    if (borrowed != nullptr) *borrowed = ready.is(value);
    return Wrap(ready, DType::kBFloat16, device);
  }
  return RoundedTensor<uint16_t>(array, name, DType::kBFloat16, device,
                                 " or uint16 bfloat16 bit patterns", &FloatToBFloat16);
}

// numpy has no float8 either: real values are rounded to the float8 type
// (to nearest even, out-of-range values saturating).
Tensor Float8Tensor(const py::handle& value, const std::string& name, DType dtype,
                    BackendDevice& device) {
  py::array array = py::module_::import("numpy").attr("asarray")(value);
  return RoundedTensor<uint8_t>(array, name, dtype, device, "",
                                [dtype](float v) { return FloatToFloat8(v, dtype, true); });
}

// int4 and uint4 arrive as int8 and uint8 arrays: each value must fit.
void CheckFourBitRange(const py::array& ready, const std::string& name, DType dtype) {
  const auto* bytes = static_cast<const char*>(ready.data());
  for (py::ssize_t i = 0; i < ready.size(); ++i) {
    const int v = dtype == DType::kInt4 ? static_cast<int8_t>(bytes[i])
                                        : static_cast<uint8_t>(bytes[i]);
    if (v < IntegerMin(dtype) || v > IntegerMax(dtype)) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "input '", name, "' holds ", v, " at flat index ", i, "; the model declares ",
          DTypeName(dtype), ", whose values lie in [", IntegerMin(dtype), ", ",
          IntegerMax(dtype), "]")));
    }
  }
}

// A feed that lives in GPU memory: an object with __cuda_array_interface__
// (a torch tensor on cuda:N, which _feeds.py made contiguous and whose
// queued work it waited for). On that GPU with the declared dtype the
// tensor is the feed's own memory, kept alive by the buffer: no copy, and
// no trip through the host. Another device gets a copy made by core (peer
// or staged); another dtype is converted on the host, as any array.
Tensor GpuArrayTensor(const py::handle& value, const std::string& name, DType dtype,
                      BackendDevice& device, bool* borrowed) {
  const py::dict interface = value.attr("__cuda_array_interface__");
  const py::dtype given = py::dtype(py::str(interface["typestr"]).cast<std::string>());
  const py::dtype target = NumpyDType(dtype);
  const bool narrow_type = dtype == DType::kBFloat16 || IsFloat8(dtype) ||
                           dtype == DType::kInt4 || dtype == DType::kUInt4;
  if (narrow_type || given.kind() != target.kind() || given.itemsize() != target.itemsize()) {
    if (!py::hasattr(value, "cpu")) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "input '", name, "' is GPU memory of ", NumpyName(given), " but the model declares ",
          DTypeString(dtype), ": convert it to ", DTypeString(dtype), " first")));
    }
    return ArrayToTensor(py::module_::import("numpy").attr("asarray")(value.attr("cpu")()),
                         name, dtype, device, borrowed);
  }
  std::vector<int64_t> dims;
  for (const py::handle d : interface["shape"]) {
    const int64_t n = d.cast<int64_t>();
    if (n < 0) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("input '", name, "': GPU memory with a negative dimension")));
    }
    dims.push_back(n);
  }
  const Shape shape(dims);
  const py::object strides =
      interface.contains("strides") ? interface["strides"] : py::object(py::none());
  if (!strides.is_none()) {
    int64_t expected = given.itemsize();
    const py::tuple given_strides = strides.cast<py::tuple>();
    bool contiguous = given_strides.size() == dims.size();
    for (size_t i = dims.size(); contiguous && i-- > 0;) {
      contiguous = dims[i] <= 1 || given_strides[i].cast<int64_t>() == expected;
      expected *= dims[i];
    }
    if (!contiguous) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "input '", name, "' is strided GPU memory; give x.contiguous()")));
    }
  }
  const py::tuple data = interface["data"].cast<py::tuple>();
  void* ptr = reinterpret_cast<void*>(data[0].cast<uintptr_t>());
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype);
  if (ptr == nullptr && bytes > 0) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("input '", name, "': GPU memory at address 0")));
  }
  // torch's tensor.device.index (CuPy's device.id); one GPU: 0.
  int index = 0;
  if (py::hasattr(value, "device")) {
    const py::object d = value.attr("device");
    for (const char* attribute : {"index", "id"}) {
      if (py::hasattr(d, attribute) && !d.attr(attribute).is_none()) {
        index = d.attr(attribute).cast<int>();
        break;
      }
    }
  }
  const Device gpu = ValueOrThrow(Device::Create("cuda", index));
  absl::StatusOr<BackendDevice*> gpu_device = BackendRegistry::Global().GetDevice(gpu);
  if (!gpu_device.ok()) {
    throw StatusError(absl::FailedPreconditionError(absl::StrCat(
        "input '", name, "' is on ", gpu.ToString(), ", which Switchyard cannot use (",
        gpu_device.status().message(), "); give x.cpu()")));
  }
  auto buffer = std::make_shared<Buffer>(**gpu_device, gpu, ptr, bytes,
                                         ReleaseReference(py::reinterpret_borrow<py::object>(value)));
  Tensor shared(shape, dtype, std::move(buffer));
  if (*gpu_device == &device) {
    if (borrowed != nullptr) *borrowed = true;
    return shared;
  }
  return ValueOrThrow(shared.To(device));
}

}  // namespace

py::dtype NumpyDType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return py::dtype("float32");
    case DType::kFloat16: return py::dtype("float16");
    case DType::kBFloat16: return py::dtype("float32");
    case DType::kFloat64: return py::dtype("float64");
    case DType::kInt64: return py::dtype("int64");
    case DType::kInt32: return py::dtype("int32");
    case DType::kInt8: return py::dtype("int8");
    case DType::kUInt8: return py::dtype("uint8");
    case DType::kBool: return py::dtype("bool");
    case DType::kInt16: return py::dtype("int16");
    case DType::kUInt16: return py::dtype("uint16");
    case DType::kInt4: return py::dtype("int8");
    case DType::kUInt4: return py::dtype("uint8");
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ:
      return py::dtype("float32");
  }
  return py::dtype("float32");
}

std::string DTypeString(DType dtype) { return DTypeName(dtype); }

Tensor ArrayToTensor(const py::handle& value, const std::string& name, DType dtype,
                     BackendDevice& device, bool* borrowed) {
  if (borrowed != nullptr) *borrowed = false;
  if (!py::isinstance<py::array>(value) && py::hasattr(value, "__cuda_array_interface__")) {
    return GpuArrayTensor(value, name, dtype, device, borrowed);
  }
  py::module_ np = py::module_::import("numpy");
  const py::dtype target = NumpyDType(dtype);
  const std::string want = DTypeString(dtype);
  if (dtype == DType::kBFloat16) return BFloat16Tensor(value, name, device, borrowed);
  if (IsFloat8(dtype)) return Float8Tensor(value, name, dtype, device);
  py::array array;
  if (!py::isinstance<py::array>(value)) {
    // A list, tuple or scalar carries no dtype of its own: the model's.
    if (value.is_none()) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "input '", name, "' is None; give a numpy array of ", want)));
    }
    try {
      array = np.attr("asarray")(value, target);
    } catch (py::error_already_set& e) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "input '", name, "': cannot make a ", want, " array of the given ",
          py::str(py::type::of(value).attr("__name__")).cast<std::string>(), ": ",
          e.what())));
    }
  } else {
    array = py::reinterpret_borrow<py::array>(value);
    const py::dtype given = array.dtype();
    const char kind = given.kind();
    if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f') {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "input '", name, "' is a numpy array of ", NumpyName(given),
          ", which Switchyard cannot take; the model declares ", want,
          (kind == 'c' ? " (complex numbers are not supported)" : ""),
          (kind == 'O' || kind == 'U' || kind == 'S' ? " (strings and objects are not supported)"
                                                     : ""))));
    }
    const bool same_type = given.kind() == target.kind() &&
                           given.itemsize() == target.itemsize();
    if (!same_type && !LosslessCast(given, target)) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "input '", name, "' is ", NumpyName(given), " but the model declares ", want,
          ", and converting ", NumpyName(given), " to ", want,
          " can lose values, so Switchyard does not do it for you; convert it "
          "yourself: x.astype(numpy.", NumpyName(target), ")")));
    }
  }
  // Contiguous, aligned, native byte order and the declared dtype: numpy
  // returns the array itself when it is all that already.
  py::array ready = np.attr("require")(array, target, py::make_tuple("C", "A"));
  if (dtype == DType::kInt4 || dtype == DType::kUInt4) CheckFourBitRange(ready, name, dtype);
  if (borrowed != nullptr) *borrowed = ready.is(value);
  return Wrap(ready, dtype, device);
}

py::array TensorToArray(const Tensor& tensor, bool copy) {
  if (!tensor.defined()) {
    throw StatusError(absl::InternalError("the model returned an undefined tensor"));
  }
  const std::vector<int64_t>& dims = tensor.shape().dims();
  std::vector<py::ssize_t> shape(dims.begin(), dims.end());
  if (tensor.dtype() == DType::kBFloat16 || IsFloat8(tensor.dtype())) {
    std::vector<float> values = ValueOrThrow(tensor.ToVector());
    py::array_t<float> out(shape);
    if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size() * 4);
    return std::move(out);
  }
  const py::dtype dtype = NumpyDType(tensor.dtype());
  if (!copy && tensor.device().type() == "cpu" && tensor.size_bytes() > 0) {
    // The array owns a reference to the buffer: no copy.
    auto* keep = new std::shared_ptr<Buffer>(tensor.buffer());
    py::capsule owner(keep, [](void* p) { delete static_cast<std::shared_ptr<Buffer>*>(p); });
    return py::array(dtype, shape, {}, tensor.buffer()->data(), owner);
  }
  py::array out(dtype, shape);
  if (tensor.size_bytes() > 0) {
    std::vector<char> bytes = ValueOrThrow(tensor.ToBytes());
    std::memcpy(out.mutable_data(), bytes.data(), bytes.size());
  }
  return out;
}

}  // namespace python
}  // namespace switchyard
