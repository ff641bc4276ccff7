#include "models/safetensors.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "models/file_io.h"
#include "nlohmann/json.hpp"

namespace switchyard {
namespace {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.cc copies little-endian tensor data as is"
#endif

using Json = nlohmann::json;

constexpr size_t kLengthPrefixBytes = 8;
// The reference implementation's limit. Real headers are kilobytes to a few
// megabytes; a larger length means a corrupt or foreign file, and refusing it
// keeps us from building a huge JSON document.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// Far more than any model file holds (VGG11 has 22 tensors; large language
// models a few thousand per file). It bounds the work and memory a header
// can ask for before a single tensor is checked.
constexpr size_t kMaxTensors = 100'000;
// Tensors are copied from a mapped file in pieces of this size, each given
// back to the system once copied, so loading never holds much more than the
// destination's own memory.
constexpr size_t kCopyChunkBytes = size_t{16} << 20;
constexpr char kMetadataKey[] = "__metadata__";

// Every dtype the safetensors format defines. Those without a runtime dtype
// (kDTypeNames) are recognized so that a valid file gets Unimplemented, not
// InvalidArgument.
constexpr const char* kSafetensorsDTypes[] = {
    "BOOL", "U8",  "I8",  "I16", "U16", "F16",     "BF16",   "I32",
    "U32",  "F32", "F64", "I64", "U64", "F8_E4M3", "F8_E5M2"};

// The safetensors name of each runtime dtype.
struct NamedDType {
  DType dtype;
  const char* name;
};
constexpr NamedDType kDTypeNames[] = {
    {DType::kFloat32, "F32"},   {DType::kFloat16, "F16"},
    {DType::kBFloat16, "BF16"}, {DType::kFloat64, "F64"},
    {DType::kInt64, "I64"},     {DType::kInt32, "I32"},
    {DType::kInt8, "I8"},       {DType::kUInt8, "U8"},
    {DType::kBool, "BOOL"},     {DType::kInt16, "I16"},
    {DType::kUInt16, "U16"},    {DType::kFloat8E4M3FN, "F8_E4M3"},
    {DType::kFloat8E5M2, "F8_E5M2"},
};

std::optional<DType> DTypeForName(absl::string_view name) {
  for (const NamedDType& d : kDTypeNames) {
    if (name == d.name) return d.dtype;
  }
  return std::nullopt;
}

const char* NameForDType(DType dtype) {
  for (const NamedDType& d : kDTypeNames) {
    if (d.dtype == dtype) return d.name;
  }
  return "?";  // int4, uint4 and the fnuz float8s: CheckWritable refuses them
}

std::string SupportedDTypes() {
  std::vector<std::string> names;
  for (const NamedDType& d : kDTypeNames) names.push_back(d.name);
  return absl::StrJoin(names, ", ");
}

bool IsSafetensorsDType(absl::string_view name) {
  for (const char* known : kSafetensorsDTypes) {
    if (name == known) return true;
  }
  return false;
}

uint64_t DecodeLittleEndian64(const char* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(p[i]);
  }
  return value;
}

void AppendLittleEndian64(uint64_t value, std::string* out) {
  for (int i = 0; i < 8; ++i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

// RFC 3629 UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
bool IsValidUtf8(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char lead = static_cast<unsigned char>(s[i]);
    size_t continuation;
    uint32_t code_point;
    uint32_t smallest;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xe0) == 0xc0) {
      continuation = 1, code_point = lead & 0x1f, smallest = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
      continuation = 2, code_point = lead & 0x0f, smallest = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
      continuation = 3, code_point = lead & 0x07, smallest = 0x10000;
    } else {
      return false;
    }
    if (s.size() - i <= continuation) return false;
    for (size_t k = 1; k <= continuation; ++k) {
      const unsigned char byte = static_cast<unsigned char>(s[i + k]);
      if ((byte & 0xc0) != 0x80) return false;
      code_point = (code_point << 6) | (byte & 0x3f);
    }
    if (code_point < smallest || code_point > 0x10ffff ||
        (code_point >= 0xd800 && code_point <= 0xdfff)) {
      return false;
    }
    i += continuation + 1;
  }
  return true;
}

