#include "runtime/rank_merge.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "runtime/text_columns.h"

namespace switchyard {
namespace runtime {
namespace {

using json = nlohmann::json;

constexpr char kBenchSchema[] = "switchyard.bench/1";
constexpr char kBenchRanksSchema[] = "switchyard.bench_ranks/1";
constexpr char kRunRanksSchema[] = "switchyard.run_ranks/1";

std::string Who(const RankIdentity& r) {
  return absl::StrFormat("rank %d (host %s, %s)", r.rank, r.host, r.device);
}

json IdentityJson(const RankIdentity& r) {
  return {{"rank", r.rank}, {"host", r.host}, {"device", r.device}};
}

absl::Status CheckSizes(const std::vector<RankIdentity>& ranks, size_t docs,
                        absl::string_view what) {
  if (ranks.empty() || ranks.size() != docs) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "merging ranks: %d rank identit%s but %d %s; need one per rank, and at least one",
        ranks.size(), ranks.size() == 1 ? "y" : "ies", docs, what));
  }
  return absl::OkStatus();
}

// Reads one rank's document, which another process wrote: every field is
// checked before use, so a bad one is an error naming the rank, its host and
// the field's path instead of an nlohmann exception.
class DocReader {
 public:
  DocReader(const RankIdentity& rank, absl::string_view what)
      : rank_(rank), what_(what) {}

  absl::Status Error(absl::string_view path, absl::string_view problem) const {
    return absl::InvalidArgumentError(absl::StrCat(
        what_, " of ", Who(rank_), ": \"", path.empty() ? "(document)" : path, "\" ",
        problem));
  }

  static std::string Path(absl::string_view parent, absl::string_view key) {
    return parent.empty() ? std::string(key) : absl::StrCat(parent, ".", key);
  }

  absl::Status CheckObject(const json& j, absl::string_view path) const {
    if (!j.is_object()) return WrongType(j, path, "an object");
    return absl::OkStatus();
  }

  // obj[key] (obj already checked to be an object); an error when absent.
  absl::StatusOr<const json*> Get(const json& obj, absl::string_view parent,
                                  const std::string& key) const {
    auto it = obj.find(key);
    if (it == obj.end()) return Error(Path(parent, key), "is missing");
    return &*it;
  }

  absl::StatusOr<const json*> Object(const json& obj, absl::string_view parent,
                                     const std::string& key) const {
    SY_ASSIGN_OR_RETURN(const json* j, Get(obj, parent, key));
    if (!j->is_object()) return WrongType(*j, Path(parent, key), "an object");
    return j;
  }

  absl::StatusOr<const json*> Array(const json& obj, absl::string_view parent,
                                    const std::string& key) const {
    SY_ASSIGN_OR_RETURN(const json* j, Get(obj, parent, key));
    if (!j->is_array()) return WrongType(*j, Path(parent, key), "a list");
    return j;
  }

  absl::StatusOr<std::string> String(const json& obj, absl::string_view parent,
                                     const std::string& key) const {
    SY_ASSIGN_OR_RETURN(const json* j, Get(obj, parent, key));
    if (!j->is_string()) return WrongType(*j, Path(parent, key), "a string");
    return j->get<std::string>();
  }

  // A finite number >= `min`.
  absl::StatusOr<double> Number(const json& obj, absl::string_view parent,
                                const std::string& key, double min = 0) const {
    SY_ASSIGN_OR_RETURN(const json* j, Get(obj, parent, key));
    return NumberValue(*j, Path(parent, key), min);
  }

  absl::StatusOr<double> NumberValue(const json& j, absl::string_view path,
                                     double min) const {
    if (!j.is_number()) return WrongType(j, path, "a number");
    const double v = j.get<double>();
    if (!std::isfinite(v)) {
      return Error(path, absl::StrCat("is ", v, ", expected a finite number"));
    }
    if (v < min) return Error(path, absl::StrCat("is ", v, ", expected >= ", min));
    return v;
  }

  // An integer >= `min` (8, not 8.0: counts are written as integers).
  absl::StatusOr<int64_t> Integer(const json& obj, absl::string_view parent,
                                  const std::string& key, int64_t min) const {
    SY_ASSIGN_OR_RETURN(const json* j, Get(obj, parent, key));
    const std::string path = Path(parent, key);
    if (!j->is_number_integer()) return WrongType(*j, path, "an integer");
    if (j->is_number_unsigned() && j->get<uint64_t>() > uint64_t{INT64_MAX}) {
      return Error(path, "is too large");
    }
    const int64_t v = j->get<int64_t>();
    if (v < min) return Error(path, absl::StrCat("is ", v, ", expected >= ", min));
    return v;
  }

