#include "backends/cuda/cuda_kernel_registry.h"

#include <map>

namespace switchyard {
namespace cuda {
namespace {

// Filled during static initialization only, read afterwards: no lock needed.
std::map<std::string, CudaKernelEntry>& Table() {
  static auto* table = new std::map<std::string, CudaKernelEntry>();
  return *table;
}

}  // namespace

bool RegisterCudaKernel(const std::string& op, CudaKernelEntry entry) {
  return Table().emplace(op, std::move(entry)).second;
}

const CudaKernelEntry* FindCudaKernel(const std::string& op) {
  auto it = Table().find(op);
  return it == Table().end() ? nullptr : &it->second;
}

std::vector<std::string> CudaKernelOps() {
  std::vector<std::string> ops;
  for (const auto& [op, entry] : Table()) ops.push_back(op);
  return ops;
}

}  // namespace cuda
}  // namespace switchyard