// A SAX handler that accepts everything and keeps the parser's error
// message. nlohmann's non-throwing parse() only says "discarded", so a failed
// header is parsed a second time with this to explain why.
class ParseErrorRecorder : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&,
                   const Json::exception& error) override {
    message_ = error.what();
    return false;
  }

  const std::string& message() const { return message_; }

 private:
  std::string message_ = "unknown JSON parse error";
};

// A first, streaming pass over the header that bounds what the JSON
// document will cost before it is built: it stops at the first duplicate
// top-level key, at more than `max_keys` top-level keys, or at nesting
// deeper than kMaxHeaderNesting (a valid header nests 3 levels; a 100 MB
// header of '[' would otherwise build a document 100 million levels deep).
// Linear time, unlike nlohmann's parser callbacks, whose cost grows with the
// square of the entry count (a 100,000-tensor header took minutes).
constexpr int kMaxHeaderNesting = 64;

class HeaderScan : public nlohmann::json_sax<Json> {
 public:
  explicit HeaderScan(size_t max_keys) : max_keys_(max_keys) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (!Enter()) return false;
    if (depth_ > 1) nested_keys_.emplace_back();
    return true;
  }
  bool key(string_t& key) override {
    if (depth_ != 1) {
      // Inside a tensor entry ({"dtype": ..., "dtype": ...}): nlohmann keeps
      // the last value, another reader the first; refused like top-level
      // duplicates.
      if (!nested_keys_.empty() && !nested_keys_.back().insert(key).second) {
        nested_duplicate_ = std::make_pair(current_tensor_, key);
        return false;
      }
      return true;
    }
    current_tensor_ = key;
    if (keys_.size() >= max_keys_) {
      too_many_keys_ = true;
      return false;
    }
    if (!keys_.insert(key).second) {
      duplicate_ = key;
      return false;
    }
    return true;
  }
  bool end_object() override {
    if (depth_ > 1 && !nested_keys_.empty()) nested_keys_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override { return Enter(); }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&,
                   const Json::exception&) override {
    return false;  // the full parse reports it
  }

  const std::optional<std::string>& duplicate() const { return duplicate_; }
  // (tensor, key) of a key that appears twice inside one entry.
  const std::optional<std::pair<std::string, std::string>>& nested_duplicate()
      const {
    return nested_duplicate_;
  }
  bool too_many_keys() const { return too_many_keys_; }
  bool too_deep() const { return too_deep_; }

 private:
  bool Enter() {
    if (++depth_ > kMaxHeaderNesting) {
      too_deep_ = true;
      return false;
    }
    return true;
  }

  size_t max_keys_;
  int depth_ = 0;
  std::set<std::string> keys_;
  std::optional<std::string> duplicate_;
  std::vector<std::set<std::string>> nested_keys_;  // one per open inner object
  std::string current_tensor_;
  std::optional<std::pair<std::string, std::string>> nested_duplicate_;
  bool too_many_keys_ = false;
  bool too_deep_ = false;
};

std::string JsonParseError(absl::string_view text) {
  ParseErrorRecorder recorder;
  Json::sax_parse(text.begin(), text.end(), &recorder);
  return recorder.message();
}

// Reads a JSON value that must be a non-negative integer (a dimension or an
// offset). `where` and `what` name it in the error.
absl::StatusOr<uint64_t> ToUint64(const Json& value, absl::string_view where,
                                  absl::string_view what) {
  if (const auto* u = value.get_ptr<const Json::number_unsigned_t*>()) {
    return *u;
  }
  if (const auto* i = value.get_ptr<const Json::number_integer_t*>()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": ", what, " is ", *i, "; it must be a non-negative integer"));
  }
  if (const auto* f = value.get_ptr<const Json::number_float_t*>()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", what, " is ", *f,
                     ", not an integer (or too large for 64 bits); it must be "
                     "a non-negative integer"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(where, ": ", what, " is a JSON ", value.type_name(),
                   "; it must be a non-negative integer"));
}