 private:
  absl::Status WrongType(const json& j, absl::string_view path,
                         absl::string_view expected) const {
    // nlohmann calls every number "number"; say which kind when it matters.
    return Error(path, absl::StrCat("is ", j.is_number_float() ? "a floating-point number"
                                                               : j.type_name(),
                                     ", expected ", expected));
  }

  const RankIdentity& rank_;
  std::string what_;
};

// batch x count, both >= 0, as an error instead of an overflow.
absl::StatusOr<int64_t> Images(const DocReader& r, int64_t batch, int64_t count,
                               absl::string_view fields) {
  if (batch > 0 && count > INT64_MAX / batch) {
    return r.Error(fields, absl::StrCat("multiply to more than ", INT64_MAX, " images"));
  }
  return batch * count;
}


// Three decimals below 10 ms (copies and small models), one above, as the
// single-process bench table prints them.
std::string FormatMs(double ms) {
  return ms < 10 ? absl::StrFormat("%.3f", ms) : absl::StrFormat("%.1f", ms);
}

std::string Plural(size_t n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

// nlohmann throws only for what the readers above do not check (a string
// that is not UTF-8 when the result is dumped elsewhere, say); should any
// slip through, it becomes a status instead of ending rank 0.
template <typename Fn>
auto Guarded(absl::string_view what, Fn fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": malformed document: ", e.what()));
  }
}

// ---- bench ----

// One result row of one rank's bench document.
struct BenchCell {
  size_t rank_index = 0;
  std::string device;
  bool ok = false;
  double median_ms = 0, p95_ms = 0, images_per_s = 0;
  std::string error;
};

struct RankBench {
  std::string model;
  std::vector<std::pair<int64_t, BenchCell>> rows;  // by batch
};

absl::StatusOr<RankBench> ReadBenchDoc(const RankIdentity& rank, size_t index,
                                       const json& doc) {
  const DocReader r(rank, "bench document");
  SY_RETURN_IF_ERROR(r.CheckObject(doc, ""));
  SY_ASSIGN_OR_RETURN(std::string schema, r.String(doc, "", "schema"));
  if (schema != kBenchSchema) {
    return r.Error("schema", absl::StrCat("is '", schema, "', expected '", kBenchSchema,
                                          "' (switchyard bench --json)"));
  }
  RankBench out;
  SY_ASSIGN_OR_RETURN(out.model, r.String(doc, "", "model"));
  SY_ASSIGN_OR_RETURN(const json* results, r.Array(doc, "", "results"));
  for (size_t k = 0; k < results->size(); ++k) {
    const json& row = (*results)[k];
    const std::string path = absl::StrCat("results[", k, "]");
    SY_RETURN_IF_ERROR(r.CheckObject(row, path));
    BenchCell cell;
    cell.rank_index = index;
    SY_ASSIGN_OR_RETURN(cell.device, r.String(row, path, "device"));
    SY_ASSIGN_OR_RETURN(int64_t batch, r.Integer(row, path, "batch", 1));
    if (row.contains("error")) {
      SY_ASSIGN_OR_RETURN(cell.error, r.String(row, path, "error"));
    } else {
      const std::string e2e_path = DocReader::Path(path, "end_to_end_ms");
      SY_ASSIGN_OR_RETURN(const json* e2e, r.Object(row, path, "end_to_end_ms"));
      SY_ASSIGN_OR_RETURN(cell.median_ms, r.Number(*e2e, e2e_path, "median"));
      SY_ASSIGN_OR_RETURN(cell.p95_ms, r.Number(*e2e, e2e_path, "p95"));
      SY_ASSIGN_OR_RETURN(cell.images_per_s, r.Number(row, path, "images_per_s"));
      cell.ok = true;
    }
    out.rows.emplace_back(batch, std::move(cell));
  }
  return out;
}

