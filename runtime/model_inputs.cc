#include "runtime/model_inputs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <random>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "models/npy.h"
#include "runtime/seeded_input.h"

namespace switchyard {
namespace runtime {
namespace {

// A run holds its inputs and the activations computed from them; as in
// CheckBatchFitsMemory (flags.cc), the activations are estimated at 64 times
// the inputs' bytes.
constexpr double kActivationFactor = 64;

// Where an input's shape came from, for messages: "--input=ids.npy" or
// "--input_shape=ids:2x16". `strict`: a file, whose fixed dimensions must be
// the model's; --input_shape may change them (the importer recomputes every
// shape), as it always could.
struct GivenShape {
  Shape shape;
  std::string from;
  bool strict = false;
};

std::vector<std::string> SplitList(absl::Span<const std::string> values) {
  std::vector<std::string> parts;
  for (const std::string& value : values) {
    for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      parts.emplace_back(part);
    }
  }
  return parts;
}

bool IsFile(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

int FindInput(absl::Span<const OnnxValueInfo> declared, absl::string_view name) {
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::string SymbolName(const OnnxValueInfo& in, size_t d) {
  return d < in.dim_names.size() ? in.dim_names[d] : "";
}

// numpy's name for `dtype`, for "x.astype(np.int64)".
std::string NumpyName(DType dtype) {
  return dtype == DType::kBool ? "bool_" : DTypeName(dtype);
}

// Dimensions that fit `in` ("1x16"), for hints: fixed sizes as declared, symbolic ones
// as bound, else 1 for the first and 16 for the others.
std::string ExampleShape(const OnnxValueInfo& in,
                         const std::map<std::string, int64_t>& bound) {
  std::vector<std::string> dims;
  for (size_t d = 0; d < in.dims.size(); ++d) {
    auto it = bound.find(SymbolName(in, d));
    if (in.dims[d].has_value()) {
      dims.push_back(absl::StrCat(*in.dims[d]));
    } else if (it != bound.end() && !it->first.empty()) {
      dims.push_back(absl::StrCat(it->second));
    } else {
      dims.push_back(d == 0 ? "1" : "16");
    }
  }
  return absl::StrJoin(dims, "x");
}

// "--input_shape=ids:1x16", a flag that fits `in`.
std::string ExampleFlag(const OnnxValueInfo& in,
                        const std::map<std::string, int64_t>& bound) {
  return absl::StrCat("--input_shape=", in.name, ":", ExampleShape(in, bound));
}

// --input_shape values by input index. A name may itself hold ':' (TF-style
// "input:0"): the shape follows the last one.
absl::StatusOr<std::map<int, GivenShape>> ParseInputShapes(
    absl::Span<const OnnxValueInfo> declared, absl::Span<const std::string> values) {
  std::map<int, GivenShape> given;
  for (const std::string& value : SplitList(values)) {
    const size_t colon = value.rfind(':');
    const std::string name = colon == std::string::npos ? "" : value.substr(0, colon);
    SY_ASSIGN_OR_RETURN(
        Shape shape,
        ParseShapeDims(colon == std::string::npos ? value : value.substr(colon + 1), value));
    int index = 0;
    if (name.empty()) {
      if (declared.size() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input_shape=", value, " names no input, but the model has ",
            declared.size(), " inputs (", DescribeInputs(declared),
            "); give one per input as NAME:DIMS, e.g. ",
            declared.empty() ? "--input_shape=x:1" : ExampleFlag(declared[0], {})));
      }
    } else {
      index = FindInput(declared, name);
      if (index < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input_shape=", value, ": the model has no input '", name,
            "'; its inputs: ", DescribeInputs(declared)));
      }
    }
    if (given.count(index)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input_shape gives input '", declared[index].name,
          "' twice (", given[index].from, " and --input_shape=", value, ")"));
    }
    given[index] = {shape, absl::StrCat("--input_shape=", value), false};
  }
  return given;
}

