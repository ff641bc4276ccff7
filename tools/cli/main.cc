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
//   mpirun -np N switchyard run|bench ...: one rank per device, merged by
//                    rank 0 (tools/cli/rank_command.h, docs/scaling.md)
//
// Flag names may be written with dashes or underscores (--loader-threads or
// --loader_threads); Abseil knows the underscore spelling.
//
// `switchyard help [COMMAND]`, `COMMAND --help` and `-h` print the command's
// flags grouped with its defaults (CommandHelp in flags.cc, which also knows
// which commands take each flag: a flag given to a command that does not take
// it is a usage error, exit 2). `--version`: tools/cli/build_info.h.
// Every command's errors are printed as "switchyard CMD: CODE: message",
// exit 1; std::bad_alloc and std::system_error become ResourceExhausted.

#include <algorithm>
#include <cstdio>
#include <new>
#include <system_error>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/backend_registry.h"
#include "core/near_miss.h"
#include "core/plugin_discovery.h"
#include "core/plugin_loader.h"
#include "runtime/mpi_world.h"
#include "tools/cli/build_info.h"
#include "tools/cli/commands.h"
#include "tools/cli/error_fixes.h"
#include "tools/cli/flags.h"
#include "tools/cli/rank_command.h"

namespace {

// Plugins from SWITCHYARD_PLUGIN_PATH, then from --plugin, into `registry`;
// then the ones beside the binary (core/plugin_discovery.h: never an
// error; a type already loaded by the first two is skipped).
absl::Status LoadPlugins(switchyard::BackendRegistry& registry) {
  absl::StatusOr<std::vector<switchyard::LoadedPlugin>> from_env =
      switchyard::LoadPluginsFromEnv(registry);
  if (!from_env.ok()) return from_env.status();
  for (const std::string& path : switchyard::cli::PluginFlagPaths()) {
    absl::StatusOr<switchyard::LoadedPlugin> loaded = switchyard::LoadPlugin(
        switchyard::cli::ResolveUserPath(path), registry);
    if (!loaded.ok()) return loaded.status();
  }
  switchyard::DiscoverPlugins(
      switchyard::PluginFoldersBeside(switchyard::RunningExecutable()), registry);
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

// `switchyard help [COMMAND]`, `COMMAND --help`, `-h`, `--version`: answered
// before Abseil parses (which knows neither -h nor per-command help).
// Returns -1 when the command line asks for neither.
int HelpOrVersion(int argc, char** argv) {
  std::string command;
  bool help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg == "--version" || arg == "-version") {
      std::printf("%s", switchyard::cli::BuildInfoText(
                            switchyard::BackendRegistry::Global())
                            .c_str());
      return 0;
    }
    if (arg == "-h" || arg == "--help" || arg == "-help" || arg == "--h") {
      help = true;
    } else if (arg[0] != '-') {
      if (arg == "help" && command.empty()) {
        help = true;
      } else if (command.empty() || command == "help") {
        command = arg;
      }
    }
  }
  if (!help) return -1;
  if (command == "help") command.clear();
  if (!command.empty() && !switchyard::cli::IsCommand(command)) {
    std::fprintf(stderr, "unknown command '%s'\n\n%s", command.c_str(),
                 switchyard::cli::CommandHelp("").c_str());
    return 2;
  }
  std::printf("%s", switchyard::cli::CommandHelp(command).c_str());
  return 0;
}

