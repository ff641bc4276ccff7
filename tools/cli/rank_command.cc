#include "tools/cli/rank_command.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/device_policy.h"
#include "core/file_transaction.h"
#include "core/status_macros.h"
#include "nlohmann/json.hpp"
#include "runtime/per_file_outputs.h"
#include "runtime/rank_merge.h"
#include "tools/cli/device_choice.h"
#include "tools/cli/flags.h"
#include "tools/cli/image_input.h"
#include "tools/cli/profile_run.h"
#include "core/thread_limit.h"

ABSL_FLAG(double, rank_timeout, 600,
          "under mpirun: seconds a rank waits for the others at the start and after "
          "its own work before the job is ended with the names of the ranks that did "
          "not answer (0: no limit)");

ABSL_DECLARE_FLAG(std::string, device);
ABSL_DECLARE_FLAG(std::string, devices);
ABSL_DECLARE_FLAG(std::string, output);
ABSL_DECLARE_FLAG(std::string, report);
ABSL_DECLARE_FLAG(std::string, profile);
ABSL_DECLARE_FLAG(std::string, json);
ABSL_DECLARE_FLAG(int32_t, threads);

namespace switchyard {
namespace cli {

using runtime::kTraceOriginKey;
using runtime::MergeBenchRanks;
using runtime::MergedBench;
using runtime::MergedRun;
using runtime::MergeRunReports;
using runtime::MergeTraces;
using runtime::MpiWorld;
using runtime::PrepareImageOutputFolder;
using runtime::RankIdentity;

namespace {

using json = nlohmann::json;

absl::Duration RankTimeout() {
  const double seconds = absl::GetFlag(FLAGS_rank_timeout);
  return seconds > 0 ? absl::Seconds(seconds) : absl::InfiniteDuration();
}

// The device a rank uses for `name`: a bare type is the rank's own device of
// that type (cuda -> cuda:<local rank>); the CPU is one device per host,
// which every rank there shares; a name with an index is used as given.
std::string RankDevice(const std::string& name, const MpiWorld& world) {
  if (name.empty() || absl::StrContains(name, ':')) return name;
  if (name == "cpu") return "cpu:0";
  return absl::StrCat(name, ":", world.local_rank());
}

// What this rank does differently from a plain run, and where the user's
// files go once the ranks are merged.
struct RankPlan {
  std::string device;      // this rank's device(s), for the tables
  std::string temp;        // this rank's private folder
  std::string output_dir;  // run --output=DIR/, resolved; empty: none
  std::string report, trace, json;  // the user's paths; empty: none asked
};

bool IsFolder(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// Points every file flag at this rank's private folder (plan.temp), picks
// the rank's device and CPU threads, and gives it its share of --images.
// Rank 0 checks the user's destinations in `files`.
absl::Status PointFlagsAtRank(const std::string& command, const MpiWorld& world,
                              BackendRegistry& registry, FileTransaction& files,
                              RankPlan& plan) {
  if (command == "run" || command == "graph") {
    std::string device = absl::GetFlag(FLAGS_device);
    if (device.empty()) {
      // The device policy's choice; a GPU's type alone, so that each rank
      // takes the GPU of its local rank.
      SY_ASSIGN_OR_RETURN(const DevicePolicy policy,
                          ParseDevicePolicy(absl::GetFlag(FLAGS_device_policy)));
      SY_ASSIGN_OR_RETURN(const PolicyChoice choice, ChooseDevice(registry, policy));
      device = choice.device.type() == "cuda" ? "cuda" : choice.device.ToString();
    }
    absl::SetFlag(&FLAGS_device, RankDevice(device, world));
    plan.device = absl::GetFlag(FLAGS_device);
  }
  if (command == "bench") {
    std::string devices = absl::GetFlag(FLAGS_devices);
    if (devices.empty()) {
      // Each rank measures its own device: a GPU where there is one.
      devices = "cpu";
      for (const Device& d : registry.AvailableDevices()) {
        if (d.type() == "cuda") devices = "cuda";
      }
    }
    std::vector<std::string> mine;
    for (absl::string_view d : absl::StrSplit(devices, ',', absl::SkipEmpty())) {
      mine.push_back(RankDevice(std::string(d), world));
    }
    absl::SetFlag(&FLAGS_devices, absl::StrJoin(mine, ","));
    plan.device = absl::StrJoin(mine, ",");
  }
  if (command == "devices") plan.device = "-";
  // The ranks on one host share its cores (a rank on a GPU still needs a few
  // for its host work); an explicit --threads is the user's call.
  if (!FlagGiven("threads") && world.local_size() > 1) {
    absl::SetFlag(&FLAGS_threads, std::max(1, CoreCount() / world.local_size()));
  }
  SetImageShard(world.rank(), world.size());

  const bool root = world.rank() == 0;
  if (command == "run") {
    const std::string output = ResolveUserPath(absl::GetFlag(FLAGS_output));
    if (!output.empty()) {
      if (!FlagGiven("images") || absl::StrContains(output, ',') ||
          !(absl::EndsWith(output, "/") || IsFolder(output))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--output=", absl::GetFlag(FLAGS_output), " in an MPI job: give --images=DIR and "
            "a folder (--output=DIR/); each rank runs its share of the images and rank 0 "
            "publishes every image's outputs there. For one batch on several devices in "
            "one process, use --replicas"));
      }
      plan.output_dir = output;
      if (root) {
        // Created (with its parents) and probed as in one process.
        absl::StatusOr<std::string> folder =
            PrepareImageOutputFolder(absl::GetFlag(FLAGS_output), output);
        if (!folder.ok()) return folder.status();
      }
      const std::string mine = absl::StrCat(plan.temp, "/output/");
      std::filesystem::create_directory(mine);
      absl::SetFlag(&FLAGS_output, mine);
    }
    // Every rank writes a report: the merged table is made of them.
    plan.report = ResolveUserPath(absl::GetFlag(FLAGS_report));
    absl::SetFlag(&FLAGS_report, absl::StrCat(plan.temp, "/report.json"));
    plan.trace = ResolveUserPath(absl::GetFlag(FLAGS_profile));
    if (!plan.trace.empty()) absl::SetFlag(&FLAGS_profile, absl::StrCat(plan.temp, "/trace.json"));
  }
  if (command == "bench") {
    plan.json = ResolveUserPath(absl::GetFlag(FLAGS_json));
    absl::SetFlag(&FLAGS_json, absl::StrCat(plan.temp, "/bench.json"));
  }
  if (root) {
    for (const auto& [path, what] : {std::pair{plan.report, "--report"},
                                     std::pair{plan.trace, "--profile"},
                                     std::pair{plan.json, "--json"}}) {
      if (!path.empty()) SY_RETURN_IF_ERROR(files.AddOutput(path, what));
    }
  }
  return absl::OkStatus();
}

// The rank's private folder and flags (PointFlagsAtRank), before any rank
// starts working; the folder is removed again if a flag is refused.
absl::StatusOr<RankPlan> PrepareRank(const std::string& command, const MpiWorld& world,
                                     BackendRegistry& registry, FileTransaction& files) {
  RankPlan plan;
  // NaN or a negative value would otherwise mean "wait forever" unnoticed.
  const double timeout = absl::GetFlag(FLAGS_rank_timeout);
  if (!std::isfinite(timeout) || timeout < 0 || timeout > 1e7) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--rank-timeout=", timeout, ": give seconds from 0 (no limit) to 10000000"));
  }
  if (FlagGiven("replicas")) {
    return absl::InvalidArgumentError(
        "--replicas inside an MPI job: start one rank per device instead (mpirun -np N, "
        "--device=cuda picks each rank's own GPU; docs/scaling.md)");
  }
  if (FlagGiven("markdown")) {
    return absl::UnimplementedError(
        "--markdown is not written for MPI jobs yet; use --json=FILE (one merged file, "
        "schema switchyard.bench_ranks/1) or the table");
  }
  std::string base = "/tmp/switchyard-rank-XXXXXX";
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') {
    base = absl::StrCat(tmp, "/switchyard-rank-XXXXXX");
  }
  std::vector<char> templ(base.begin(), base.end());
  templ.push_back('\0');
  if (mkdtemp(templ.data()) == nullptr) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot create a private folder like ", base, " for this rank's files: ",
        std::strerror(errno), " (set TMPDIR to a writable folder)"));
  }
  plan.temp = templ.data();
  absl::Status flags = PointFlagsAtRank(command, world, registry, files, plan);
  if (!flags.ok()) {
    std::filesystem::remove_all(plan.temp);
    return flags;
  }
  return plan;
}

