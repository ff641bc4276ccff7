#include "models/npy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "models/file_io.h"

namespace switchyard {
namespace {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.cc copies little-endian array data as is"
#endif

constexpr absl::string_view kMagic("\x93NUMPY", 6);
constexpr size_t kVersionBytes = 2;  // major, minor
// NumPy aligns the data to this many bytes so it can be memory-mapped.
constexpr size_t kDataAlignment = 64;
// NumPy's own default for np.load (max_header_size): a header describes one
// dtype and at most a few dimensions, so a longer one is corrupt or hostile
// and would only cost parsing time.
constexpr uint64_t kMaxHeaderBytes = 10'000;
// The descr NumPy writes for each dtype (little-endian; '|' where byte order
// does not apply). bfloat16, float8, int4 and uint4 have no NumPy dtype,
// so they have no entry: they cannot be written as they are (AsNpyDType
// converts them), and no .npy file holds them.
struct DescrOf {
  DType dtype;
  const char* descr;
};
constexpr DescrOf kDescrs[] = {
    {DType::kFloat32, "<f4"}, {DType::kFloat16, "<f2"},
    {DType::kFloat64, "<f8"}, {DType::kInt64, "<i8"},
    {DType::kInt32, "<i4"},   {DType::kInt8, "|i1"},
    {DType::kUInt8, "|u1"},   {DType::kBool, "|b1"},
    {DType::kInt16, "<i2"},   {DType::kUInt16, "<u2"},
};

const char* DescrFor(DType dtype) {
  for (const DescrOf& d : kDescrs) {
    if (d.dtype == dtype) return d.descr;
  }
  return nullptr;
}

// The dtype of `descr`. One-byte types have no byte order, so any order mark
// ('|', '<', '>', '=') is accepted for them.
std::optional<DType> DTypeForDescr(absl::string_view descr) {
  for (const DescrOf& d : kDescrs) {
    const absl::string_view known(d.descr);
    if (descr == known) return d.dtype;
    if (known[0] == '|' && descr.size() == known.size() &&
        (descr[0] == '<' || descr[0] == '>' || descr[0] == '=') &&
        descr.substr(1) == known.substr(1)) {
      return d.dtype;
    }
  }
  return std::nullopt;
}

std::string SupportedDescrs() {
  std::vector<std::string> parts;
  for (const DescrOf& d : kDescrs) {
    parts.push_back(absl::StrCat("'", d.descr, "' (", DTypeName(d.dtype), ")"));
  }
  return absl::StrJoin(parts, ", ");
}

// `text` for an error message: printable ASCII as is, anything else (NumPy
// headers are ASCII) as a C escape.
std::string Printable(absl::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (absl::ascii_isprint(c)) {
      out.push_back(c);
    } else {
      absl::StrAppend(
          &out, "\\x",
          absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    }
  }
  return out;
}

// What the header dict says, before any semantic checks.
struct NpyHeader {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> dims;
};

// A small recursive-descent parser for the header dict: just the subset of
// Python literal syntax NumPy writes (quoted strings, True/False, tuples of
// integers), tolerant of key order, either quote style, whitespace and
// trailing commas.
class HeaderDictParser {
 public:
  HeaderDictParser(absl::string_view text, absl::string_view source_name)
      : text_(text), source_name_(source_name) {}

