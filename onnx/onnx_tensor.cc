#include "onnx/onnx_tensor.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <fstream>
#include <limits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

namespace switchyard {
namespace onnx_import {
namespace {

using onnx::TensorProto;

std::string TensorWhat(const TensorProto& proto) {
  return absl::StrCat("tensor '", proto.name(), "'");
}

// ONNX's data types newer than the protobuf Switchyard builds with.
constexpr int32_t kOnnxFloat8E4M3FN = 17;
constexpr int32_t kOnnxFloat8E4M3FNUZ = 18;
constexpr int32_t kOnnxFloat8E5M2 = 19;
constexpr int32_t kOnnxFloat8E5M2FNUZ = 20;
constexpr int32_t kOnnxUInt4 = 21;
constexpr int32_t kOnnxInt4 = 22;

bool IsFourBit(DType dtype) { return dtype == DType::kInt4 || dtype == DType::kUInt4; }

// Copies the typed field `values` (one entry per element) into `dtype`'s
// bytes; float16, bfloat16 and float8 values are their bit patterns.
template <typename Field>
absl::StatusOr<std::vector<char>> FromTypedField(const Field& values,
                                                 DType dtype, int64_t count,
                                                 const std::string& what,
                                                 const char* field) {
  if (static_cast<int64_t>(values.size()) != count) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has ", values.size(), " values in ", field, " but its shape has ",
        count, " elements"));
  }
  std::vector<char> bytes(static_cast<size_t>(count) * DTypeSize(dtype));
  for (int64_t i = 0; i < count; ++i) {
    const auto v = values.Get(static_cast<int>(i));
    if (dtype == DType::kFloat16 || dtype == DType::kBFloat16) {
      const uint16_t b = static_cast<uint16_t>(v);
      std::memcpy(bytes.data() + 2 * i, &b, 2);
    } else if (IsFloat8(dtype)) {
      bytes[i] = static_cast<char>(static_cast<uint8_t>(v));
    } else {
      SetElementFromDouble(bytes.data(), dtype, i, static_cast<double>(v));
    }
  }
  return bytes;
}

// int4 and uint4 as ONNX packs them (two per byte, the first in the low
// nibble), one per byte as Switchyard holds them, int4 sign-extended.
std::vector<char> UnpackNibbles(absl::string_view packed, DType dtype, int64_t count) {
  std::vector<char> bytes(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t byte = static_cast<uint8_t>(packed[static_cast<size_t>(i / 2)]);
    uint8_t nibble = (i % 2 == 0) ? (byte & 0x0f) : (byte >> 4);
    if (dtype == DType::kInt4 && (nibble & 0x08) != 0) nibble |= 0xf0;
    bytes[i] = static_cast<char>(nibble);
  }
  return bytes;
}

// Where the tensor's bytes are stored as they are (external data or
// raw_data); nullopt when it uses the typed fields.
absl::StatusOr<std::optional<absl::string_view>> StoredBytes(const TensorProto& proto,
                                                             ExternalDataFiles& files,
                                                             const std::string& what) {
  if (proto.data_location() == TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& entry : proto.external_data()) {
      int64_t* target = nullptr;
      if (entry.key() == "location") {
        location = entry.value();
        continue;
      }
      if (entry.key() == "offset") target = &offset;
      if (entry.key() == "length") target = &length;
      if (target == nullptr) continue;  // "checksum": not checked
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(entry.value().c_str(), &end, 10);
      if (entry.value().empty() || *end != '\0' || errno != 0 || v < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": external data ", entry.key(), " '", entry.value(),
            "' is not a non-negative integer"));
      }
      *target = v;
    }
    SY_ASSIGN_OR_RETURN(absl::string_view bytes,
                        files.Bytes(proto.name(), location, offset, length));
    return std::optional<absl::string_view>(bytes);
  }
  if (proto.has_raw_data()) return std::optional<absl::string_view>(proto.raw_data());
  return std::optional<absl::string_view>();
}