// Every rank's status at rank 0, and the first failure (naming its rank and
// host) on every rank: all go on, or all stop.
absl::Status AgreeAcrossRanks(MpiWorld& world, const absl::Status& mine) {
  const json own = {{"ok", mine.ok()},
                    {"message", mine.ok() ? "" : std::string(mine.ToString())},
                    {"host", world.host()}};
  SY_ASSIGN_OR_RETURN(std::vector<std::string> all, world.GatherAtRoot(own.dump(), RankTimeout()));
  std::string verdict;
  for (size_t r = 0; r < all.size(); ++r) {
    const json j = json::parse(all[r], nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.value("ok", false)) {
      absl::StrAppend(&verdict, verdict.empty() ? "" : "; ", "rank ", r, " (",
                      j.is_discarded() ? "?" : j.value("host", "?"), "): ",
                      j.is_discarded() ? "unreadable status" : j.value("message", ""));
    }
  }
  SY_ASSIGN_OR_RETURN(std::string agreed, world.BroadcastFromRoot(verdict, RankTimeout()));
  if (agreed.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(agreed);
}

// Sends what the command prints on stdout into a file while it runs.
class StdoutCapture {
 public:
  explicit StdoutCapture(const std::string& path) {
    std::fflush(stdout);
    saved_ = dup(STDOUT_FILENO);
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (saved_ >= 0 && fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      active_ = true;
    }
    if (fd >= 0) close(fd);
  }
  ~StdoutCapture() { Restore(); }
  void Restore() {
    if (!active_) return;
    std::fflush(stdout);
    dup2(saved_, STDOUT_FILENO);
    close(saved_);
    active_ = false;
  }

 private:
  int saved_ = -1;
  bool active_ = false;
};

std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

json Binary(const std::string& bytes) {
  return json::binary(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
}

std::string FromBinary(const json& j) {
  const auto& b = j.get_binary();
  return std::string(b.begin(), b.end());
}

double SteadyMicros(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t.time_since_epoch()).count();
}

// What one rank sends to rank 0 when its command has ended.
json RankResult(const MpiWorld& world, const RankPlan& plan, const absl::Status& status,
                double start_us) {
  json r = {{"rank", world.rank()},
            {"host", world.host()},
            {"device", plan.device},
            {"ok", status.ok()},
            {"code", absl::StatusCodeToString(status.code())},
            {"message", std::string(status.message())},
            {"start_us", start_us}};
  // What it printed, less the lines about its private files.
  std::string printed;
  if (std::optional<std::string> text = ReadWholeFile(plan.temp + "/stdout.txt")) {
    for (absl::string_view line : absl::StrSplit(*text, '\n')) {
      if (!absl::StrContains(line, plan.temp)) absl::StrAppend(&printed, line, "\n");
    }
    while (absl::EndsWith(printed, "\n\n")) printed.pop_back();
  }
  r["stdout"] = printed;
  if (!status.ok()) return r;
  for (const char* name : {"report", "trace", "bench"}) {
    const std::string file = absl::StrCat(plan.temp, "/", name, ".json");
    if (std::optional<std::string> bytes = ReadWholeFile(file)) r[name] = Binary(*bytes);
  }
  json outputs = json::object();
  const std::string dir = plan.temp + "/output";
  if (IsFolder(dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (std::optional<std::string> bytes = ReadWholeFile(entry.path().string())) {
        outputs[entry.path().filename().string()] = Binary(*bytes);
      }
    }
  }
  r["outputs"] = std::move(outputs);
  return r;
}

// A JSON document a rank sent, or an error naming the rank and the file.
absl::StatusOr<json> RankDocument(const json& result, const char* key, const RankIdentity& who) {
  if (!result.contains(key) || !result[key].is_binary()) {
    return absl::DataLossError(absl::StrCat("rank ", who.rank, " (", who.host,
                                            ") sent no ", key, " file"));
  }
  json doc = json::parse(FromBinary(result[key]), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return absl::DataLossError(absl::StrCat("rank ", who.rank, " (", who.host, ")'s ", key,
                                            " is not valid JSON"));
  }
  return doc;
}

// Every rank's document `key`, in rank order.
absl::StatusOr<std::vector<json>> RankDocuments(const std::vector<json>& results,
                                                const char* key,
                                                const std::vector<RankIdentity>& ranks) {
  std::vector<json> docs;
  for (size_t i = 0; i < results.size(); ++i) {
    SY_ASSIGN_OR_RETURN(json doc, RankDocument(results[i], key, ranks[i]));
    docs.push_back(std::move(doc));
  }
  return docs;
}

// Prints what the ranks printed, once per distinct text.
void PrintRankTexts(const std::vector<json>& results) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const json& r : results) {
    const std::string text = r.value("stdout", "");
    if (text.empty()) continue;
    auto same = std::find_if(groups.begin(), groups.end(),
                             [&](const auto& g) { return g.first == text; });
    if (same == groups.end()) {
      groups.push_back({text, {r.value("rank", 0)}});
    } else {
      same->second.push_back(r.value("rank", 0));
    }
  }
  for (const auto& [text, ranks] : groups) {
    std::vector<std::string> who;
    for (int rank : ranks) {
      const json& r = results[rank];
      who.push_back(absl::StrCat(rank, " (", r.value("host", "?"), ", ", r.value("device", "?"),
                                 ")"));
    }
    std::printf("== rank%s %s ==\n%s\n", ranks.size() > 1 ? "s" : "",
                absl::StrJoin(who, ", ").c_str(), text.c_str());
  }
}

