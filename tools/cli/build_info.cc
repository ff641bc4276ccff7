#include "tools/cli/build_info.h"

#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/version.h"
#include "runtime/mpi_world.h"

// The commit, from Bazel's workspace status (tools/cli:build_stamp).
#include "tools/cli/build_stamp.h"
#ifndef SWITCHYARD_GIT_COMMIT
#define SWITCHYARD_GIT_COMMIT "unknown"
#endif

namespace switchyard {
namespace cli {

using runtime::MpiBuilt;
using runtime::MpiMissingReason;

namespace {

std::string TargetCpu() {
  std::vector<std::string> features;
#if defined(__x86_64__)
  features.push_back("x86-64");
#elif defined(__aarch64__)
  features.push_back("aarch64");
#endif
#ifdef __AVX512F__
  features.push_back("avx512f");
#endif
#ifdef __AVX2__
  features.push_back("avx2");
#endif
#ifdef __FMA__
  features.push_back("fma");
#endif
#ifdef __F16C__
  features.push_back("f16c");
#endif
  return absl::StrJoin(features, " ");
}

std::string Cuda(BackendRegistry& registry) {
  absl::StatusOr<Backend*> cuda = registry.GetBackend("cuda");
  if (!cuda.ok()) return absl::StrCat("no (", cuda.status().message(), ")");
  const int count = (*cuda)->DeviceCount();
  if (count == 0) return absl::StrCat("no devices (", (*cuda)->UnavailableReason(), ")");
  return absl::StrCat("yes (", count, count == 1 ? " device)" : " devices)");
}

}  // namespace

nlohmann::json BuildInfoJson(BackendRegistry& registry) {
  return {
      {"version", kVersion},
      {"git_commit", SWITCHYARD_GIT_COMMIT},
#ifdef NDEBUG
      {"build_mode", "opt"},
#else
      {"build_mode", "dbg"},
#endif
      {"cuda", Cuda(registry)},
      {"mpi", MpiBuilt() ? std::string("yes (mpirun -np N switchyard ...)")
                         : absl::StrCat("no (", MpiMissingReason(), ")")},
      {"target_cpu", TargetCpu()},
  };
}

std::string BuildInfoText(BackendRegistry& registry) {
  const nlohmann::json info = BuildInfoJson(registry);
  return absl::StrCat("switchyard ", info["version"].get<std::string>(),
                      "\ngit commit: ", info["git_commit"].get<std::string>(),
                      "\nbuild mode: ", info["build_mode"].get<std::string>(),
                      "\nCUDA: ", info["cuda"].get<std::string>(),
                      "\nMPI: ", info["mpi"].get<std::string>(),
                      "\ntarget CPU: ", info["target_cpu"].get<std::string>(), "\n");
}

nlohmann::json MachineJson() {
  std::string model = "unknown";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (absl::StartsWith(line, "model name")) {
      model = std::string(absl::StripAsciiWhitespace(line.substr(line.find(':') + 1)));
      break;
    }
  }
  nlohmann::json machine = {{"cpu_model", model},
                            {"cores", std::thread::hardware_concurrency()}};
  double load[3];
  if (getloadavg(load, 3) == 3) machine["load_average"] = {load[0], load[1], load[2]};
  return machine;
}

}  // namespace cli
}  // namespace switchyard