absl::StatusOr<MergedBench> MergeBench(const std::vector<RankIdentity>& ranks,
                                       const std::vector<json>& docs) {
  SY_RETURN_IF_ERROR(CheckSizes(ranks, docs.size(), "bench documents"));
  std::vector<RankBench> parsed;
  for (size_t i = 0; i < ranks.size(); ++i) {
    SY_ASSIGN_OR_RETURN(RankBench one, ReadBenchDoc(ranks[i], i, docs[i]));
    // Ranks of one job run one command; different models mean the documents
    // were mixed up, and their figures do not add up.
    if (i > 0 && one.model != parsed[0].model) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bench document of ", Who(ranks[i]), ": \"model\" is '", one.model, "' but ",
          Who(ranks[0]), " benchmarked '", parsed[0].model,
          "'; every rank must run the same model"));
    }
    parsed.push_back(std::move(one));
  }

  // Batch sizes in order of first appearance (rank 0's --batches order).
  std::vector<int64_t> batches;
  for (const RankBench& rb : parsed) {
    for (const auto& [batch, cell] : rb.rows) {
      if (std::find(batches.begin(), batches.end(), batch) == batches.end()) {
        batches.push_back(batch);
      }
    }
  }

  MergedBench merged;
  json results = json::array();
  std::string body;
  for (int64_t batch : batches) {
    std::vector<std::vector<std::string>> rows = {
        {"rank", "host", "device", "median ms", "p95 ms", "images/s"}};
    std::vector<std::string> notes;
    json rank_rows = json::array();
    std::vector<RankIdentity> ok_who;
    std::vector<double> ok_seconds;
    double total_ips = 0, step_ms = -1;
    int slowest = -1;
    for (size_t i = 0; i < ranks.size(); ++i) {
      const RankIdentity& id = ranks[i];
      bool any = false;
      for (const auto& [b, cell] : parsed[i].rows) {
        if (b != batch) continue;
        any = true;
        const RankIdentity who{id.rank, id.host, cell.device};
        json entry = {{"rank", id.rank}, {"host", id.host}, {"device", cell.device}};
        if (!cell.ok) {
          rows.push_back({absl::StrCat(id.rank), id.host, cell.device, "failed", "-", "-"});
          notes.push_back(absl::StrCat(Who(who), ": failed: ", cell.error));
          entry["error"] = cell.error;
          rank_rows.push_back(std::move(entry));
          continue;
        }
        rows.push_back({absl::StrCat(id.rank), id.host, cell.device, FormatMs(cell.median_ms),
                        FormatMs(cell.p95_ms), absl::StrFormat("%.2f", cell.images_per_s)});
        entry["end_to_end_ms"] = {{"median", cell.median_ms}, {"p95", cell.p95_ms}};
        entry["images_per_s"] = cell.images_per_s;
        rank_rows.push_back(std::move(entry));
        total_ips += cell.images_per_s;
        if (cell.median_ms > step_ms) {
          step_ms = cell.median_ms;
          slowest = id.rank;
        }
        ok_who.push_back(who);
        ok_seconds.push_back(cell.median_ms / 1e3 / static_cast<double>(batch));
      }
      if (!any) {
        const std::string why = absl::StrCat("no result at batch ", batch);
        rows.push_back({absl::StrCat(id.rank), id.host, id.device, "none", "-", "-"});
        notes.push_back(absl::StrCat(Who(id), ": ", why));
        rank_rows.push_back(
            {{"rank", id.rank}, {"host", id.host}, {"device", id.device}, {"error", why}});
      }
    }
    const Straggler straggler = FindStraggler(ok_who, ok_seconds, {});
    rows.push_back({"total", "", "", step_ms >= 0 ? "step " + FormatMs(step_ms) : "-", "",
                    absl::StrFormat("%.2f", total_ips)});
    absl::StrAppend(&body, "\nbatch ", batch, "\n", TextColumns(rows, 3, "  "));
    absl::StrAppend(&body, "  straggler: ", straggler.text, "\n");
    for (const std::string& note : notes) absl::StrAppend(&body, "  ", note, "\n");

    results.push_back({{"batch", batch},
                       {"ranks", std::move(rank_rows)},
                       {"total_images_per_s", total_ips},
                       {"step_ms", step_ms >= 0 ? json(step_ms) : json(nullptr)},
                       {"slowest_rank", slowest >= 0 ? json(slowest) : json(nullptr)},
                       {"straggler", StragglerJson(straggler)}});
  }

  json rank_list = json::array();
  for (const RankIdentity& id : ranks) rank_list.push_back(IdentityJson(id));
  merged.table = absl::StrCat(
      "switchyard bench across ", Plural(ranks.size(), "rank", "ranks"), ": ",
      parsed[0].model, "\n",
      "end-to-end ms per batch, median and p95; images/s from the median; total = "
      "images/s summed over ranks, step = the slowest rank's median (synchronous "
      "data-parallel work runs at its pace)\n",
      body);
  merged.json = {{"schema", kBenchRanksSchema},
                 {"model", parsed[0].model},
                 {"ranks", std::move(rank_list)},
                 {"results", std::move(results)},
                 {"per_rank", docs}};
  return merged;
}

