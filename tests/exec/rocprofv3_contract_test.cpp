// The contract between kprof and every rocprofv3 release it supports, checked against what the
// upstream launchers themselves did (tests/data/rocprofv3-cli, SOURCES.md there):
//  1. every command kprof builds for a release (each runbook under runbooks/, trace, counter,
//     narrowed, rotated and kernel-replay passes, `kprof plan --emit-sbatch`) uses only that
//     release's options (configs/rocprofv3/<release>.json) with valid arity and choices, checked
//     by a reader of the table written here, not by the double's parser;
//  2. the double set to that release accepts and rejects each recorded argv as the launcher did
//     (same exit code, the same last error line), and for an accepted one interprets it as the
//     environment the launcher handed the tool says.
// The release is found as `kprof run` finds it: the double answers --version (7.0 on) or --help
// (before), and kprof picks the table.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/base/rocprof_release.hpp"
#include "core/base/text.hpp"
#include "core/exec/node/process_runner.hpp"
#include "core/exec/profiler/release_support.hpp"
#include "core/exec/usecases/runbook_plan.hpp"
#include "core/sim/options.hpp"
#include "core/sim/version.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;
using testing::write_file;

const fs::path k_src(KPROF_SOURCE_DIR);
const fs::path k_data = k_src / "tests" / "data" / "rocprofv3-cli";
const fs::path k_sim = fs::path(KPROF_BIN_DIR) / "rocprofv3-sim";

// The runbook with the double as its profiler (a profiler.path named rocprofv3-sim).
std::string with_double(std::string text) {
  if (const auto at = text.find("  path: rocprofv3\n"); at != std::string::npos)
    text.erase(at, std::string("  path: rocprofv3\n").size());
  const auto at = text.find("\nprofiler:\n");
  text.insert(at + 11, "  path: " + k_sim.string() + "\n");
  return text;
}

std::vector<std::string> release_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(k_data))
    if (e.path().extension() == ".json" && e.path().stem() != "groups")
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Sets ROCPROF_SIM_VERSION for the double kprof starts (the --version / --help probes).
class SimRelease {
 public:
  explicit SimRelease(const std::string& r) { setenv("ROCPROF_SIM_VERSION", r.c_str(), 1); }
  ~SimRelease() { unsetenv("ROCPROF_SIM_VERSION"); }
};

// Every problem of `argv` (argv[0] the profiler, options up to "--") against `release`'s options:
// an unknown option, a missing or extra value, a value outside the choices.
std::vector<std::string> misuses(const RocprofRelease& release,
                                 const std::vector<std::string>& argv) {
  std::vector<std::string> bad;
  size_t i = 1;
  const auto is_option = [](const std::string& a) { return a.size() > 1 && a[0] == '-'; };
  for (; i < argv.size() && argv[i] != "--"; ++i) {
    std::string a = argv[i];
    if (!is_option(a)) {
      bad.push_back("stray value '" + a + "'");
      continue;
    }
    std::optional<std::string> attached;
    if (const auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      attached = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    const RocprofOption* o = release.find(a);
    if (!o) {
      bad.push_back("unknown option " + a);
      continue;
    }
    std::vector<std::string> values;
    if (attached) values.push_back(*attached);
    using N = RocprofOption::Nargs;
    const size_t most = o->nargs == N::zero                             ? 0
                        : o->nargs == N::one || o->nargs == N::optional ? 1
                        : o->nargs == N::exactly                        ? size_t(o->count)
                                                                        : size_t(-1);
    while (!attached && values.size() < most && i + 1 < argv.size() && argv[i + 1] != "--" &&
           !is_option(argv[i + 1]))
      values.push_back(argv[++i]);
    const size_t least = o->nargs == N::one || o->nargs == N::plus ? 1
                         : o->nargs == N::exactly                  ? size_t(o->count)
                                                                   : 0;
    if (values.size() < least || values.size() > most)
      bad.push_back(a + " with " + std::to_string(values.size()) + " values");
    for (const auto& v : values)
      if (!o->has_choice(to_lower(v))) bad.push_back(a + " " + v + ": not a choice");
  }
  if (i == argv.size()) bad.push_back("no '--' before the application");
  return bad;
}

// The runbooks kprof ships, and variants of the first exercising the other kinds of pass.
std::vector<std::pair<std::string, std::string>> runbook_texts() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : fs::directory_iterator(k_src / "runbooks"))
    if (e.path().extension() == ".yaml") out.emplace_back(e.path().filename(), read_text(e.path()));
  std::sort(out.begin(), out.end());
  const std::string base = read_text(k_src / "runbooks" / "qwen3-30b-a3b-mi300x.yaml");
  const auto variant = [&](const std::string& name, const std::string& from,
                           const std::string& to) {
    std::string t = base;
    const auto at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    out.emplace_back(name, t);
  };
  variant("rotate", "      include_regex: fused_moe_kernel\n",
          "      include_regex: fused_moe_kernel\n    replay: rotate\n");
  variant("all-kernels", "    kernels:\n      include_regex: fused_moe_kernel\n", "");
  variant("no-regions", "  selected_regions: true\n", "  selected_regions: false\n");
  variant("agent-index", "  selected_regions: true\n",
          "  selected_regions: true\n  agent_index: absolute\n  truncate_kernels: true\n");
  return out;
}

