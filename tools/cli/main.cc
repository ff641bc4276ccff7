// switchyard: the command line.
//
//   switchyard devices
//   switchyard run --model=vgg11 [--weights=W.safetensors] [--input=X.npy | --batch=N]
//                  [--output=Y.npy] [--device=cpu] [--warmup=N] [--iterations=N]
//                  [--report=R.json] [--threads=T]
//   every command: [--backend_option=TYPE.KEY=VALUE ...] [--plugin=P.so ...]
//   switchyard graph --model=vgg11 [--format=text|dot] [--device=cpu] [--batch=N]
//   switchyard bench --model=vgg11 [--devices=cpu,cuda:0] [--batch=1,8,32]
//                    [--warmup=N] [--iterations=N] [--json=F] [--markdown=F]
//
// Flag names may be written with dashes or underscores (--loader-threads or
// --loader_threads); Abseil knows the underscore spelling.

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "core/backend_registry.h"
#include "core/plugin_loader.h"
#include "tools/cli/commands.h"
#include "tools/cli/flags.h"

namespace {

constexpr char kUsage[] =
    "switchyard COMMAND [flags]\n"
    "commands:\n"
    "  devices   list every backend and its devices (or why it has none)\n"
    "  run       run a model: top-5 and forward time (--model --weights --input\n"
    "            --batch --output --device --warmup --iterations --report --threads)\n"
    "  graph     print the placed graph IR (--model --format=text|dot --device --batch)\n"
    "  bench     time a model on every device: forward, copies, end to end\n"
    "            (--model --devices --batch=1,8 --warmup --iterations --json\n"
    "            --markdown --threads)\n"
    "backend options: --backend_option=TYPE.KEY=VALUE (repeatable), e.g.\n"
    "  cpu.threads=2 or cpu.fusion=off; --threads=N is cpu.threads=N;\n"
    "  `switchyard devices` lists them\n"
    "plugins: --plugin=PATH.so (repeatable) and SWITCHYARD_PLUGIN_PATH load\n"
    "  backends at start, e.g. --plugin=bazel-bin/backends/reference/"
    "libswitchyard_ref_plugin.so\n"
    "Try: switchyard run --model=vgg11 --batch=1\n";

// Plugins from SWITCHYARD_PLUGIN_PATH, then from --plugin, into `registry`.
absl::Status LoadPlugins(switchyard::BackendRegistry& registry) {
  absl::StatusOr<std::vector<switchyard::LoadedPlugin>> from_env =
      switchyard::LoadPluginsFromEnv(registry);
  if (!from_env.ok()) return from_env.status();
  for (const std::string& path : switchyard::cli::PluginFlagPaths()) {
    absl::StatusOr<switchyard::LoadedPlugin> loaded = switchyard::LoadPlugin(
        switchyard::cli::ResolveUserPath(path), registry);
    if (!loaded.ok()) return loaded.status();
  }
  return absl::OkStatus();
}

// "--loader-threads=2" -> "--loader_threads=2", in place (same length);
// values and everything after a bare "--" are left alone.
void NormalizeFlagNames(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    char* arg = argv[i];
    if (arg[0] != '-' || arg[1] != '-') continue;
    if (arg[2] == '\0') return;
    for (char* c = arg + 2; *c != '\0' && *c != '='; ++c) {
      if (*c == '-') *c = '_';
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(kUsage);
  NormalizeFlagNames(argc, argv);
  switchyard::cli::RecordGivenFlags(argc, argv);
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  const std::string command = args[1];
  switchyard::BackendRegistry& registry = switchyard::BackendRegistry::Global();
  absl::Status status = LoadPlugins(registry);
  if (!status.ok()) {
    std::fprintf(stderr, "switchyard: cannot load plugins: %s: %s\n",
                 absl::StatusCodeToString(status.code()).c_str(),
                 std::string(status.message()).c_str());
    return 1;
  }
  using Command = absl::Status (*)(switchyard::BackendRegistry&);
  const std::map<std::string, Command> commands = {
      {"devices", &switchyard::cli::DevicesCommand},
      {"run", &switchyard::cli::RunCommand},
      {"graph", &switchyard::cli::GraphCommand},
      {"bench", &switchyard::cli::BenchCommand},
  };
  auto found = commands.find(command);
  if (found == commands.end()) {
    std::fprintf(stderr, "unknown command '%s'\n\n%s", command.c_str(), kUsage);
    return 2;
  }
  // Backend options (plugins' included) before any command compiles a kernel.
  status = switchyard::cli::ApplyBackendOptionFlags(registry);
  if (status.ok()) status = found->second(registry);
  if (!status.ok()) {
    std::fprintf(stderr, "switchyard %s: %s: %s\n", command.c_str(),
                 absl::StatusCodeToString(status.code()).c_str(),
                 std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