// Binds symbolic dimension `name` to `size`, or checks it against an earlier
// binding: two inputs sharing a name must agree.
absl::Status Bind(const std::string& name, int64_t size, const std::string& where,
                  std::map<std::string, int64_t>& bound,
                  std::map<std::string, std::string>& bound_where) {
  if (name.empty()) return absl::OkStatus();
  auto [it, inserted] = bound.emplace(name, size);
  if (inserted) {
    bound_where[name] = where;
    return absl::OkStatus();
  }
  if (it->second == size) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "symbolic dimension '", name, "' is ", it->second, " for ", bound_where[name],
      " but ", size, " for ", where,
      "; inputs that share a dimension name must have the same size there"));
}

// Every input's shape: the given ones checked against the declarations,
// then the rest from the symbols they bound, `batch` and the fixed sizes.
absl::StatusOr<std::vector<Shape>> ResolveShapes(
    absl::Span<const OnnxValueInfo> declared, const std::map<int, GivenShape>& given,
    std::optional<int64_t> batch) {
  std::map<std::string, int64_t> bound;
  std::map<std::string, std::string> bound_where;
  std::vector<Shape> shapes(declared.size());
  for (const auto& [i, g] : given) {
    const OnnxValueInfo& in = declared[i];
    shapes[i] = g.shape;
    if (!in.has_shape) continue;
    if (g.shape.rank() != static_cast<int>(in.dims.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          g.from, ": input ", in.ToString(), " has rank ", in.dims.size(),
          ", the shape given, ", g.shape.ToString(), ", has rank ", g.shape.rank(),
          g.strict ? absl::StrCat("; save an array of rank ", in.dims.size(),
                                  ", e.g. of shape [",
                                  absl::StrJoin(absl::StrSplit(ExampleShape(in, bound), 'x'), ", "),
                                  "]")
                   : absl::StrCat("; give e.g. ", ExampleFlag(in, bound))));
    }
    const std::string where = absl::StrCat("input '", in.name, "' (", g.from, " ",
                                           g.shape.ToString(), ")");
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const int64_t size = g.shape.dim(static_cast<int>(d));
      if (in.dims[d].has_value()) {
        if (g.strict && *in.dims[d] != size) {
          return absl::InvalidArgumentError(absl::StrCat(
              g.from, ": input ", in.ToString(), ": dimension ", d, " is fixed at ",
              *in.dims[d], " in the model, the array has ", size, " (shape ",
              g.shape.ToString(), "); save an array of the declared shape, or "
              "export the model with that dimension symbolic (dynamic_axes)"));
        }
        continue;
      }
      SY_RETURN_IF_ERROR(Bind(SymbolName(in, d), size, where, bound, bound_where));
    }
  }
  for (size_t i = 0; i < declared.size(); ++i) {
    if (given.count(static_cast<int>(i))) continue;
    const OnnxValueInfo& in = declared[i];
    if (!in.has_shape) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", in.name, "' has no declared shape; give its whole shape "
          "with --input_shape=", in.name, ":DIMS (e.g. ", in.name, ":2x3) or "
          "its data with --input"));
    }
    std::vector<int64_t> dims;
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const std::string symbol = SymbolName(in, d);
      auto it = bound.find(symbol);
      std::string where =
          absl::StrCat("input '", in.name, "' (dimension ", d, ")");
      int64_t size = 0;
      if (d == 0 && batch.has_value()) {
        size = *batch;
        where = absl::StrCat("input '", in.name, "' (--batch=", *batch, ")");
      } else if (in.dims[d].has_value()) {
        size = *in.dims[d];
      } else if (!symbol.empty() && it != bound.end()) {
        size = it->second;
      } else if (d == 0) {
        size = 1;  // a symbolic batch: one sample
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", in.ToString(), ": dimension ", d,
            symbol.empty() ? "" : absl::StrCat(" ('", symbol, "')"),
            " is symbolic and nothing gives its size; give the input's shape "
            "with ", ExampleFlag(in, bound), " (for example), or its data with "
            "--input"));
      }
      if (!in.dims[d].has_value()) {
        SY_RETURN_IF_ERROR(Bind(symbol, size, where, bound, bound_where));
      }
      dims.push_back(size);
    }
    absl::StatusOr<Shape> shape = Shape::Create(dims, DTypeSize(in.dtype));
    if (!shape.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", in.ToString(), ": ", shape.status().message()));
    }
    shapes[i] = *shape;
  }
  return shapes;
}

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return int64_t{1} << 40;
  return static_cast<int64_t>(pages) * page;
}

