// query_bench: builds capture databases of N dispatches (default 1M and 10M) shaped like the Qwen3
// decode loop (steps of 48 layers × 17 kernels + 31 per-step kernels, one prefill step with other
// grids) through the store's real loader, with the counter passes of the Qwen3 runbook's plan
// (the counters `kprof plan --simulate RUNBOOK` prints per pass, on the dispatches its kernel
// filter keeps) and the analysis results `kprof run` stores after its passes (the join and the
// outline): what a user has after `kprof run`. Then it times, in paired rounds (every contender
// once per round, after a warm-up round when R > 1), each as its own process:
//   sqlite3 GROUP BY     — the sqlite3 shell computing `top`'s aggregation (launches and summed
//                          duration per kernel name, sorted) on the same file: the baseline
//   kprof query top | explain | roofline | counters, kprof report DB -o FILE
// and prints per contender the median wall and CPU seconds of the rounds with their spread, peak
// RSS (wait4 rusage of each process), RSS per dispatch, `top` against the GROUP BY as the median
// of the per-round ratios, and how each view's time and memory grow from the first size to the
// last. Simulated data, labelled as such. Asserts nothing.
//
//   query_bench [--rounds R] [--kprof PATH] [--db-dir DIR] [--runbook YAML] [--tsv FILE] [N ...]
// --db-dir keeps the databases in DIR and reuses one that is there (a 10M database takes minutes
// to build), instead of building them in a temporary folder removed at the end. --tsv appends one
// line per contender and size for bench/all.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/common/database_bench.hpp"
#include "bench/harness/side_by_side.hpp"
#include "core/analysis/outline/stored_results.hpp"
#include "core/store/capture_db.hpp"

namespace {

using namespace kprof;
using bench::Contender;

// `top`'s aggregation, as a user would type it into the sqlite3 shell against the schema
// (core/store/schema: dispatch_rows, kernel_variants, strings). The forms tried in the shell on the
// bench's 1M database (trace and 3 counter passes), median CPU seconds of 5 runs each (load
// average 10; wall times there are mostly waiting for a CPU):
//   a. the `dispatches` view joined to `strings`, grouped by kernel_name_id, the trace pass found
//      through the (pass_id, pid, dispatch_id) index: 0.65 s;
//   b. dispatch_rows grouped by the integer variant_id first (a few hundred groups), through the
//      same index, then the variants folded to their names: 0.45 s;
//   c. as b, with the index left out (`+pass_id`: one scan of the table instead of a rowid lookup
//      per row): 0.43 s;
//   d. as b, every pass grouped and the trace pass's variants kept after: 0.52 s;
//   e. dispatch_rows joined to kernel_variants per row, grouped by variant, then by name: 0.52 s.
// c is the fastest and is the baseline.
const char* k_group_by =
    "WITH t AS (SELECT id FROM passes WHERE ordinal = 0 ORDER BY id DESC LIMIT 1), "
    "v AS (SELECT variant_id, count(*) AS n, sum(end_ns - start_ns) AS ns FROM dispatch_rows "
    "WHERE +pass_id = (SELECT id FROM t) GROUP BY variant_id) "
    "SELECT s.value, sum(v.n), sum(v.ns), sum(v.ns) / sum(v.n) FROM v "
    "JOIN kernel_variants k ON k.id = v.variant_id JOIN strings s ON s.id = k.kernel_name_id "
    "GROUP BY k.kernel_name_id ORDER BY 3 DESC";

// What `kprof plan --simulate RUNBOOK` plans: the counters of each counter pass, and the kernel
// filter its commands pass to rocprofv3 (--kernel-include-regex; "" when none). The runbook's
// plan is the one a user runs, so the bench follows it when the planner or the metric sets change.
struct Plan {
  std::vector<std::vector<std::string>> counters;
  std::string kernels;
};

Plan plan_of(const std::string& kprof, const std::string& runbook) {
  const auto bin = std::filesystem::path(kprof).parent_path();
  const std::string cmd = "PATH='" + bin.string() + "':\"$PATH\" '" + kprof +
                          "' plan --simulate '" + runbook + "' 2>&1";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + cmd);
  std::string text;
  char buf[4096];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, got);
  const int status = ::pclose(p);
  Plan plan;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::string counters = "  counters: ", flag = "--kernel-include-regex ";
    if (line.rfind(counters, 0) == 0) {
      std::istringstream names(line.substr(counters.size()));
      plan.counters.emplace_back();
      for (std::string c; names >> c;) plan.counters.back().push_back(c);
    } else if (const auto at = line.find(flag); at != std::string::npos) {
      std::istringstream rest(line.substr(at + flag.size()));
      rest >> plan.kernels;
    }
  }
  if (status != 0 || plan.counters.empty())
    throw std::runtime_error("`" + cmd + "` gave no counter passes:\n" + text);
  return plan;
}

// What `kprof run` stores after its passes (the join and the outline), in a child process for the
// reason build_decode_loop_capture_in_child gives.
void store_results_in_child(const std::filesystem::path& db) {
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    try {
      store::CaptureDb capture(db);
      const std::string line = analysis::store_results(capture, 1);
      std::printf("  %s\n", line.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "query_bench: storing results in %s: %s\n", db.c_str(), e.what());
      std::_Exit(1);
    }
    std::fflush(stdout);
    std::_Exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("storing the results of " + db.string() + " failed");
}