// Rank 0: every rank succeeded; merges their files and publishes them.
absl::Status MergeAndPublish(const std::string& command, const RankPlan& plan,
                             const std::vector<json>& results, FileTransaction& files) {
  std::vector<RankIdentity> ranks;
  for (const json& r : results) {
    ranks.push_back({r.value("rank", 0), r.value("host", ""), r.value("device", "")});
  }
  std::vector<std::string> written;
  if (command == "bench") {
    SY_ASSIGN_OR_RETURN(std::vector<json> docs, RankDocuments(results, "bench", ranks));
    SY_ASSIGN_OR_RETURN(MergedBench merged, MergeBenchRanks(ranks, docs));
    std::printf("%s", merged.table.c_str());
    if (!plan.json.empty()) {
      SY_RETURN_IF_ERROR(files.Stage(plan.json, merged.json.dump(2) + "\n"));
      written.push_back(plan.json);
    }
  } else {
    PrintRankTexts(results);
  }
  if (command == "run") {
    SY_ASSIGN_OR_RETURN(std::vector<json> reports, RankDocuments(results, "report", ranks));
    SY_ASSIGN_OR_RETURN(MergedRun merged, MergeRunReports(ranks, reports));
    std::printf("%s", merged.table.c_str());
    if (!plan.report.empty()) {
      SY_RETURN_IF_ERROR(files.Stage(plan.report, merged.json.dump(2) + "\n"));
      written.push_back(plan.report);
    }
    if (!plan.trace.empty()) {
      // Each trace's time 0 moved onto rank 0's: ranks crossed the start
      // barrier together, so (origin - start) lines their clocks up, on
      // one host or several.
      SY_ASSIGN_OR_RETURN(std::vector<json> traces, RankDocuments(results, "trace", ranks));
      std::vector<double> shift_us;
      double root_offset = 0;
      for (size_t i = 0; i < results.size(); ++i) {
        const json& trace = traces[i];
        double origin = 0;
        const json& other = trace.value("otherData", json::object());
        if (!other.is_object() || !other.contains(kTraceOriginKey) ||
            !other[kTraceOriginKey].is_string() ||
            !absl::SimpleAtod(other[kTraceOriginKey].get<std::string>(), &origin)) {
          return absl::DataLossError(absl::StrCat("rank ", ranks[i].rank,
                                                  "'s trace has no ", kTraceOriginKey));
        }
        const double offset = origin - results[i].value("start_us", 0.0);
        if (i == 0) root_offset = offset;
        shift_us.push_back(offset - root_offset);
      }
      SY_ASSIGN_OR_RETURN(json merged_trace, MergeTraces(ranks, traces, shift_us));
      SY_RETURN_IF_ERROR(files.Stage(plan.trace, merged_trace.dump() + "\n"));
      written.push_back(plan.trace);
    }
    if (!plan.output_dir.empty()) {
      std::string dir = plan.output_dir;
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      for (const json& r : results) {
        const json outputs = r.value("outputs", json::object());
        for (const auto& [name, bytes] : outputs.items()) {
          // Names come from another process: plain file names only.
          if (name.empty() || name == "." || name == ".." ||
              name.find('/') != std::string::npos || !bytes.is_binary()) {
            return absl::DataLossError(absl::StrCat("rank ", r.value("rank", -1),
                                                    " sent an output named '", name, "'"));
          }
          const std::string path = absl::StrCat(dir, "/", name);
          SY_RETURN_IF_ERROR(files.AddOutput(path, "--output"));
          SY_RETURN_IF_ERROR(files.Stage(path, FromBinary(bytes)));
          written.push_back(path);
        }
      }
    }
  }
  SY_RETURN_IF_ERROR(files.Commit());
  const size_t shown = std::min<size_t>(written.size(), 8);
  for (size_t i = 0; i < shown; ++i) std::printf("wrote %s\n", written[i].c_str());
  if (written.size() > shown) std::printf("wrote %zu more files\n", written.size() - shown);
  return absl::OkStatus();
}