  absl::StatusOr<NpyHeader> Parse() {
    NpyHeader header;
    SkipSpace();
    if (!Consume('{')) return Malformed("expected '{' opening the dict");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      SY_ASSIGN_OR_RETURN(const std::string key, ParseString("a quoted key"));
      SkipSpace();
      if (!Consume(':')) {
        return Malformed(absl::StrCat("expected ':' after key '", key, "'"));
      }
      SkipSpace();
      if (key == "descr") {
        if (header.descr.has_value()) return Duplicate(key);
        if (Peek() == '[') {
          return absl::UnimplementedError(absl::StrCat(
              source_name_,
              ": structured (record) arrays are not supported; save a plain "
              "array of one dtype, such as np.save(path, np.asarray(x, "
              "dtype=np.float32))"));
        }
        SY_ASSIGN_OR_RETURN(header.descr,
                            ParseString("a quoted string for 'descr'"));
      } else if (key == "fortran_order") {
        if (header.fortran_order.has_value()) return Duplicate(key);
        SY_ASSIGN_OR_RETURN(header.fortran_order, ParseBool());
      } else if (key == "shape") {
        if (header.dims.has_value()) return Duplicate(key);
        SY_ASSIGN_OR_RETURN(header.dims, ParseShape());
      } else {
        return Malformed(absl::StrCat(
            "unexpected key '", key,
            "' (a .npy header has only 'descr', 'fortran_order' and "
            "'shape')"));
      }
      SkipSpace();
      if (Consume('}')) break;
      if (!Consume(',')) {
        return Malformed(
            absl::StrCat("expected ',' or '}' after the value of '", key, "'"));
      }
    }
    SkipSpace();
    if (pos_ != text_.size()) {
      return Malformed("unexpected text after the closing '}'");
    }
    return header;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool ConsumeWord(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }

  // A Python string literal without escapes, in single or double quotes.
  absl::StatusOr<std::string> ParseString(absl::string_view what) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') {
      return Malformed(absl::StrCat("expected ", what));
    }
    const size_t close = text_.find(quote, pos_ + 1);
    if (close == absl::string_view::npos) {
      return Malformed("unterminated string");
    }
    std::string value(text_.substr(pos_ + 1, close - pos_ - 1));
    pos_ = close + 1;
    return value;
  }

  absl::StatusOr<bool> ParseBool() {
    if (ConsumeWord("True")) return true;
    if (ConsumeWord("False")) return false;
    return Malformed("expected True or False for 'fortran_order'");
  }

  // A tuple of non-negative integers: (), (5,), (2, 3) or (2, 3,). Python 2
  // NumPy wrote long integers with an L suffix: (2L, 3L).
  absl::StatusOr<std::vector<int64_t>> ParseShape() {
    if (!Consume('(')) return Malformed("expected a tuple such as (2, 3)");
    std::vector<int64_t> dims;
    while (true) {
      SkipSpace();
      if (Consume(')')) break;
      const size_t start = pos_;
      while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
      int64_t dim;
      if (pos_ == start ||
          !absl::SimpleAtoi(text_.substr(start, pos_ - start), &dim)) {
        pos_ = start;
        return Malformed(
            "expected a non-negative integer dimension (at most 2^63-1)");
      }
      dims.push_back(dim);
      if (!Consume('L')) Consume('l');
      SkipSpace();
      if (Consume(')')) break;
      if (!Consume(',')) return Malformed("expected ',' or ')' in the shape");
    }
    return dims;
  }

  absl::Status Duplicate(absl::string_view key) {
    return Malformed(absl::StrCat("key '", key, "' appears twice"));
  }

  absl::Status Malformed(absl::string_view problem) const {
    constexpr size_t kMaxShown = 200;
    const absl::string_view stripped =
        absl::StripTrailingAsciiWhitespace(text_);
    return absl::InvalidArgumentError(absl::StrCat(
        source_name_, ": malformed .npy header: ", problem, " at offset ", pos_,
        " of \"", Printable(stripped.substr(0, kMaxShown)),
        stripped.size() > kMaxShown ? "..." : "", "\""));
  }

  absl::string_view text_;
  absl::string_view source_name_;
  size_t pos_ = 0;
};

uint32_t DecodeLittleEndian(absl::string_view bytes) {
  uint32_t value = 0;
  for (size_t i = bytes.size(); i-- > 0;) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return value;
}