// ResourceExhausted, before anything is allocated, when the inputs and the
// activations they imply cannot fit in this machine's memory.
absl::Status CheckFitsMemory(absl::Span<const OnnxValueInfo> declared,
                             absl::Span<const Shape> shapes) {
  double bytes = 0;
  std::vector<std::string> listed;
  for (size_t i = 0; i < shapes.size(); ++i) {
    bytes += static_cast<double>(shapes[i].num_elements()) * DTypeSize(declared[i].dtype);
    listed.push_back(absl::StrCat(declared[i].name, " ", shapes[i].ToString()));
  }
  const double memory = static_cast<double>(PhysicalMemoryBytes());
  if (bytes * kActivationFactor <= memory) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrFormat(
      "inputs %s hold %.1f GiB; with the activations computed from them (about "
      "%.0f times the inputs) that is more than this machine's %.1f GiB of "
      "memory; give smaller shapes (--input_shape, --batch)",
      absl::StrJoin(listed, ", "), bytes / (1 << 30), kActivationFactor,
      memory / (1 << 30)));
}

// Which file feeds each declared input: one per input, in order or as
// name=path (not mixed).
absl::StatusOr<std::vector<std::string>> AssignFiles(
    absl::Span<const OnnxValueInfo> declared, const InputRequest& request) {
  const std::vector<std::string> parts = SplitList(request.files);
  const std::string usage = absl::StrCat(
      "the model takes ", declared.size(), " input", declared.size() == 1 ? "" : "s",
      " (", DescribeInputs(declared), "): give one .npy per input, in this order "
      "(--input=a.npy,b.npy) or by name (--input=",
      declared.empty() ? "x" : declared[0].name, "=a.npy,...)");
  std::vector<std::string> paths(declared.size());
  std::vector<std::string> positional;
  bool named = false;
  for (const std::string& part : parts) {
    const size_t eq = part.find('=');
    const std::string path = request.resolve_path(part);
    if (eq == std::string::npos || IsFile(path)) {
      positional.push_back(path);
      continue;
    }
    const std::string name = part.substr(0, eq);
    const int index = FindInput(declared, name);
    if (index < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input=", part, ": the model has no input '", name, "'; its inputs: ",
          DescribeInputs(declared)));
    }
    if (!paths[index].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input gives input '", name, "' twice (", paths[index], " and ",
          part.substr(eq + 1), "); give one file per input"));
    }
    paths[index] = request.resolve_path(part.substr(eq + 1));
    named = true;
  }
  if (named && !positional.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input mixes files by name and by position (", positional[0],
        "); name all of them or none: ", usage));
  }
  if (!named) {
    if (positional.size() != declared.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input gives ", positional.size(), " file",
          positional.size() == 1 ? "" : "s", " but ", usage));
    }
    return positional;
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < declared.size(); ++i) {
    if (paths[i].empty()) missing.push_back(declared[i].ToString());
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input gives no file for ", absl::StrJoin(missing, ", "), "; ", usage));
  }
  return paths;
}

}  // namespace