struct Planned {
  std::string error;  // a refusal, or ""
  std::vector<std::vector<std::string>> argvs;
};

Planned plan_all(const fs::path& rb, const fs::path& db) {
  Planned p;
  try {
    RunbookPlanRequest req;
    req.runbook = rb;
    req.db = db;
    req.filter_placeholder = false;
    const RunbookPlan bp = plan_runbook(req);
    for (const auto& c : bp.plan.passes) p.argvs.push_back(c.argv);
    // A counter pass as it runs once the trace chose the kernels of interest.
    if (bp.plan.counters && bp.plan.filter_after_trace) {
      const auto backend = make_profiler_backend(bp.rb, BackendChoice{false, bp.version.text});
      p.argvs.push_back(pass_command(bp.rb, *backend, 1, 1, store::PassKind::counters,
                                     pass_request(bp.rb, 1, 1, store::PassKind::counters,
                                                  {"SQ_WAVES"}, "^(?:fused_moe_kernel)$"))
                            .argv);
    }
  } catch (const Error& e) {
    p.error = e.what();
    return p;
  }
  // `kprof plan --emit-sbatch`: its command lines, as written in the script (a rotated pass is
  // refused there: it is decided on the run's trace).
  try {
    RunbookPlanRequest req;
    req.runbook = rb;
    req.db = db;
    const std::string script = plan_sbatch(req, LauncherFlags{});
    for (const auto& line : split(script, '\n')) {
      const auto at = line.find("rocprofv3-sim ");
      if (at == std::string::npos || line.find(" -- ") == std::string::npos) continue;
      std::vector<std::string> argv{"rocprofv3-sim"};
      for (auto& w : split(line.substr(at + 14), ' '))
        if (!w.empty())
          argv.push_back(w.front() == '\'' && w.size() > 1 ? w.substr(1, w.size() - 2) : w);
      p.argvs.push_back(argv);
    }
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("batch script"), std::string::npos) << e.what();
  }
  return p;
}

TEST(Rocprofv3Contract, EveryCommandKprofBuildsUsesOnlyTheReleasesOptions) {
  const auto names = release_names();
  ASSERT_EQ(names.size(), 6u);
  for (const auto& r : names) {
    const RocprofRelease* release = find_rocprof_release(r);
    ASSERT_NE(release, nullptr) << r;
    SimRelease sim(r);
    size_t checked = 0, refused_shipped = 0, shipped = 0;
    for (const auto& [name, text] : runbook_texts()) {
      shipped += name.ends_with(".yaml");
      TempDir dir;
      fs::copy(k_src / "runbooks" / "workloads", dir / "workloads", fs::copy_options::recursive);
      write_file(dir / "rb.yaml", with_double(text));
      const Planned p = plan_all(dir / "rb.yaml", dir / "c.db");
      if (!p.error.empty()) {
        // A refusal names the missing option (or the missing feature) and the release.
        refused_shipped += name.ends_with(".yaml");
        EXPECT_TRUE(p.error.find("rocprof") != std::string::npos)
            << r << " " << name << ": " << p.error;
        continue;
      }
      ASSERT_FALSE(p.argvs.empty()) << r << " " << name;
      for (const auto& argv : p.argvs) {
        ++checked;
        EXPECT_EQ(misuses(*release, argv), std::vector<std::string>{})
            << "release " << r << ", runbook " << name << ": " << shell_join(argv);
      }
    }
    EXPECT_GE(checked, r == "6.2" ? 4u : 12u) << r;
    // Kernel filters do not exist on 6.2: the shipped runbooks (every one filters) are refused
    // there, and planned everywhere else.
    EXPECT_GE(shipped, 3u);
    EXPECT_EQ(refused_shipped, r == "6.2" ? shipped : 0u) << r;
  }
}

// The launcher's environment entries kprof relies on, as the double interprets them.
const std::vector<std::string> k_env_keys = {"ROCPROF_KERNEL_TRACE",
                                             "ROCPROF_MARKER_API_TRACE",
                                             "ROCPROF_SELECTED_REGIONS",
                                             "ROCPROF_STATS",
                                             "ROCPROF_TRUNCATE_KERNELS",
                                             "ROCPROF_OUTPUT_FORMAT",
                                             "ROCPROF_COUNTERS",
                                             "ROCPROF_COUNTER_GROUPS",
                                             "ROCPROF_COUNTER_GROUPS_INTERVAL",
                                             "ROCPROF_KERNEL_FILTER_INCLUDE_REGEX",
                                             "ROCPROF_KERNEL_FILTER_EXCLUDE_REGEX",
                                             "ROCPROF_KERNEL_FILTER_RANGE",
                                             "ROCPROF_AGENT_INDEX"};