// An int4 or uint4 tensor, from whichever form stores its packed bytes.
absl::StatusOr<std::vector<char>> ReadFourBit(const TensorProto& proto, ExternalDataFiles& files,
                                              DType dtype, int64_t count,
                                              const std::string& what) {
  const int64_t want = count / 2 + count % 2;
  SY_ASSIGN_OR_RETURN(std::optional<absl::string_view> stored,
                      StoredBytes(proto, files, what));
  std::string from_field;
  if (!stored.has_value()) {
    // int32_data holds one packed byte per entry.
    for (int32_t v : proto.int32_data()) from_field.push_back(static_cast<char>(v & 0xff));
    stored = from_field;
  }
  if (static_cast<int64_t>(stored->size()) != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has ", stored->size(), " bytes of data but shape of ", count, " ",
        DTypeName(dtype), " values packs into ", want, " (two per byte)"));
  }
  return UnpackNibbles(*stored, dtype, count);
}

}  // namespace

absl::StatusOr<DType> DTypeFromOnnx(int32_t onnx_type) {
  switch (onnx_type) {
    case TensorProto::FLOAT: return DType::kFloat32;
    case TensorProto::UINT8: return DType::kUInt8;
    case TensorProto::INT8: return DType::kInt8;
    case TensorProto::INT32: return DType::kInt32;
    case TensorProto::INT64: return DType::kInt64;
    case TensorProto::BOOL: return DType::kBool;
    case TensorProto::FLOAT16: return DType::kFloat16;
    case TensorProto::DOUBLE: return DType::kFloat64;
    case TensorProto::BFLOAT16: return DType::kBFloat16;
    case TensorProto::INT16: return DType::kInt16;
    case TensorProto::UINT16: return DType::kUInt16;
    case kOnnxInt4: return DType::kInt4;
    case kOnnxUInt4: return DType::kUInt4;
    case kOnnxFloat8E4M3FN: return DType::kFloat8E4M3FN;
    case kOnnxFloat8E4M3FNUZ: return DType::kFloat8E4M3FNUZ;
    case kOnnxFloat8E5M2: return DType::kFloat8E5M2;
    case kOnnxFloat8E5M2FNUZ: return DType::kFloat8E5M2FNUZ;
    default:
      return absl::UnimplementedError(absl::StrCat(
          "ONNX data type ", OnnxTypeName(onnx_type),
          " has no Switchyard dtype (supported: FLOAT, FLOAT16, BFLOAT16, "
          "DOUBLE, INT64, INT32, INT16, INT8, INT4, UINT16, UINT8, UINT4, BOOL, "
          "FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ)"));
  }
}

std::string OnnxTypeName(int32_t onnx_type) {
  switch (onnx_type) {
    case kOnnxFloat8E4M3FN: return "FLOAT8E4M3FN";
    case kOnnxFloat8E4M3FNUZ: return "FLOAT8E4M3FNUZ";
    case kOnnxFloat8E5M2: return "FLOAT8E5M2";
    case kOnnxFloat8E5M2FNUZ: return "FLOAT8E5M2FNUZ";
    case kOnnxUInt4: return "UINT4";
    case kOnnxInt4: return "INT4";
    case 23: return "FLOAT4E2M1";
    case 24: return "FLOAT8E8M0";
    default: break;
  }
  if (TensorProto::DataType_IsValid(onnx_type)) {
    return TensorProto::DataType_Name(
        static_cast<TensorProto::DataType>(onnx_type));
  }
  return absl::StrCat("<unknown data type ", onnx_type, ">");
}

int32_t OnnxTypeFromDType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return TensorProto::FLOAT;
    case DType::kUInt8: return TensorProto::UINT8;
    case DType::kInt8: return TensorProto::INT8;
    case DType::kInt32: return TensorProto::INT32;
    case DType::kInt64: return TensorProto::INT64;
    case DType::kBool: return TensorProto::BOOL;
    case DType::kFloat16: return TensorProto::FLOAT16;
    case DType::kFloat64: return TensorProto::DOUBLE;
    case DType::kBFloat16: return TensorProto::BFLOAT16;
    case DType::kInt16: return TensorProto::INT16;
    case DType::kUInt16: return TensorProto::UINT16;
    case DType::kInt4: return kOnnxInt4;
    case DType::kUInt4: return kOnnxUInt4;
    case DType::kFloat8E4M3FN: return kOnnxFloat8E4M3FN;
    case DType::kFloat8E4M3FNUZ: return kOnnxFloat8E4M3FNUZ;
    case DType::kFloat8E5M2: return kOnnxFloat8E5M2;
    case DType::kFloat8E5M2FNUZ: return kOnnxFloat8E5M2FNUZ;
  }
  return TensorProto::UNDEFINED;
}