// One tensor's header entry, checked on its own.
struct Entry {
  std::string name;
  Shape shape;
  DType dtype = DType::kFloat32;
  uint64_t begin = 0;
  uint64_t end = 0;
};

absl::StatusOr<Entry> ParseEntry(const std::string& name, const Json& info,
                                 uint64_t data_size,
                                 absl::string_view source_name) {
  const std::string where = absl::StrCat(source_name, ": tensor '", name, "'");
  if (!info.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": header entry is a JSON ", info.type_name(),
        "; expected an object with \"dtype\", \"shape\" and \"data_offsets\""));
  }
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!info.contains(field)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": header entry has no \"", field,
          "\"; each tensor needs \"dtype\", \"shape\" and \"data_offsets\""));
    }
  }
  const Json& dtype_json = *info.find("dtype");
  const Json& shape_json = *info.find("shape");
  const Json& offsets_json = *info.find("data_offsets");

  const auto* dtype = dtype_json.get_ptr<const Json::string_t*>();
  if (dtype == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": \"dtype\" is a JSON ", dtype_json.type_name(),
                     "; expected a string such as \"F32\""));
  }
  if (!IsSafetensorsDType(*dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": unknown dtype \"", *dtype, "\"; safetensors dtypes are ",
        absl::StrJoin(kSafetensorsDTypes, ", ")));
  }
  const std::optional<DType> element_type = DTypeForName(*dtype);
  if (!element_type.has_value()) {
    return absl::UnimplementedError(absl::StrCat(
        where, ": dtype ", *dtype, " is not supported; the supported ones are ",
        SupportedDTypes(),
        ". Convert the tensor before saving (PyTorch: `t.float()` then "
        "save_file(...); NumPy: `x.astype(np.float32)`)"));
  }
  const size_t element_size = DTypeSize(*element_type);

  if (!shape_json.is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": \"shape\" is a JSON ", shape_json.type_name(),
                     "; expected an array of dimensions"));
  }
  if (shape_json.size() > static_cast<size_t>(kMaxTensorFileRank)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": shape has rank ", shape_json.size(), "; at most ",
        kMaxTensorFileRank, " dimensions are supported"));
  }
  std::vector<int64_t> dims;
  for (const Json& dim_json : shape_json) {
    SY_ASSIGN_OR_RETURN(
        const uint64_t dim,
        ToUint64(dim_json, where,
                 absl::StrCat("\"shape\" element ", dims.size())));
    if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": dimension ", dims.size(), " (", dim, ") is too large"));
    }
    dims.push_back(static_cast<int64_t>(dim));
  }
  absl::StatusOr<Shape> shape = Shape::Create(dims, element_size);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", shape.status().message()));
  }

  if (!offsets_json.is_array() || offsets_json.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        where,
        ": \"data_offsets\" must be an array [begin, end] of two "
        "integers; got a JSON ",
        offsets_json.type_name(),
        offsets_json.is_array()
            ? absl::StrCat(" of ", offsets_json.size(), " elements")
            : ""));
  }
  SY_ASSIGN_OR_RETURN(
      const uint64_t begin,
      ToUint64(offsets_json.front(), where, "\"data_offsets\" begin"));
  SY_ASSIGN_OR_RETURN(const uint64_t end, ToUint64(offsets_json.back(), where,
                                                   "\"data_offsets\" end"));
  if (begin > end) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": data_offsets [", begin, ", ", end,
                     "] are reversed; begin must be <= end"));
  }
  if (end > data_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": data_offsets [", begin, ", ", end,
        "] run past the end of the data section, which has ", data_size,
        " bytes; the file is truncated or its header is wrong"));
  }
  // Shape::Create guarantees the byte count fits in int64.
  const uint64_t expected_bytes =
      static_cast<uint64_t>(shape->num_elements()) * element_size;
  if (end - begin != expected_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": shape ", shape->ToString(), " needs ", expected_bytes,
        " bytes of ", *dtype, ", but data_offsets [", begin, ", ", end,
        "] span ", end - begin, " bytes"));
  }
  return Entry{name, *std::move(shape), *element_type, begin, end};
}

