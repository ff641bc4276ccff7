#ifndef SWITCHYARD_CORE_KERNEL_REGISTRY_H_
#define SWITCHYARD_CORE_KERNEL_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/backend.h"
#include "core/dtype.h"
#include "core/graph.h"

namespace switchyard {

// The dtype a node's kernel is chosen by: its first operand's (an op with
// no operands: its first output's). Ops whose outputs differ from their
// inputs (Cast, comparisons) check the rest in their `supports` predicate.
DType KernelDType(const Node& node, const Graph& graph);

// "relu (float32)".
std::string KernelKeyName(const std::string& op, DType dtype);

// One backend's kernels keyed by (op, dtype), as ONNX Runtime's kernel
// registry: each entry has an optional `supports` predicate (OK, or
// Unimplemented with the reason, e.g. "cuDNN is not loaded") and a factory.
// Every backend (cpu, cuda, reference, plugins) keeps one registry for its
// device class `DeviceT` and fills it from the kernels' own files, so adding
// an op to a backend is one kernel file plus one BUILD line:
//
//   // backends/cpu/kernels/relu.cc
//   SY_REGISTER_KERNEL(CpuKernels(), "relu", DType::kFloat32,
//                      [](const Node& node, const Graph& graph, CpuDevice& d)
//                          -> absl::StatusOr<std::unique_ptr<Kernel>> { ... });
//
//   // the backend's BackendDevice
//   absl::Status Supports(const Node& n, const Graph& g) const override {
//     return CpuKernels().Supports(n, g, "cpu");
//   }
//
// Registration happens during static initialization and lookups after it,
// so the table needs no lock. A plugin's registry lives in the plugin (its
// own copy of the backend's code), never in the host.
template <typename DeviceT>
class KernelRegistry {
 public:
  using SupportsFn = std::function<absl::Status(const Node&, const Graph&)>;
  using Factory = std::function<absl::StatusOr<std::unique_ptr<Kernel>>(
      const Node&, const Graph&, DeviceT&)>;
  struct Entry {
    SupportsFn supports;  // null: every node of the op and dtype
    Factory create;
  };

  // False (and nothing changes) when (op, dtype) is taken.
  bool Register(const std::string& op, DType dtype, SupportsFn supports,
                Factory create) {
    return table_
        .emplace(std::make_pair(op, dtype),
                 Entry{std::move(supports), std::move(create)})
        .second;
  }
  bool Register(const std::string& op, DType dtype, Factory create) {
    return Register(op, dtype, nullptr, std::move(create));
  }

  // Null when there is no kernel for (op, dtype).
  const Entry* Find(const std::string& op, DType dtype) const {
    auto it = table_.find(std::make_pair(op, dtype));
    return it == table_.end() ? nullptr : &it->second;
  }

  // Capability: OK, or Unimplemented naming the op, its dtype, the node,
  // `backend` ("cpu") and what the backend does run for that op (or that it
  // lacks the op altogether, with the ops it has).
  absl::Status Supports(const Node& node, const Graph& graph,
                        const std::string& backend) const {
    const DType dtype = KernelDType(node, graph);
    const Entry* entry = Find(node.op, dtype);
    if (entry == nullptr) return Missing(node, dtype, backend);
    if (entry->supports) {
      absl::Status status = entry->supports(node, graph);
      if (!status.ok()) {
        return absl::UnimplementedError(absl::StrCat(
            "the ", backend, " backend cannot run node '", node.name, "' (",
            KernelKeyName(node.op, dtype), "): ", status.message()));
      }
    }
    return absl::OkStatus();
  }

  // The kernel for `node`, after Supports.
  absl::StatusOr<std::unique_ptr<Kernel>> Create(const Node& node,
                                                 const Graph& graph,
                                                 DeviceT& device,
                                                 const std::string& backend) const {
    absl::Status supported = Supports(node, graph, backend);
    if (!supported.ok()) return supported;
    return Find(node.op, KernelDType(node, graph))->create(node, graph, device);
  }

  // Every registered (op, dtype), sorted: what the conformance suite runs.
  std::vector<std::pair<std::string, DType>> Keys() const {
    std::vector<std::pair<std::string, DType>> keys;
    for (const auto& [key, entry] : table_) keys.push_back(key);
    return keys;
  }

  // The dtypes registered for `op`, in DType order.
  std::vector<DType> DTypesOf(const std::string& op) const {
    std::vector<DType> dtypes;
    for (const auto& [key, entry] : table_) {
      if (key.first == op) dtypes.push_back(key.second);
    }
    return dtypes;
  }

 private:
  absl::Status Missing(const Node& node, DType dtype,
                       const std::string& backend) const {
    std::vector<DType> dtypes = DTypesOf(node.op);
    if (dtypes.empty()) {
      std::vector<std::string> ops;
      for (const auto& [key, entry] : table_) {
        if (ops.empty() || ops.back() != key.first) ops.push_back(key.first);
      }
      return absl::UnimplementedError(absl::StrCat(
          "the ", backend, " backend has no kernel for op '", node.op,
          "' (node '", node.name, "'); it runs: ", absl::StrJoin(ops, ", ")));
    }
    std::vector<std::string> names;
    for (DType d : dtypes) names.push_back(DTypeName(d));
    return absl::UnimplementedError(absl::StrCat(
        "the ", backend, " backend has no ", DTypeName(dtype), " kernel for op '",
        node.op, "' (node '", node.name, "'); it runs ", node.op, " in: ",
        absl::StrJoin(names, ", "),
        ". Cast the operands, or place the node on a device that has one "
        "(--placement=auto falls back to the CPU)"));
  }

