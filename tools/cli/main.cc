// switchyard: the command line.
//
//   switchyard devices
//   switchyard run --model=vgg11 [--weights=W.safetensors] [--input=X.npy | --batch=N]
//                  [--output=Y.npy] [--device=cpu] [--warmup=N] [--iterations=N]
//                  [--report=R.json] [--threads=T]
//   switchyard graph --model=vgg11 [--format=text|dot] [--device=cpu] [--batch=N]

#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "core/backend_registry.h"
#include "tools/cli/commands.h"

namespace {

constexpr char kUsage[] =
    "switchyard COMMAND [flags]\n"
    "commands:\n"
    "  devices   list every backend and its devices (or why it has none)\n"
    "  run       run a model: top-5 and forward time (--model --weights --input\n"
    "            --batch --output --device --warmup --iterations --report --threads)\n"
    "  graph     print the placed graph IR (--model --format=text|dot --device --batch)\n"
    "Try: switchyard run --model=vgg11 --batch=1\n";

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  const std::string command = args[1];
  switchyard::BackendRegistry& registry = switchyard::BackendRegistry::Global();
  absl::Status status;
  if (command == "devices") {
    status = switchyard::cli::DevicesCommand(registry);
  } else if (command == "run") {
    status = switchyard::cli::RunCommand(registry);
  } else if (command == "graph") {
    status = switchyard::cli::GraphCommand(registry);
  } else {
    std::fprintf(stderr, "unknown command '%s'\n\n%s", command.c_str(), kUsage);
    return 2;
  }
  if (!status.ok()) {
    std::fprintf(stderr, "switchyard %s: %s: %s\n", command.c_str(),
                 absl::StatusCodeToString(status.code()).c_str(),
                 std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
