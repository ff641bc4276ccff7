#include "tools/cli/flags.h"

#include <cstdlib>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, model, "vgg11", "model name (vgg11, vgg13, vgg16, vgg19)");
ABSL_FLAG(std::string, weights, "",
          ".safetensors file with the model's parameters (torchvision names); "
          "empty: seeded initialisation (see --seed)");
ABSL_FLAG(std::string, input, "",
          ".npy float32 input [N, 3, H, W]; empty: a seeded random batch of "
          "--batch images of 224x224");
ABSL_FLAG(std::string, output, "", ".npy file to write the output to");
ABSL_FLAG(std::string, report, "", "JSON file to write the run's report to");
ABSL_FLAG(std::string, device, "cpu", "device to run on, e.g. cpu, cuda:0");
ABSL_FLAG(std::string, format, "text", "graph output format: text or dot");
ABSL_FLAG(int64_t, batch, 1, "batch size when no --input is given");
ABSL_FLAG(int32_t, warmup, 1, "untimed forward passes before timing");
ABSL_FLAG(int32_t, iterations, 5, "timed forward passes");
ABSL_FLAG(int32_t, threads, 0, "CPU threads (0: all cores, or SWITCHYARD_CPU_THREADS)");
ABSL_FLAG(uint64_t, seed, 0, "seed of the initialisation and of random input");

namespace switchyard {
namespace cli {

std::string ResolveUserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (cwd == nullptr || *cwd == '\0') return path;
  return absl::StrCat(cwd, "/", path);
}

}  // namespace cli
}  // namespace switchyard