// ---- run ----

// The rank's own diagnosis of a stream: its diagnosis, led by the verdict's
// name unless the text already starts with it ("balanced: ...").
std::string StreamCause(const std::string& verdict, const std::string& diagnosis) {
  if (diagnosis.empty()) return verdict;
  if (verdict.empty() || absl::StartsWith(diagnosis, verdict)) return diagnosis;
  return absl::StrCat(verdict, ": ", diagnosis);
}

absl::StatusOr<MergedRun> MergeRun(const std::vector<RankIdentity>& ranks,
                                   const std::vector<json>& reports) {
  SY_RETURN_IF_ERROR(CheckSizes(ranks, reports.size(), "run reports"));
  std::vector<RunFigures> figures;
  for (size_t i = 0; i < ranks.size(); ++i) {
    SY_ASSIGN_OR_RETURN(RunFigures f, ReadRunReport(ranks[i], reports[i]));
    figures.push_back(std::move(f));
  }

  std::vector<std::vector<std::string>> rows = {
      {"rank", "host", "device", "run", "images", "images/s"}};
  json rank_list = json::array();
  std::vector<double> seconds;
  std::vector<std::string> causes;
  int64_t total_images = 0;
  double total_ips = 0;
  int slowest = -1;
  double slowest_ips = 0;
  std::string diagnoses;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankIdentity& id = ranks[i];
    const RunFigures& f = figures[i];
    rows.push_back({absl::StrCat(id.rank), id.host, id.device, f.kind, absl::StrCat(f.images),
                    absl::StrFormat("%.2f", f.images_per_s)});
    rank_list.push_back({{"rank", id.rank},
                         {"host", id.host},
                         {"device", id.device},
                         {"kind", f.kind},
                         {"images", f.images},
                         {"images_per_s", f.images_per_s},
                         {"cause", f.cause}});
    if (f.images > INT64_MAX - total_images) {
      return absl::InvalidArgumentError(absl::StrCat(
          "run report of ", Who(id), ": the ranks' image counts add up to more than ",
          INT64_MAX));
    }
    total_images += f.images;
    total_ips += f.images_per_s;
    if (slowest < 0 || f.images_per_s < slowest_ips) {
      slowest = id.rank;
      slowest_ips = f.images_per_s;
    }
    // A rank that processed nothing has no time per image; FindStraggler
    // says so rather than calling it infinitely slow.
    seconds.push_back(f.images_per_s > 0 ? 1 / f.images_per_s : 0);
    causes.push_back(f.cause);
    if (!f.cause.empty()) absl::StrAppend(&diagnoses, "  ", Who(id), ": ", f.cause, "\n");
  }
  rows.push_back({"total", "", "", "", absl::StrCat(total_images),
                  absl::StrFormat("%.2f", total_ips)});
  const Straggler straggler = FindStraggler(ranks, seconds, causes);

  MergedRun merged;
  merged.table = absl::StrCat(
      "switchyard run across ", Plural(ranks.size(), "rank", "ranks"),
      "; total = images and images/s summed over ranks\n", TextColumns(rows, 4, "  "),
      "  straggler: ", straggler.text, "\n");
  if (!diagnoses.empty()) absl::StrAppend(&merged.table, "each rank's own diagnosis:\n", diagnoses);
  merged.json = {{"schema", kRunRanksSchema},
                 {"ranks", std::move(rank_list)},
                 {"total_images", total_images},
                 {"total_images_per_s", total_ips},
                 {"slowest_rank", slowest},
                 {"straggler", StragglerJson(straggler)},
                 {"per_rank", reports}};
  auto model = reports[0].find("model");
  if (model != reports[0].end() && model->is_string()) merged.json["model"] = *model;
  return merged;
}

// ---- traces ----