std::string ShapeTuple(const std::vector<int64_t>& dims) {
  if (dims.size() == 1) return absl::StrCat("(", dims[0], ",)");
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

absl::Status CheckWritable(const HostArray& array) {
  if (DescrFor(array.dtype) == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        DTypeName(array.dtype),
        " has no NumPy dtype, so it cannot be stored in a .npy file; convert "
        "the array to float32 first (AsNpyDType), or write a .safetensors file "
        "(which has BF16 and two float8 types)"));
  }
  if (array.shape.rank() > kMaxTensorFileRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape has rank ", array.shape.rank(), "; at most ",
                     kMaxTensorFileRank, " dimensions are supported"));
  }
  SY_ASSIGN_OR_RETURN(const Shape shape, Shape::Create(array.shape.dims()));
  SY_RETURN_IF_ERROR(CheckArrayBytes(array, shape, "the array"));
  return absl::OkStatus();
}

}  // namespace

HostArray AsNpyDType(HostArray array) {
  if (array.dtype == DType::kBFloat16 || IsFloat8(array.dtype)) {
    return HostArray(array.shape, array.ToFloats());
  }
  if (array.dtype == DType::kInt4) array.dtype = DType::kInt8;
  if (array.dtype == DType::kUInt4) array.dtype = DType::kUInt8;
  return array;
}

absl::StatusOr<HostArray> ParseNpy(absl::string_view bytes,
                                   absl::string_view source_name) {
  const size_t magic_seen = std::min(bytes.size(), kMagic.size());
  if (bytes.substr(0, magic_seen) != kMagic.substr(0, magic_seen)) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name,
                     ": not a .npy file: it does not start with \"\\x93NUMPY\""
                     " (it starts with \"",
                     Printable(bytes.substr(0, kMagic.size())), "\")"));
  }
  if (bytes.size() < kMagic.size() + kVersionBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": truncated .npy file: ", bytes.size(),
                     " bytes, too short for the magic and version"));
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  size_t length_bytes;  // size of the header length field
  if (major == 1 && minor == 0) {
    length_bytes = 2;
  } else if ((major == 2 || major == 3) && minor == 0) {
    length_bytes = 4;
  } else {
    return absl::UnimplementedError(absl::StrCat(
        source_name, ": .npy format version ", major, ".", minor,
        " is not supported (only 1.0, 2.0 and 3.0); re-save it with "
        "np.save"));
  }
  const size_t preamble = kMagic.size() + kVersionBytes + length_bytes;
  if (bytes.size() < preamble) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": truncated .npy file: ", bytes.size(),
                     " bytes, too short for the ", preamble, "-byte version ",
                     major, ".0 preamble"));
  }
  const uint64_t header_size = DecodeLittleEndian(
      bytes.substr(kMagic.size() + kVersionBytes, length_bytes));
  if (header_size > bytes.size() - preamble) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": header length ", header_size,
        " bytes runs past the end of the file: only ", bytes.size() - preamble,
        " bytes follow the preamble; the file is "
        "truncated"));
  }
  if (header_size > kMaxHeaderBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": header length ", header_size,
        " bytes exceeds the limit of ", kMaxHeaderBytes,
        " bytes (NumPy's own default); the file is corrupt or not a .npy "
        "file"));
  }
  const absl::string_view header_text = bytes.substr(preamble, header_size);
  const absl::string_view data = bytes.substr(preamble + header_size);

  SY_ASSIGN_OR_RETURN(const NpyHeader header,
                      HeaderDictParser(header_text, source_name).Parse());
  const char* missing = !header.descr.has_value()           ? "descr"
                        : !header.fortran_order.has_value() ? "fortran_order"
                        : !header.dims.has_value()          ? "shape"
                                                            : nullptr;
  if (missing != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": .npy header has no '", missing,
                     "' key; it needs 'descr', 'fortran_order' and 'shape'"));
  }
  const std::optional<DType> dtype = DTypeForDescr(*header.descr);
  if (!dtype.has_value()) {
    const bool big_endian = !header.descr->empty() && (*header.descr)[0] == '>';
    return absl::UnimplementedError(absl::StrCat(
        source_name, ": dtype descr '", *header.descr,
        "' is not supported; the supported ones are ", SupportedDescrs(),
        big_endian ? ". Save little-endian data: np.save(path, "
                     "x.astype(x.dtype.newbyteorder('<')))"
                   : ". Save one of these: np.save(path, np.asarray(x, "
                     "dtype=np.float32))"));
  }
  if (*header.fortran_order) {
    return absl::UnimplementedError(absl::StrCat(
        source_name,
        ": Fortran-order (column-major) arrays are not supported; save a "
        "C-order array: np.save(path, np.ascontiguousarray(x))"));
  }
  const std::vector<int64_t>& dims = *header.dims;
  if (dims.size() > static_cast<size_t>(kMaxTensorFileRank)) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": shape ", ShapeTuple(dims), " has rank ", dims.size(),
        "; at most ", kMaxTensorFileRank, " dimensions are supported"));
  }
  const size_t element_size = DTypeSize(*dtype);
  absl::StatusOr<Shape> shape = Shape::Create(dims, element_size);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": ", shape.status().message()));
  }
  // Shape::Create guarantees the byte count fits in int64.
  const uint64_t expected_bytes =
      static_cast<uint64_t>(shape->num_elements()) * element_size;
  if (data.size() != expected_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ": shape ", ShapeTuple(dims), " of ", DTypeName(*dtype),
        " needs ", expected_bytes, " data bytes, but the file has ",
        data.size(),
        data.size() < expected_bytes ? "; it is truncated"
                                     : "; it has extra bytes after the data"));
  }

  // A copy into the array's own (aligned) storage: nothing guarantees the
  // data is aligned in `bytes`.
  return HostArray(*std::move(shape), *dtype,
                   std::vector<char>(data.begin(), data.end()));
}