  std::map<std::pair<std::string, DType>, Entry> table_;
};

// Registers one kernel per element type: `make(TypeTag<T>{})` returns the
// factory for T, registered as (op, DTypeOf<T>()). False when any key was
// taken. Most callers use SY_REGISTER_KERNEL_FOR_TYPES below.
template <typename T>
struct TypeTag {
  using type = T;
};
template <typename... Ts, typename DeviceT, typename MakeFactory>
bool RegisterForTypes(KernelRegistry<DeviceT>& registry, const std::string& op,
                      MakeFactory make) {
  bool ok = true;
  ((ok &= registry.Register(op, DTypeOf<Ts>(), make(TypeTag<Ts>{}))), ...);
  return ok;
}

#define SY_KERNEL_CONCAT_INNER(a, b) a##b
#define SY_KERNEL_CONCAT(a, b) SY_KERNEL_CONCAT_INNER(a, b)

// Registers a kernel from its own file at static initialization:
//   SY_REGISTER_KERNEL(registry_expr, "op", DType::kFloat32, factory);
//   SY_REGISTER_KERNEL(registry_expr, "op", DType::kFloat32, supports, factory);
// The library must be alwayslink (or linked into a plugin .so whole).
#define SY_REGISTER_KERNEL(registry, ...)                              \
  [[maybe_unused]] static const bool SY_KERNEL_CONCAT(                 \
      sy_kernel_registered_, __COUNTER__) = (registry).Register(__VA_ARGS__)

// Registers the function template `factory<T>` for each element type T:
//   SY_REGISTER_KERNEL_FOR_TYPES(CpuKernels(), "abs", MakeAbs, float, int64_t);
// registers &MakeAbs<float> as (abs, float32) and &MakeAbs<int64_t> as
// (abs, int64). A factory with template arguments of its own is registered
// with RegisterForTypes and a lambda that names them.
#define SY_REGISTER_KERNEL_FOR_TYPES(registry, op, factory, ...)   \
  [[maybe_unused]] static const bool SY_KERNEL_CONCAT(             \
      sy_kernel_registered_, __COUNTER__) =                        \
      ::switchyard::RegisterForTypes<__VA_ARGS__>(                 \
          (registry), (op), [](auto tag) {                         \
            return &factory<typename decltype(tag)::type>;         \
          })

// Registers one factory under each of `dtypes` (every dtype by default), for
// kernels that move elements without reading them (transpose, pad, the
// identity of flatten and dropout): one kernel serves every dtype by element
// size. False when any key was taken. Most callers use
// SY_REGISTER_KERNEL_FOR_DTYPES below.
template <typename DeviceT>
bool RegisterForDTypes(KernelRegistry<DeviceT>& registry, const std::string& op,
                       const typename KernelRegistry<DeviceT>::Factory& make,
                       const std::vector<DType>& dtypes = AllDTypes()) {
  bool ok = true;
  for (DType dtype : dtypes) ok &= registry.Register(op, dtype, make);
  return ok;
}

// The factory of a kernel built from its node's typed attributes and its
// device, `K(Attrs, DeviceT&)`, with Attrs::FromAttrMap's error when the
// attributes are bad:
//   SY_REGISTER_KERNEL_FOR_DTYPES(CpuKernels(), "pad",
//                                 &MakeKernelWithAttrs<PadKernel, PadAttrs>);
template <typename K, typename Attrs, typename DeviceT>
absl::StatusOr<std::unique_ptr<Kernel>> MakeKernelWithAttrs(const Node& node,
                                                            const Graph&,
                                                            DeviceT& device) {
  absl::StatusOr<Attrs> attrs = Attrs::FromAttrMap(node.attrs);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<K>(*std::move(attrs), device);
}

// The factory of a kernel built from its device alone, `K(DeviceT&)`.
template <typename K, typename DeviceT>
absl::StatusOr<std::unique_ptr<Kernel>> MakeKernel(const Node&, const Graph&,
                                                   DeviceT& device) {
  return std::make_unique<K>(device);
}

// Registers `factory` for each dtype (a list of DType values, or none for
// every dtype) at static initialization:
//   SY_REGISTER_KERNEL_FOR_DTYPES(CpuKernels(), "transpose", &MakeTranspose);
//   SY_REGISTER_KERNEL_FOR_DTYPES(RefKernels(), "dropout", &MakeCopy,
//                                 {DType::kFloat32, DType::kFloat64});
#define SY_REGISTER_KERNEL_FOR_DTYPES(registry, op, ...)           \
  [[maybe_unused]] static const bool SY_KERNEL_CONCAT(             \
      sy_kernel_registered_, __COUNTER__) =                        \
      ::switchyard::RegisterForDTypes((registry), (op), __VA_ARGS__)

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_KERNEL_REGISTRY_H_