// The baseline, then kprof's views, then the report: every one reads `db` only.
std::vector<Contender> contenders(const std::filesystem::path& db, const std::filesystem::path& dir,
                                  const std::string& kprof) {
  std::vector<Contender> cs(1);
  cs[0].label = "sqlite3 shell: top's GROUP BY";
  cs[0].argv = {"sqlite3", "-readonly", db.string(), k_group_by};
  for (const char* view : {"top", "explain", "roofline", "counters"}) {
    Contender c;
    c.label = std::string("kprof query DB ") + view;
    c.argv = {kprof, "query", db.string(), view};
    c.stdout_path = (dir / (std::string(view) + ".out")).string();
    cs.push_back(c);
  }
  Contender report;
  report.label = "kprof report DB -o FILE";
  const auto html = dir / "report.html";
  report.argv = {kprof, "report", db.string(), "-o", html.string()};
  report.stdout_path = (dir / "report.out").string();
  report.before = [html] { std::filesystem::remove(html); };
  cs.push_back(report);
  return cs;
}

struct Size {
  int64_t n;
  std::vector<std::pair<std::string, std::pair<double, double>>> views;  // label, (median s, MB)
};

// Growth from the first size to the last, per kprof view: linear time is the size ratio; the
// marginal memory is what each added dispatch costs once the fixed part is paid.
void print_growth(const Size& a, const Size& b) {
  const double grow = static_cast<double>(b.n) / static_cast<double>(a.n);
  std::printf("\n%lld -> %lld dispatches (%.0fx), medians:\n", static_cast<long long>(a.n),
              static_cast<long long>(b.n), grow);
  for (size_t k = 0; k < a.views.size() && k < b.views.size(); ++k) {
    const auto& [label, first] = a.views[k];
    const auto& last = b.views[k].second;
    std::printf(
        "  %-44s %6.2fx the time, %6.2fx the peak RSS; marginal memory %6.1f B per added "
        "dispatch\n",
        label.c_str(), last.first / first.first, last.second / first.second,
        (last.second - first.second) * 1048576.0 / static_cast<double>(b.n - a.n));
  }
}

Size measure(int64_t n, const std::filesystem::path& dir, const bench::DatabaseBenchArgs& args,
             const Plan& plan) {
  const auto path = dir / ("bench_" + std::to_string(n) + ".db");
  bench::DecodeLoopShape shape;
  shape.run_name = "bench";
  shape.counter_plan = plan.counters;
  shape.counter_kernels = plan.kernels;
  const bool built = args.db_dir.empty() || !std::filesystem::exists(path);
  bench::prepare_database(path, n, args, shape, "query_bench");
  if (built) store_results_in_child(path);
  std::vector<Contender> cs = contenders(path, dir, args.kprof);
  bench::interleave(cs, args.rounds, args.rounds > 1);  // a warm-up round unless only one is asked
  bench::print_table(cs, static_cast<double>(n));
  for (const auto& c : cs)
    std::printf("  %-44s %7.1f B of peak RSS per dispatch\n", c.label.c_str(),
                c.peak_rss_mb() * 1048576.0 / static_cast<double>(n));
  bench::print_ratio(cs[1], cs[0]);
  std::printf("  (load average after: %s)\n", bench::load_average().c_str());
  std::fflush(stdout);
  Size sz{n, {}};
  for (size_t k = 0; k < cs.size(); ++k) {
    bench::append_tsv(args.tsv, "query", static_cast<long long>(n), cs[k],
                      k == 1 ? &cs[0] : nullptr);
    if (k > 0) sz.views.push_back({cs[k].label, {cs[k].wall().median, cs[k].peak_rss_mb()}});
  }
  if (args.db_dir.empty()) std::filesystem::remove(path);
  return sz;
}

}  // namespace

int main(int argc, char** argv) {
  auto args = bench::parse_database_bench_args(argc, argv, "query_bench");
  if (!args) return 2;
  if (args->runbook.empty()) args->runbook = KPROF_SOURCE_DIR "/runbooks/qwen3-30b-a3b-sim.yaml";
  const auto dir = args->db_dir.empty() ? std::filesystem::temp_directory_path() /
                                              ("kprof_query_bench_" + std::to_string(::getpid()))
                                        : std::filesystem::path(args->db_dir);
  std::filesystem::create_directories(dir);
  std::printf("query_bench (simulated data; %s; %ld CPUs)\n", args->kprof.c_str(),
              sysconf(_SC_NPROCESSORS_ONLN));
  std::vector<Size> done;
  try {
    const Plan plan = plan_of(args->kprof, args->runbook);
    std::printf("counter passes of %s's plan: %zu (kernels: %s)\n", args->runbook.c_str(),
                plan.counters.size(), plan.kernels.empty() ? "all" : plan.kernels.c_str());
    for (int64_t n : args->sizes) done.push_back(measure(n, dir, *args, plan));
    if (done.size() >= 2) print_growth(done.front(), done.back());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "query_bench: %s\n", e.what());
    if (args->db_dir.empty()) std::filesystem::remove_all(dir);
    return 1;
  }
  if (args->db_dir.empty()) std::filesystem::remove_all(dir);
  return 0;
}