absl::StatusOr<HostArray> ReadNpy(const std::string& path) {
  // Mapped, so the array is copied once, from the file's pages.
  SY_ASSIGN_OR_RETURN(std::unique_ptr<file_io_internal::MappedFile> file,
                      file_io_internal::MappedFile::Open(path));
  return ParseNpy(file->bytes(), path);
}

std::string SerializeNpy(const HostArray& array) {
  const char* descr = DescrFor(array.dtype);
  std::string header = absl::StrCat("{'descr': '", descr ? descr : "?",
                                    "', 'fortran_order': False, 'shape': ",
                                    ShapeTuple(array.shape.dims()), ", }");
  // Version 1.0 stores the header length in 2 bytes; as NumPy does, fall
  // back to 2.0 (4 bytes) for a header that does not fit.
  size_t length_bytes = 2;
  auto padded_size = [&] {
    const size_t unpadded =
        kMagic.size() + kVersionBytes + length_bytes + header.size() + 1;
    return header.size() + 1 +
           (kDataAlignment - unpadded % kDataAlignment) % kDataAlignment;
  };
  if (padded_size() > std::numeric_limits<uint16_t>::max()) length_bytes = 4;
  const size_t header_size = padded_size();
  header.resize(header_size - 1, ' ');
  header.push_back('\n');

  std::string bytes(kMagic);
  bytes.push_back(static_cast<char>(length_bytes == 2 ? 1 : 2));  // major
  bytes.push_back(0);                                             // minor
  for (size_t i = 0; i < length_bytes; ++i) {
    bytes.push_back(static_cast<char>((header_size >> (8 * i)) & 0xff));
  }
  bytes += header;
  bytes.append(array.bytes.data(), array.bytes.size());
  return bytes;
}

absl::StatusOr<std::string> EncodeNpy(const std::string& path,
                                      const HostArray& array) {
  if (absl::Status status = CheckWritable(array); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat("cannot write '", path,
                                                    "': ", status.message()));
  }
  return SerializeNpy(array);
}

absl::Status WriteNpy(const std::string& path, const HostArray& array) {
  if (absl::Status status = CheckWritable(array); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat("cannot write '", path,
                                                    "': ", status.message()));
  }
  return file_io_internal::WriteFileAtomically(path, SerializeNpy(array));
}

}  // namespace switchyard