absl::StatusOr<json> MergeTraceDocs(const std::vector<RankIdentity>& ranks,
                                    const std::vector<json>& traces,
                                    const std::vector<double>& shift_us) {
  SY_RETURN_IF_ERROR(CheckSizes(ranks, traces.size(), "traces"));
  if (shift_us.size() != ranks.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "merging traces: %d ranks but %d clock shifts; need one per rank", ranks.size(),
        shift_us.size()));
  }
  json events = json::array();
  json rank_list = json::array();
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankIdentity& id = ranks[i];
    const DocReader r(id, "trace");
    if (!std::isfinite(shift_us[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "merging traces: the clock shift of ", Who(id), " is ", shift_us[i]));
    }
    SY_RETURN_IF_ERROR(r.CheckObject(traces[i], ""));
    SY_ASSIGN_OR_RETURN(const json* trace_events, r.Array(traces[i], "", "traceEvents"));
    // The rank's own process name ("switchyard") gives way to one that says
    // which rank it is; viewers order processes by process_sort_index.
    events.push_back({{"ph", "M"},
                      {"pid", id.rank},
                      {"name", "process_name"},
                      {"args", {{"name", absl::StrFormat("rank %d: %s %s", id.rank, id.host,
                                                         id.device)}}}});
    events.push_back({{"ph", "M"},
                      {"pid", id.rank},
                      {"name", "process_sort_index"},
                      {"args", {{"sort_index", id.rank}}}});
    for (size_t k = 0; k < trace_events->size(); ++k) {
      const json& e = (*trace_events)[k];
      const std::string path = absl::StrCat("traceEvents[", k, "]");
      SY_RETURN_IF_ERROR(r.CheckObject(e, path));
      SY_ASSIGN_OR_RETURN(std::string ph, r.String(e, path, "ph"));
      const bool metadata = ph == "M";
      if (metadata) {
        auto name = e.find("name");
        if (name != e.end() && name->is_string() &&
            (*name == "process_name" || *name == "process_sort_index")) {
          continue;
        }
      }
      json out = e;
      out["pid"] = id.rank;
      // Metadata events carry no time; every other event must.
      if (!metadata || e.contains("ts")) {
        SY_ASSIGN_OR_RETURN(double ts, r.Number(e, path, "ts", std::numeric_limits<double>::lowest()));
        out["ts"] = ts + shift_us[i];
      }
      if (e.contains("dur")) SY_RETURN_IF_ERROR(r.Number(e, path, "dur").status());
      events.push_back(std::move(out));
    }
    json entry = IdentityJson(id);
    auto other = traces[i].find("otherData");
    if (other != traces[i].end()) entry["other_data"] = *other;
    rank_list.push_back(std::move(entry));
  }
  json merged = traces[0];
  merged["traceEvents"] = std::move(events);
  merged["ranks"] = std::move(rank_list);
  return merged;
}

}  // namespace

Straggler FindStraggler(const std::vector<RankIdentity>& ranks,
                        const std::vector<double>& seconds,
                        const std::vector<std::string>& causes) {
  Straggler s;
  if (ranks.size() != seconds.size()) {
    s.text = absl::StrFormat("no verdict: %d ranks but %d times", ranks.size(),
                             seconds.size());
    return s;
  }
  if (ranks.size() < 2) {
    s.text = absl::StrFormat(
        "no verdict: %s measured; it takes two to compare",
        ranks.empty() ? "no rank" : "one rank");
    return s;
  }
  for (size_t i = 0; i < seconds.size(); ++i) {
    if (!std::isfinite(seconds[i]) || seconds[i] <= 0) {
      s.text = absl::StrCat("no verdict: ", Who(ranks[i]), " has no valid time (",
                            seconds[i], ")");
      return s;
    }
  }
  // Leave-one-out median: a straggler must not pull its own yardstick up.
  auto others_median = [&](size_t skip) {
    std::vector<double> rest;
    for (size_t j = 0; j < seconds.size(); ++j) {
      if (j != skip) rest.push_back(seconds[j]);
    }
    std::sort(rest.begin(), rest.end());
    const size_t n = rest.size();
    return n % 2 == 1 ? rest[n / 2] : (rest[n / 2 - 1] + rest[n / 2]) / 2;
  };
  size_t worst = 0;
  double worst_ratio = 0;
  bool found = false;
  for (size_t i = 0; i < seconds.size(); ++i) {
    const double ratio = seconds[i] / others_median(i);
    if (ratio <= 1 + kStragglerMargin) continue;
    if (!found || seconds[i] > seconds[worst]) {
      worst = i;
      worst_ratio = ratio;
      found = true;
    }
  }
  if (!found) {
    s.text = absl::StrFormat(
        "none: every rank is within %.0f%% of the other ranks' median",
        100 * kStragglerMargin);
    return s;
  }
  s.found = true;
  s.rank = ranks[worst].rank;
  s.ratio = worst_ratio;
  s.text = absl::StrFormat("%s is %.2fx slower than the other ranks' median",
                           Who(ranks[worst]), worst_ratio);
  if (worst < causes.size() && !causes[worst].empty()) {
    absl::StrAppend(&s.text, "; its own diagnosis: ", causes[worst]);
  }
  return s;
}