absl::StatusOr<Shape> ShapeFromOnnxDims(
    const google::protobuf::RepeatedField<int64_t>& dims, DType dtype,
    const std::string& what) {
  if (dims.size() > kMaxOnnxRank) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has ", dims.size(), " dimensions; Switchyard supports at most ",
        kMaxOnnxRank));
  }
  std::vector<int64_t> v(dims.begin(), dims.end());
  absl::StatusOr<Shape> shape = Shape::Create(v, DTypeSize(dtype));
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", shape.status().message()));
  }
  return shape;
}

// A symbolic link inside the folder may still lead out of it.
absl::Status ExternalDataFiles::CheckInsideFolder(const std::string& what,
                                                  const std::string& location,
                                                  const std::string& path) const {
  char resolved[PATH_MAX];
  // A path that does not resolve (a missing file) is Open's error to give.
  if (realpath(path.c_str(), resolved) == nullptr) return absl::OkStatus();
  auto inside = [&](const std::string& folder) {
    char root[PATH_MAX];
    return realpath(folder.empty() ? "." : folder.c_str(), root) != nullptr &&
           absl::StartsWith(resolved, absl::StrCat(root, "/"));
  };
  if (inside(model_dir_)) return absl::OkStatus();
  char model[PATH_MAX];
  if (!model_path_.empty() && realpath(model_path_.c_str(), model) != nullptr) {
    const std::string m = model;
    if (inside(m.substr(0, m.rfind('/')))) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, " keeps its data in '", location, "', which leads to '", resolved,
      "', outside the model's folder; ONNX external data must sit beside the model"));
}

absl::StatusOr<absl::string_view> ExternalDataFiles::Bytes(
    const std::string& tensor, const std::string& location, int64_t offset,
    int64_t length) {
  const std::string what = absl::StrCat("tensor '", tensor, "'");
  if (location.empty() || location[0] == '/' ||
      absl::StrContains(absl::StrCat("/", location, "/"), "/../")) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " keeps its data in '", location,
        "', which is not a relative path inside the model's folder; ONNX "
        "external data must sit beside the model"));
  }
  auto it = files_.find(location);
  if (it == files_.end()) {
    const std::string path =
        model_dir_.empty() ? location : absl::StrCat(model_dir_, "/", location);
    SY_RETURN_IF_ERROR(CheckInsideFolder(what, location, path));
    absl::StatusOr<std::unique_ptr<file_io_internal::MappedFile>> file =
        file_io_internal::MappedFile::Open(path);
    if (!file.ok()) {
      return absl::Status(file.status().code(),
                          absl::StrCat(what, ": its external data file: ",
                                       file.status().message()));
    }
    it = files_.emplace(location, std::move(*file)).first;
  }
  const absl::string_view all = it->second->bytes();
  const int64_t size = static_cast<int64_t>(all.size());
  if (offset < 0 || offset > size || length < -1 ||
      (length >= 0 && length > size - offset)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": external data at offset ", offset, ", length ", length,
        " lies outside '", location, "' (", size, " bytes)"));
  }
  return all.substr(static_cast<size_t>(offset),
                    length < 0 ? absl::string_view::npos
                               : static_cast<size_t>(length));
}

void ExternalDataFiles::Release(const char* data, size_t size) {
  for (auto& [location, file] : files_) {
    const absl::string_view bytes = file->bytes();
    if (data >= bytes.data() && data < bytes.data() + bytes.size()) {
      file->Release(data, size);
      return;
    }
  }
}

