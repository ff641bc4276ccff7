#include "backends/cpu/cpu_kernel_registry.h"

#include <map>

namespace switchyard {
namespace cpu {
namespace {

// Filled during static initialization only, read afterwards: no lock needed.
std::map<std::string, CpuKernelFactory>& Table() {
  static auto* table = new std::map<std::string, CpuKernelFactory>();
  return *table;
}

}  // namespace

bool RegisterCpuKernel(const std::string& op, CpuKernelFactory factory) {
  return Table().emplace(op, std::move(factory)).second;
}

const CpuKernelFactory* FindCpuKernel(const std::string& op) {
  auto it = Table().find(op);
  return it == Table().end() ? nullptr : &it->second;
}

std::vector<std::string> CpuKernelOps() {
  std::vector<std::string> ops;
  for (const auto& [op, factory] : Table()) ops.push_back(op);
  return ops;
}

}  // namespace cpu
}  // namespace switchyard