// "--inputs=x.npy": the flag the user probably meant, before Abseil
// refuses the unknown one without a suggestion. Returns 0 when every flag
// is known or has no near miss (Abseil then reports what is left).
int SuggestForUnknownFlags(int argc, char** argv) {
  std::vector<std::string> names;
  for (const auto& [name, flag] : absl::GetAllFlags()) names.push_back(std::string(name));
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (!absl::StartsWith(arg, "--") || arg.size() == 2) continue;
    const absl::string_view name = arg.substr(2, arg.find('=') - 2);
    if (absl::FindCommandLineFlag(name) != nullptr) continue;
    // --noflag is Abseil's false for a boolean --flag.
    if (absl::StartsWith(name, "no") && absl::FindCommandLineFlag(name.substr(2)) != nullptr) {
      continue;
    }
    std::string meant = switchyard::NearestName(name, names);
    if (meant.empty()) continue;
    std::replace(meant.begin(), meant.end(), '_', '-');
    std::fprintf(stderr,
                 "switchyard: unknown flag --%s; did you mean --%s? (`switchyard help "
                 "COMMAND` lists a command's flags)\n",
                 std::string(name).c_str(), meant.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("switchyard COMMAND [flags]; `switchyard help`");
  NormalizeFlagNames(argc, argv);
  if (const int code = HelpOrVersion(argc, argv); code >= 0) return code;
  // `devices --json` (no value): JSON on stdout.
  std::vector<std::string> storage(argv, argv + argc);
  for (std::string& arg : storage) {
    if (arg == "--json") arg = "--json=-";
  }
  std::vector<char*> rewritten;
  for (std::string& arg : storage) rewritten.push_back(arg.data());
  rewritten.push_back(nullptr);
  argc = static_cast<int>(storage.size());
  argv = rewritten.data();
  switchyard::cli::RecordGivenFlags(argc, argv);
  if (const int code = SuggestForUnknownFlags(argc, argv); code != 0) return code;
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2) {
    std::fprintf(stderr, "%s%s",
                 args.size() < 2 ? "" : "give one command\n\n",
                 switchyard::cli::CommandHelp("").c_str());
    return 2;
  }
  const std::string command = args[1];
  using Command = absl::Status (*)(switchyard::BackendRegistry&);
  const std::map<std::string, Command> commands = {
      {"devices", &switchyard::cli::DevicesCommand},
      {"run", &switchyard::cli::RunCommand},
      {"graph", &switchyard::cli::GraphCommand},
      {"bench", &switchyard::cli::BenchCommand},
  };
  auto found = commands.find(command);
  if (found == commands.end()) {
    std::fprintf(stderr, "unknown command '%s'\n\n%s", command.c_str(),
                 switchyard::cli::CommandHelp("").c_str());
    return 2;
  }
  absl::Status status = switchyard::cli::CheckFlagsApply(command);
  if (!status.ok()) {
    std::fprintf(stderr, "switchyard %s: %s: %s\n", command.c_str(),
                 absl::StatusCodeToString(status.code()).c_str(),
                 std::string(status.message()).c_str());
    return 2;
  }
  switchyard::BackendRegistry& registry = switchyard::BackendRegistry::Global();
  status = LoadPlugins(registry);
  if (!status.ok()) {
    std::fprintf(stderr, "switchyard: cannot load plugins: %s: %s\n",
                 absl::StatusCodeToString(status.code()).c_str(),
                 std::string(status.message()).c_str());
    return 1;
  }
  const Command run = found->second;
  const switchyard::cli::CommandFn guarded = [run](switchyard::BackendRegistry& r) {
    // Allocation or thread creation failing anywhere in a command is an
    // error the user can act on, not an abort.
    try {
      // Backend options (plugins' included) before any command compiles a kernel.
      absl::Status s = switchyard::cli::ApplyBackendOptionFlags(r);
      if (s.ok()) s = run(r);
      return s;
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(
          "out of memory; try a smaller --batch or fewer --threads");
    } catch (const std::system_error& error) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the system refused a resource (", error.what(),
          "); try fewer --threads or --loader-threads"));
    }
  };
  // One rank of an MPI job (mpirun -np N switchyard ...): its share of the
  // work, merged by rank 0 (tools/cli/rank_command.h).
  absl::StatusOr<std::unique_ptr<switchyard::runtime::MpiWorld>> world =
      switchyard::runtime::MpiWorld::JoinIfLaunched();
  if (!world.ok()) {
    std::fprintf(stderr, "switchyard %s: %s: %s\n", command.c_str(),
                 absl::StatusCodeToString(world.status().code()).c_str(),
                 std::string(world.status().message()).c_str());
    return 1;
  }
  if (*world != nullptr) {
    (*world)->set_timeout_name("--rank-timeout");
    return switchyard::cli::RunCommandAsRank(**world, command, guarded, registry);
  }
  status = switchyard::cli::WithCommandLineFix(guarded(registry));
  if (!status.ok()) {
    std::fprintf(stderr, "switchyard %s: %s: %s\n", command.c_str(),
                 absl::StatusCodeToString(status.code()).c_str(),
                 std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