absl::Status ParseMetadata(const Json& metadata_json,
                           absl::string_view source_name,
                           std::map<std::string, std::string>* metadata) {
  if (!metadata_json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": \"", kMetadataKey, "\" is a JSON ",
        metadata_json.type_name(), "; expected an object of strings"));
  }
  for (const auto& item : metadata_json.items()) {
    const auto* value = item.value().get_ptr<const Json::string_t*>();
    if (value == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name, ": metadata key '", item.key(),
                       "' has a JSON ", item.value().type_name(),
                       " value; safetensors metadata values must be strings"));
    }
    (*metadata)[item.key()] = *value;
  }
  return absl::OkStatus();
}

// The format requires the tensors to tile the data section: sorted by
// offset, each starts where the previous one ended, and the last ends at the
// end of the section.
absl::Status CheckTiling(std::vector<const Entry*> entries, uint64_t data_size,
                         absl::string_view source_name) {
  std::sort(entries.begin(), entries.end(), [](const Entry* a, const Entry* b) {
    return std::tie(a->begin, a->end, a->name) <
           std::tie(b->begin, b->end, b->name);
  });
  uint64_t covered = 0;         // bytes [0, covered) belong to a tensor
  const Entry* last = nullptr;  // the non-empty tensor that ends at `covered`
  for (const Entry* entry : entries) {
    if (entry->begin < covered) {
      return absl::InvalidArgumentError(absl::StrCat(
          source_name, ": tensors '", last->name, "' (bytes [", last->begin,
          ", ", last->end, ")) and '", entry->name, "' (bytes [", entry->begin,
          ", ", entry->end, ")) overlap in the data section"));
    }
    if (entry->begin > covered) {
      return absl::InvalidArgumentError(absl::StrCat(
          source_name, ": bytes [", covered, ", ", entry->begin,
          ") of the data section belong to no tensor; the safetensors format "
          "forbids holes"));
    }
    covered = entry->end;
    if (entry->end > entry->begin || last == nullptr) last = entry;
  }
  if (covered != data_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": bytes [", covered, ", ", data_size,
        ") at the end of the data section belong to no tensor; the "
        "safetensors format forbids holes"));
  }
  return absl::OkStatus();
}