// Counter lists compare as the tool reads them: names, in a set (one per `pmc:` line).
std::string canonical(const std::string& key, const std::string& value) {
  if (key != "ROCPROF_COUNTERS" && key != "ROCPROF_COUNTER_GROUPS") return value;
  std::vector<std::string> lines;
  for (const auto& line : split(value, '\n')) {
    std::string rest = line.substr(line.find(':') + 1);
    lines.push_back(join(sim::split_counters({rest}), " "));
  }
  return join(lines, " | ");
}

std::string last_line(const std::string& text) {
  auto lines = split(std::string(trim(text)), '\n');
  return lines.empty() ? std::string() : std::string(trim(lines.back()));
}

TEST(Rocprofv3Contract, TheDoubleAcceptsAndRejectsWhatEachLauncherDid) {
  for (const auto& r : release_names()) {
    const auto data = nlohmann::json::parse(read_text(k_data / (r + ".json")));
    SimRelease sim(r);
    const sim::SimVersion version = sim::sim_version_from_env();
    ASSERT_EQ(version.table().name, r);
    size_t n = 0;
    for (const auto& run : data.at("runs")) {
      ++n;
      const auto args = run.at("argv").get<std::vector<std::string>>();
      const std::string what = "release " + r + ": rocprofv3 " + shell_join(args);
      TempDir dir;
      fs::copy_file(k_data / "groups.json", dir / "groups.json");
      fs::copy_file(k_data / "groups.yaml", dir / "groups.yaml");
      LaunchSpec s;
      s.argv = {k_sim.string()};
      s.argv.insert(s.argv.end(), args.begin(), args.end());
      s.env = {{"ROCPROF_SIM_VERSION", r}, {"ROCPROF_SIM_MODEL", "doc-vector-ops"}};
      s.cwd = dir.path();
      s.log_path = dir / "log";
      s.timeout = std::chrono::seconds(60);
      const RunResult res = run_process(s);
      const std::string log = read_text(dir / "log");
      const auto& accepted = run.at("accepted");
      if (accepted.is_boolean() && accepted.get<bool>()) {
        EXPECT_EQ(res.exit_code, 0) << what << "\n" << log;
        // The interpretation: what the double runs, as the launcher's environment.
        const fs::path here = fs::current_path();
        fs::current_path(dir.path());
        const sim::Options o = sim::parse_options(args, version.table());
        const std::vector<sim::JobOptions> jobs =
            o.input_file ? sim::load_jobs(*o.input_file, o.cli, version)
                         : std::vector<sim::JobOptions>{o.cli};
        fs::current_path(here);
        if (o.version || o.app.empty()) continue;
        ASSERT_EQ(jobs.size(), 1u) << what;
        const auto env = sim::launcher_env(jobs.front(), version.has_rocpd());
        const auto& want = run.at("env");
        for (const auto& key : k_env_keys) {
          const std::string got = env.count(key) ? canonical(key, env.at(key)) : "<unset>";
          const std::string expected =
              want.contains(key) ? canonical(key, want.at(key).get<std::string>()) : "<unset>";
          EXPECT_EQ(got, expected) << what << ": " << key;
        }
      } else if (accepted.is_boolean()) {
        EXPECT_EQ(res.exit_code, run.at("exit").get<int>()) << what << "\n" << log;
        // The recorded lines were cut at 287 characters: a line that long is compared as a prefix.
        const std::string message = run.at("message").get<std::string>();
        const std::string line = last_line(log);
        EXPECT_EQ(message.size() >= 287 ? line.substr(0, message.size()) : line, message) << what;
      } else {  // the launcher died of an uncaught exception: Python exits 1 with its text
        EXPECT_EQ(res.exit_code, 1) << what << "\n" << log;
        const std::string error = run.at("error").get<std::string>();
        EXPECT_NE(log.find(error.substr(error.find(": ") + 2)), std::string::npos) << what << "\n"
                                                                                   << log;
      }
    }
    EXPECT_EQ(n, 24u) << r;
  }
}

// docs/rocprofv3-releases.md shows what kprof does on each release: its table is the one
// release_support_rows() derives from the option tables, row for row.
// The rows of `rows` that `text` lacks as whole lines.
std::string missing_rows(const std::string& text, const std::vector<std::string>& rows) {
  std::string missing;
  for (const auto& row : rows)
    if (text.find(row + "\n") == std::string::npos) missing += row + "\n";
  return missing;
}

TEST(Rocprofv3Contract, TheReleasesDocumentShowsTheTablesRows) {
  const auto rows = release_support_rows();
  ASSERT_EQ(rows.size(), 2 + release_names().size());
  EXPECT_EQ(missing_rows(read_text(k_src / "docs" / "rocprofv3-releases.md"), rows), "")
      << "docs/rocprofv3-releases.md lacks these rows (or has them changed)";
}

// The README's short table of releases is release_summary_rows(), row for row.
TEST(Rocprofv3Contract, TheReadmeShowsTheSummaryRows) {
  const auto rows = release_summary_rows();
  ASSERT_EQ(rows.size(), 2 + release_names().size());
  EXPECT_EQ(missing_rows(read_text(k_src / "README.md"), rows), "")
      << "README.md lacks these rows (or has them changed)";
}

}  // namespace
}  // namespace kprof::exec