nlohmann::json StragglerJson(const Straggler& s) {
  return {{"found", s.found}, {"rank", s.rank}, {"ratio", s.ratio}, {"text", s.text}};
}

absl::StatusOr<RunFigures> ReadRunReport(const RankIdentity& rank,
                                         const nlohmann::json& report) {
  return Guarded(absl::StrCat("run report of ", Who(rank)),
                 [&]() -> absl::StatusOr<RunFigures> {
    const DocReader r(rank, "run report");
    SY_RETURN_IF_ERROR(r.CheckObject(report, ""));
    RunFigures f;
    auto images = report.find("images");
    if (images != report.end() && images->is_array()) {
      // Images at their own size: one run per image, each with its times.
      f.kind = "images at own size";
      f.images = static_cast<int64_t>(images->size());
      double total_ms = 0;
      for (size_t k = 0; k < images->size(); ++k) {
        const std::string path = absl::StrCat("images[", k, "]");
        SY_RETURN_IF_ERROR(r.CheckObject((*images)[k], path));
        SY_ASSIGN_OR_RETURN(const json* ms, r.Object((*images)[k], path, "ms"));
        const std::string ms_path = DocReader::Path(path, "ms");
        for (const char* part : {"read_decode", "to_tensor", "model", "compile"}) {
          SY_ASSIGN_OR_RETURN(double v, r.Number(*ms, ms_path, part));
          total_ms += v;
        }
      }
      f.images_per_s = total_ms > 0 ? f.images * 1e3 / total_ms : 0;
      SY_ASSIGN_OR_RETURN(f.cause, r.String(report, "", "verdict"));
      return f;
    }
    SY_ASSIGN_OR_RETURN(f.images_per_s, r.Number(report, "", "images_per_s"));
    if (report.contains("run_ms") || report.contains("batches")) {
      // A stream of batches (--batches, or --images through the pipeline).
      f.kind = "stream";
      if (images != report.end()) {
        SY_RETURN_IF_ERROR(r.CheckObject(*images, "images"));
        SY_ASSIGN_OR_RETURN(f.images, r.Integer(*images, "images", "samples", 0));
      } else {
        SY_ASSIGN_OR_RETURN(int64_t batch, r.Integer(report, "", "batch", 1));
        SY_ASSIGN_OR_RETURN(int64_t count, r.Integer(report, "", "batches", 0));
        SY_ASSIGN_OR_RETURN(f.images, Images(r, batch, count, "batch x batches"));
      }
      std::string verdict, diagnosis;
      if (report.contains("verdict")) {
        SY_ASSIGN_OR_RETURN(verdict, r.String(report, "", "verdict"));
      }
      if (report.contains("diagnosis")) {
        SY_ASSIGN_OR_RETURN(diagnosis, r.String(report, "", "diagnosis"));
      }
      f.cause = StreamCause(verdict, diagnosis);
      return f;
    }
    // Timed iterations of one batch.
    f.kind = "timed iterations";
    SY_ASSIGN_OR_RETURN(int64_t batch, r.Integer(report, "", "batch", 1));
    SY_ASSIGN_OR_RETURN(int64_t iterations, r.Integer(report, "", "iterations", 0));
    SY_ASSIGN_OR_RETURN(f.images, Images(r, batch, iterations, "batch x iterations"));
    return f;
  });
}

absl::StatusOr<MergedBench> MergeBenchRanks(const std::vector<RankIdentity>& ranks,
                                            const std::vector<nlohmann::json>& docs) {
  return Guarded("merging bench ranks", [&] { return MergeBench(ranks, docs); });
}

absl::StatusOr<MergedRun> MergeRunReports(const std::vector<RankIdentity>& ranks,
                                          const std::vector<nlohmann::json>& reports) {
  return Guarded("merging run reports", [&] { return MergeRun(ranks, reports); });
}

absl::StatusOr<nlohmann::json> MergeTraces(const std::vector<RankIdentity>& ranks,
                                           const std::vector<nlohmann::json>& traces,
                                           const std::vector<double>& shift_us) {
  return Guarded("merging traces",
                 [&] { return MergeTraceDocs(ranks, traces, shift_us); });
}

}  // namespace runtime
}  // namespace switchyard
