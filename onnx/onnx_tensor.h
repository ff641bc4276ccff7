#ifndef SWITCHYARD_ONNX_ONNX_TENSOR_H_
#define SWITCHYARD_ONNX_ONNX_TENSOR_H_

// Reading ONNX TensorProtos (initializers, Constant nodes, the backend tests'
// input_*.pb / output_*.pb files) into Switchyard's dtypes and host arrays.
//
//   SY_ASSIGN_OR_RETURN(HostArray a, ReadTensorProto(proto, model_dir));
//   a.dtype == DType::kFloat32; a.shape == Shape({64, 3, 7, 7})
//
// Every size is checked against the data before anything is allocated, so
// a corrupt file is an InvalidArgument naming the tensor, never a crash or a
// huge allocation.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "models/file_io.h"
#include "models/host_array.h"
#include "onnx/onnx_pb.h"

namespace switchyard {
namespace onnx_import {

// The most dimensions an imported tensor may have.
inline constexpr int kMaxOnnxRank = 8;

// The DType of an ONNX TensorProto.DataType; Unimplemented naming the type
// for those Switchyard has no dtype for (string, complex, uint32/64,
// FLOAT4E2M1, FLOAT8E8M0).
absl::StatusOr<DType> DTypeFromOnnx(int32_t onnx_type);
// The ONNX name of a data type ("FLOAT", "INT64"), for messages.
std::string OnnxTypeName(int32_t onnx_type);
int32_t OnnxTypeFromDType(DType dtype);

// The checked shape of `dims` (each >= 0, at most kMaxOnnxRank, byte size
// in int64); `what` starts the error.
absl::StatusOr<Shape> ShapeFromOnnxDims(
    const google::protobuf::RepeatedField<int64_t>& dims, DType dtype,
    const std::string& what);

// Opens the files a model's tensors keep their data in (external data), each
// once, memory-mapped. Locations are relative to the model's folder; an
// absolute path or one leaving the folder ("..") is refused.
class ExternalDataFiles {
 public:
  // `model_path`, when given, is the model file: data reached through a
  // symbolic link must lie in the model's folder or, when the model file
  // is itself a link (Bazel's runfiles), in the folder it leads to.
  explicit ExternalDataFiles(std::string model_dir, std::string model_path = "")
      : model_dir_(std::move(model_dir)), model_path_(std::move(model_path)) {}
  // The bytes [offset, offset + length) of `location` (length -1: to the
  // end), or InvalidArgument/NotFound naming the tensor and the file.
  absl::StatusOr<absl::string_view> Bytes(const std::string& tensor,
                                          const std::string& location,
                                          int64_t offset, int64_t length);
  // Gives the pages of copied bytes back (MappedFile::Release).
  void Release(const char* data, size_t size);

 private:
  // OK when `path` (a file in the model's folder) does not lead out of it.
  absl::Status CheckInsideFolder(const std::string& what, const std::string& location,
                                 const std::string& path) const;

  std::string model_dir_;
  std::string model_path_;
  std::map<std::string, std::unique_ptr<file_io_internal::MappedFile>> files_;
};

// The tensor's bytes where they are stored as they are (raw_data or
// external data), without a copy: a view valid while `proto` and `files`
// are. nullopt when the tensor keeps its values in the typed fields
// (float_data, int64_data, ...) or packs two per byte (int4, uint4), which
// ReadTensorProto converts.
absl::StatusOr<std::optional<HostArrayView>> RawTensorView(
    const onnx::TensorProto& proto, ExternalDataFiles& files);

// The tensor as a host array, from any of its storage forms.
absl::StatusOr<HostArray> ReadTensorProto(const onnx::TensorProto& proto,
                                          ExternalDataFiles& files);
absl::StatusOr<HostArray> ReadTensorProto(const onnx::TensorProto& proto,
                                          const std::string& model_dir);

// A TensorProto file (the backend tests' input_0.pb).
absl::StatusOr<HostArray> ReadTensorProtoFile(const std::string& path);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_ONNX_TENSOR_H_
