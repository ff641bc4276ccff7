#include "onnx/raw_data_ranges.h"

#include <cstdint>
#include <string>
#include <utility>

namespace switchyard {
namespace onnx_import {
namespace {

// Field numbers of onnx.proto: ModelProto.graph, GraphProto.initializer,
// TensorProto.raw_data.
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorName = 8;
constexpr uint32_t kTensorRawData = 9;

// Wire types.
constexpr uint32_t kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5;

// A cursor over [begin, end) of the whole message; every read is checked.
class Reader {
 public:
  Reader(absl::string_view all, size_t begin, size_t end) : all_(all), at_(begin), end_(end) {}

  bool done() const { return at_ >= end_; }
  size_t at() const { return at_; }

  bool Varint(uint64_t* value) {
    *value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= end_) return false;
      const uint8_t byte = static_cast<uint8_t>(all_[at_++]);
      *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }

  // Reads one field's key and skips or delimits its value: for a
  // length-delimited field, [*begin, *end) is its payload.
  bool Field(uint32_t* number, uint32_t* type, size_t* begin, size_t* end) {
    uint64_t key = 0;
    if (!Varint(&key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX) return false;
    *number = static_cast<uint32_t>(key >> 3);
    *type = static_cast<uint32_t>(key & 7);
    uint64_t length = 0;
    switch (*type) {
      case kVarint:
        return Varint(&length);
      case kFixed64:
        return Skip(8);
      case kFixed32:
        return Skip(4);
      case kLengthDelimited:
        if (!Varint(&length) || length > end_ - at_) return false;
        *begin = at_;
        *end = at_ + static_cast<size_t>(length);
        at_ = *end;
        return true;
      default:  // groups (deprecated) and invalid types
        return false;
    }
  }

 private:
  bool Skip(size_t n) {
    if (n > end_ - at_) return false;
    at_ += n;
    return true;
  }

  absl::string_view all_;
  size_t at_, end_;
};

// The name and last raw_data of one TensorProto (protobuf keeps the last
// value of a singular field seen twice). False when malformed.
bool ReadInitializer(absl::string_view model, size_t begin, size_t end,
                     InitializerBytes* initializer) {
  Reader tensor(model, begin, end);
  while (!tensor.done()) {
    uint32_t number = 0, type = 0;
    size_t b = 0, e = 0;
    if (!tensor.Field(&number, &type, &b, &e)) return false;
    if (number != kTensorRawData && number != kTensorName) continue;
    if (type != kLengthDelimited) return false;
    if (number == kTensorRawData) {
      initializer->raw_data = ByteRange{b, e - b};
    } else {
      initializer->name = std::string(model.substr(b, e - b));
    }
  }
  return true;
}

}  // namespace

std::vector<InitializerBytes> InitializerRawDataRanges(absl::string_view model) {
  std::vector<InitializerBytes> ranges;
  Reader top(model, 0, model.size());
  while (!top.done()) {
    uint32_t number = 0, type = 0;
    size_t b = 0, e = 0;
    if (!top.Field(&number, &type, &b, &e)) return {};
    if (number != kModelGraph) continue;
    if (type != kLengthDelimited) return {};
    Reader graph(model, b, e);
    while (!graph.done()) {
      size_t gb = 0, ge = 0;
      if (!graph.Field(&number, &type, &gb, &ge)) return {};
      if (number != kGraphInitializer) continue;
      if (type != kLengthDelimited) return {};
      InitializerBytes initializer;
      if (!ReadInitializer(model, gb, ge, &initializer)) return {};
      ranges.push_back(std::move(initializer));
    }
  }
  return ranges;
}

}  // namespace onnx_import
}  // namespace switchyard