absl::StatusOr<Shape> ParseShapeDims(absl::string_view text, absl::string_view value) {
  std::vector<int64_t> dims;
  for (absl::string_view part : absl::StrSplit(text, 'x')) {
    int64_t d = 0;
    if (!absl::SimpleAtoi(part, &d) || d < 1 || d > (int64_t{1} << 31)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input_shape wants NAME:DIMS or DIMS, dimensions >= 1 joined by "
          "'x', e.g. input:1x3x224x224; got '", value, "'"));
    }
    dims.push_back(d);
  }
  absl::StatusOr<Shape> shape = Shape::Create(dims);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--input_shape=", value, ": ", shape.status().message()));
  }
  return *shape;
}

std::string DescribeInputs(absl::Span<const OnnxValueInfo> declared) {
  if (declared.empty()) return "no inputs";
  std::vector<std::string> parts;
  for (const OnnxValueInfo& in : declared) parts.push_back(in.ToString());
  return absl::StrJoin(parts, ", ");
}

absl::StatusOr<std::vector<std::string>> InputFilePaths(
    absl::Span<const OnnxValueInfo> declared, const InputRequest& request) {
  return AssignFiles(declared, request);
}

absl::StatusOr<std::vector<Shape>> InputShapes(
    absl::Span<const OnnxValueInfo> declared, const InputRequest& request) {
  SY_ASSIGN_OR_RETURN(auto given, ParseInputShapes(declared, request.shapes));
  if (request.batch_overrides_shapes && request.batch.has_value()) {
    for (auto& [index, g] : given) {
      if (g.shape.rank() == 0) continue;
      std::vector<int64_t> dims = g.shape.dims();
      dims[0] = *request.batch;
      g.shape = Shape(dims);
    }
  }
  SY_ASSIGN_OR_RETURN(std::vector<Shape> shapes,
                      ResolveShapes(declared, given, request.batch));
  SY_RETURN_IF_ERROR(CheckFitsMemory(declared, shapes));
  return shapes;
}

absl::StatusOr<InputArrays> MakeInputArrays(
    absl::Span<const OnnxValueInfo> declared, const InputRequest& request) {
  InputArrays result;
  if (request.files.empty()) {
    SY_ASSIGN_OR_RETURN(std::vector<Shape> shapes, InputShapes(declared, request));
    std::mt19937_64 rng(request.seed + 1);
    for (size_t i = 0; i < declared.size(); ++i) {
      result.arrays.push_back(SeededArray(shapes[i], declared[i].dtype, rng));
      result.sources.push_back("seeded");
    }
    return result;
  }
  if (!SplitList(request.shapes).empty()) {
    return absl::InvalidArgumentError(
        "--input_shape and --input were both given: the shapes come from the "
        "--input files; drop --input_shape");
  }
  if (request.batch.has_value()) {
    return absl::InvalidArgumentError(
        "--batch and --input were both given: the batch is the first dimension "
        "of the --input arrays; drop --batch (or --input for a seeded batch)");
  }
  SY_ASSIGN_OR_RETURN(std::vector<std::string> paths, AssignFiles(declared, request));
  std::map<int, GivenShape> given;
  for (size_t i = 0; i < declared.size(); ++i) {
    const OnnxValueInfo& in = declared[i];
    SY_ASSIGN_OR_RETURN(HostArray array, ReadNpy(paths[i]));
    if (array.dtype != in.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input=", paths[i], ": input ", in.ToString(), " is ",
          DTypeName(in.dtype), " but the file holds ", DTypeName(array.dtype),
          "; save it as ", DTypeName(in.dtype), ": np.save(path, x.astype(np.",
          NumpyName(in.dtype), "))"));
    }
    given[static_cast<int>(i)] = {array.shape, absl::StrCat("--input=", paths[i]), true};
    result.arrays.push_back(std::move(array));
    result.sources.push_back(paths[i]);
  }
  SY_ASSIGN_OR_RETURN(std::vector<Shape> shapes, ResolveShapes(declared, given, std::nullopt));
  SY_RETURN_IF_ERROR(CheckFitsMemory(declared, shapes));
  return result;
}

}  // namespace runtime
}  // namespace switchyard