absl::Status CheckWritable(const SafetensorsFile& file) {
  for (const auto& [name, array] : file.tensors) {
    const std::string where = absl::StrCat("tensor '", name, "'");
    if (name == kMetadataKey) {
      return absl::InvalidArgumentError(
          absl::StrCat(where,
                       ": the name is reserved for the metadata; "
                       "rename the tensor"));
    }
    if (!IsValidUtf8(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the name is not valid UTF-8"));
    }
    if (array.shape.rank() > kMaxTensorFileRank) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": shape has rank ", array.shape.rank(),
                       "; at most ", kMaxTensorFileRank, " are supported"));
    }
    absl::StatusOr<Shape> shape = Shape::Create(array.shape.dims());
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", shape.status().message()));
    }
    SY_RETURN_IF_ERROR(CheckArrayBytes(array, *shape, where + ":"));
    if (std::string(NameForDType(array.dtype)) == "?") {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": safetensors has no ", DTypeName(array.dtype),
          " dtype; cast the tensor (to int8, uint8 or float32) first"));
    }
  }
  for (const auto& [key, value] : file.metadata) {
    if (!IsValidUtf8(key) || !IsValidUtf8(value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "metadata key '", key, "': the key or value is not valid UTF-8"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

namespace safetensors_internal {

absl::StatusOr<SafetensorsIndex> ParseSafetensorsIndex(
    absl::string_view bytes, absl::string_view source_name) {
  if (bytes.size() < kLengthPrefixBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": truncated safetensors file: it has ", bytes.size(),
        " bytes, fewer than the 8-byte header length prefix"));
  }
  const uint64_t header_size = DecodeLittleEndian64(bytes.data());
  if (header_size > kMaxHeaderBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": header length ", header_size,
                     " bytes exceeds the limit of ", kMaxHeaderBytes,
                     " bytes; the file is corrupt or not a safetensors file"));
  }
  const uint64_t after_prefix = bytes.size() - kLengthPrefixBytes;
  if (header_size > after_prefix) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": header length ", header_size,
        " bytes runs past the end of the file: only ", after_prefix,
        " bytes follow the 8-byte prefix; the file is truncated"));
  }
  const absl::string_view header_text =
      bytes.substr(kLengthPrefixBytes, header_size);
  const absl::string_view data = bytes.substr(kLengthPrefixBytes + header_size);

  // Tensors plus "__metadata__".
  HeaderScan scan(kMaxTensors + 1);
  Json::sax_parse(header_text.begin(), header_text.end(), &scan);
  if (scan.too_deep()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": header nests JSON more than ", kMaxHeaderNesting,
        " levels deep (a safetensors header has 3); the file is corrupt or "
        "not a safetensors file"));
  }
  if (scan.too_many_keys()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": header lists more than the limit of ", kMaxTensors,
        " tensors; the file is corrupt, or split the weights into several "
        "files"));
  }
  // JSON lets a key appear twice and nlohmann keeps the last value; another
  // reader could keep the first, so two programs would load different
  // weights from one file. A duplicate tensor name is refused instead.
  if (scan.nested_duplicate().has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": the entry of '", scan.nested_duplicate()->first,
        "' has the key '", scan.nested_duplicate()->second,
        "' more than once; each key of an entry must be unique"));
  }
  if (scan.duplicate().has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": tensor '", *scan.duplicate(),
        "' appears more than once in the header; each name must be unique"));
  }
  const Json header = Json::parse(header_text.begin(), header_text.end(),
                                  /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": header is not valid JSON (",
                     JsonParseError(header_text),
                     "); the file is corrupt or not a safetensors file"));
  }
  if (!header.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": header is a JSON ", header.type_name(),
                     "; expected an object mapping tensor names to entries"));
  }
  const size_t num_tensors =
      header.size() - (header.contains(kMetadataKey) ? 1 : 0);
  if (num_tensors > kMaxTensors) {  // 100,001 tensors and no metadata
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": header lists more than the limit of ", kMaxTensors,
        " tensors; the file is corrupt, or split the weights into several "
        "files"));
  }

  SafetensorsIndex index;
  std::vector<Entry> entries;
  entries.reserve(num_tensors);
  for (const auto& item : header.items()) {
    if (item.key() == kMetadataKey) {
      SY_RETURN_IF_ERROR(
          ParseMetadata(item.value(), source_name, &index.metadata));
      continue;
    }
    SY_ASSIGN_OR_RETURN(Entry entry, ParseEntry(item.key(), item.value(),
                                                data.size(), source_name));
    entries.push_back(std::move(entry));
  }

  std::vector<const Entry*> layout;
  layout.reserve(entries.size());
  for (const Entry& entry : entries) layout.push_back(&entry);
  SY_RETURN_IF_ERROR(CheckTiling(std::move(layout), data.size(), source_name));

  for (Entry& entry : entries) {
    HostArrayView view;
    view.dtype = entry.dtype;
    view.data = data.data() + entry.begin;
    view.size_bytes = static_cast<size_t>(entry.end - entry.begin);
    view.shape = std::move(entry.shape);
    index.tensors.emplace(std::move(entry.name), std::move(view));
  }
  return index;
}

}  // namespace safetensors_internal

namespace {

// Copies a view's bytes into a new HostArray, handing each copied piece to
// `copied` (to release mapped pages as it goes).
HostArray CopyToHostArray(
    const HostArrayView& view,
    const std::function<void(const char*, size_t)>& copied) {
  HostArray array;
  array.dtype = view.dtype;
  array.bytes.resize(view.size_bytes);
  char* out = array.bytes.data();
  for (size_t offset = 0; offset < view.size_bytes;
       offset += kCopyChunkBytes) {
    const size_t n = std::min(kCopyChunkBytes, view.size_bytes - offset);
    // memcpy, not a cast: the data section has no alignment guarantee.
    std::memcpy(out + offset, view.data + offset, n);
    if (copied) copied(view.data + offset, n);
  }
  array.shape = view.shape;
  return array;
}

}  // namespace