absl::StatusOr<std::optional<HostArrayView>> RawTensorView(
    const TensorProto& proto, ExternalDataFiles& files) {
  const std::string what = TensorWhat(proto);
  if (proto.has_segment()) {
    return absl::UnimplementedError(
        absl::StrCat(what, " is segmented; segmented tensors are not supported"));
  }
  absl::StatusOr<DType> dtype = DTypeFromOnnx(proto.data_type());
  if (!dtype.ok()) {
    return absl::Status(dtype.status().code(),
                        absl::StrCat(what, ": ", dtype.status().message()));
  }
  SY_ASSIGN_OR_RETURN(Shape shape, ShapeFromOnnxDims(proto.dims(), *dtype, what));
  // Packed two per byte in the file: ReadTensorProto unpacks them.
  if (IsFourBit(*dtype)) return std::optional<HostArrayView>();
  const size_t want = static_cast<size_t>(shape.num_elements()) * DTypeSize(*dtype);
  SY_ASSIGN_OR_RETURN(std::optional<absl::string_view> stored,
                      StoredBytes(proto, files, what));
  if (!stored.has_value()) return std::optional<HostArrayView>();
  const absl::string_view bytes = *stored;
  if (bytes.size() != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " has ", bytes.size(), " bytes of data but shape ",
        shape.ToString(), " of ", DTypeName(*dtype), " needs ", want));
  }
  return std::optional<HostArrayView>(
      HostArrayView{shape, *dtype, bytes.data(), bytes.size()});
}

absl::StatusOr<HostArray> ReadTensorProto(const TensorProto& proto,
                                          ExternalDataFiles& files) {
  SY_ASSIGN_OR_RETURN(std::optional<HostArrayView> view,
                      RawTensorView(proto, files));
  if (view.has_value()) {
    return HostArray(view->shape, view->dtype,
                     std::vector<char>(view->data, view->data + view->size_bytes));
  }
  const std::string what = TensorWhat(proto);
  SY_ASSIGN_OR_RETURN(DType dtype, DTypeFromOnnx(proto.data_type()));
  SY_ASSIGN_OR_RETURN(Shape shape, ShapeFromOnnxDims(proto.dims(), dtype, what));
  const int64_t n = shape.num_elements();
  absl::StatusOr<std::vector<char>> bytes;
  if (IsFourBit(dtype)) {
    bytes = ReadFourBit(proto, files, dtype, n, what);
    if (!bytes.ok()) return bytes.status();
    return HostArray(shape, dtype, std::move(*bytes));
  }
  switch (proto.data_type()) {
    case TensorProto::FLOAT:
      bytes = FromTypedField(proto.float_data(), dtype, n, what, "float_data");
      break;
    case TensorProto::DOUBLE:
      bytes = FromTypedField(proto.double_data(), dtype, n, what, "double_data");
      break;
    case TensorProto::INT64:
      bytes = FromTypedField(proto.int64_data(), dtype, n, what, "int64_data");
      break;
    default:  // int32, int16, int8, the unsigned, bool, float16, bfloat16,
              // float8: int32_data
      bytes = FromTypedField(proto.int32_data(), dtype, n, what, "int32_data");
  }
  if (!bytes.ok()) return bytes.status();
  return HostArray(shape, dtype, std::move(*bytes));
}

absl::StatusOr<HostArray> ReadTensorProto(const TensorProto& proto,
                                          const std::string& model_dir) {
  ExternalDataFiles files(model_dir);
  return ReadTensorProto(proto, files);
}

absl::StatusOr<HostArray> ReadTensorProtoFile(const std::string& path) {
  SY_ASSIGN_OR_RETURN(std::string bytes, file_io_internal::ReadFileToString(path));
  TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a valid ONNX TensorProto"));
  }
  const size_t slash = path.rfind('/');
  absl::StatusOr<HostArray> array = ReadTensorProto(
      proto, slash == std::string::npos ? "" : path.substr(0, slash));
  if (!array.ok()) {
    return absl::Status(array.status().code(),
                        absl::StrCat(path, ": ", array.status().message()));
  }
  return array;
}

}  // namespace onnx_import
}  // namespace switchyard