void PrintError(const std::string& command, const std::string& text) {
  std::fprintf(stderr, "switchyard %s: %s\n", command.c_str(), text.c_str());
}

}  // namespace

int RunCommandAsRank(MpiWorld& world, const std::string& command_name,
                     const CommandFn& command, BackendRegistry& registry) {
  const bool root = world.rank() == 0;
  FileTransaction files;  // rank 0's: the merged results
  absl::StatusOr<RankPlan> plan = PrepareRank(command_name, world, registry, files);
  // One rank's bad flag or folder stops every rank before any work.
  absl::Status agreed = AgreeAcrossRanks(world, plan.status());
  if (agreed.code() == absl::StatusCode::kDeadlineExceeded) world.Abort(agreed.ToString(), 1);
  if (!agreed.ok()) {
    if (root) PrintError(command_name, absl::StrCat("not started: ", agreed.message()));
    if (plan.ok()) std::filesystem::remove_all(plan->temp);
    return 1;
  }
  // Ranks start together, so their timings overlap and their traces line up.
  absl::Status started = world.Barrier(RankTimeout(), "before starting");
  if (!started.ok()) world.Abort(started.ToString(), 1);
  const double start_us = SteadyMicros(std::chrono::steady_clock::now());

  absl::Status status;
  {
    StdoutCapture capture(plan->temp + "/stdout.txt");
    status = command(registry);
  }
  const json mine = RankResult(world, *plan, status, start_us);
  std::filesystem::remove_all(plan->temp);
  const std::vector<std::uint8_t> cbor = json::to_cbor(mine);
  absl::StatusOr<std::vector<std::string>> gathered =
      world.GatherAtRoot(std::string(cbor.begin(), cbor.end()), RankTimeout());
  if (!gathered.ok()) world.Abort(gathered.status().ToString(), 1);

  std::string verdict;  // empty: every rank succeeded and rank 0 published
  if (root) {
    std::vector<json> results;
    for (size_t r = 0; r < gathered->size(); ++r) {
      const std::string& bytes = (*gathered)[r];
      json j = json::from_cbor(bytes.begin(), bytes.end(), /*strict=*/true,
                               /*allow_exceptions=*/false);
      if (j.is_discarded() || !j.is_object()) {
        j = {{"rank", static_cast<int>(r)}, {"ok", false}, {"code", "DATA_LOSS"},
             {"message", "its results could not be read"}};
      }
      j["rank"] = static_cast<int>(r);
      results.push_back(std::move(j));
    }
    std::vector<std::string> failures;
    for (const json& r : results) {
      if (r.value("ok", false)) continue;
      failures.push_back(absl::StrCat("rank ", r.value("rank", -1), " of ", results.size(),
                                      " (host ", r.value("host", "?"), ", device ",
                                      r.value("device", "?"), ") failed: ",
                                      r.value("code", "?"), ": ", r.value("message", "")));
    }
    if (failures.empty()) {
      absl::Status merged = MergeAndPublish(command_name, *plan, results, files);
      if (!merged.ok()) verdict = merged.ToString();
    } else {
      PrintRankTexts(results);
      verdict = absl::StrCat(absl::StrJoin(failures, "\n  "),
                             "\n  nothing was published: results are written only when every "
                             "rank succeeds");
    }
    std::fflush(stdout);
  }
  absl::StatusOr<std::string> final_verdict = world.BroadcastFromRoot(verdict, RankTimeout());
  if (!final_verdict.ok()) world.Abort(final_verdict.status().ToString(), 1);
  if (final_verdict->empty()) return 0;
  if (root) PrintError(command_name, *final_verdict);
  return 1;
}

}  // namespace cli
}  // namespace switchyard