absl::StatusOr<SafetensorsFile> ParseSafetensors(
    absl::string_view bytes, absl::string_view source_name) {
  SY_ASSIGN_OR_RETURN(
      safetensors_internal::SafetensorsIndex index,
      safetensors_internal::ParseSafetensorsIndex(bytes, source_name));
  SafetensorsFile file;
  file.metadata = std::move(index.metadata);
  for (const auto& [name, view] : index.tensors) {
    file.tensors.emplace(name, CopyToHostArray(view, nullptr));
  }
  return file;
}

absl::StatusOr<std::unique_ptr<MappedSafetensors>> MappedSafetensors::Open(
    const std::string& path) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<file_io_internal::MappedFile> mapped,
                      file_io_internal::MappedFile::Open(path));
  SY_ASSIGN_OR_RETURN(
      safetensors_internal::SafetensorsIndex index,
      safetensors_internal::ParseSafetensorsIndex(mapped->bytes(), path));
  return std::unique_ptr<MappedSafetensors>(
      new MappedSafetensors(path, std::move(mapped), std::move(index)));
}

MappedSafetensors::MappedSafetensors(
    std::string path, std::unique_ptr<file_io_internal::MappedFile> file,
    safetensors_internal::SafetensorsIndex index)
    : path_(std::move(path)), file_(std::move(file)), index_(std::move(index)) {}

MappedSafetensors::~MappedSafetensors() = default;

void MappedSafetensors::Release(const char* data, size_t size) {
  file_->Release(data, size);
}

absl::StatusOr<SafetensorsFile> ReadSafetensors(const std::string& path) {
  SY_ASSIGN_OR_RETURN(std::unique_ptr<MappedSafetensors> mapped,
                      MappedSafetensors::Open(path));
  SafetensorsFile file;
  file.metadata = mapped->metadata();
  auto release = [&](const char* data, size_t size) {
    mapped->Release(data, size);
  };
  for (const auto& [name, view] : mapped->tensors()) {
    file.tensors.emplace(name, CopyToHostArray(view, release));
  }
  return file;
}

std::string SerializeSafetensors(const SafetensorsFile& file) {
  // ordered_json keeps insertion order: "__metadata__" first, then tensors
  // in name order, each entry's fields in the reference order.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) {
    nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
    for (const auto& [key, value] : file.metadata) metadata[key] = value;
    header[kMetadataKey] = std::move(metadata);
  }
  uint64_t offset = 0;
  for (const auto& [name, array] : file.tensors) {
    const uint64_t size = array.bytes.size();
    nlohmann::ordered_json info = nlohmann::ordered_json::object();
    info["dtype"] = NameForDType(array.dtype);
    info["shape"] = array.shape.dims();
    info["data_offsets"] =
        nlohmann::ordered_json::array({offset, offset + size});
    header[name] = std::move(info);
    offset += size;
  }
  // `replace` instead of the default `strict`, which throws on invalid UTF-8.
  std::string header_text = header.dump(
      /*indent=*/-1, /*indent_char=*/' ', /*ensure_ascii=*/false,
      nlohmann::ordered_json::error_handler_t::replace);
  // Pad so the data section starts 8-byte aligned, as the reference does.
  header_text.append((8 - header_text.size() % 8) % 8, ' ');

  std::string bytes;
  bytes.reserve(kLengthPrefixBytes + header_text.size() + offset);
  AppendLittleEndian64(header_text.size(), &bytes);
  bytes += header_text;
  for (const auto& [name, array] : file.tensors) {
    bytes.append(array.bytes.data(), array.bytes.size());
  }
  return bytes;
}

absl::Status WriteSafetensors(const std::string& path,
                              const SafetensorsFile& file) {
  if (absl::Status status = CheckWritable(file); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat("cannot write '", path,
                                                    "': ", status.message()));
  }
  return file_io_internal::WriteFileAtomically(path,
                                               SerializeSafetensors(file));
}

}  // namespace switchyard
