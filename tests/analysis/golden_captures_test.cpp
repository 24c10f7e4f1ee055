// Golden tests on every real capture in tests/data/captures (see tests/data/SOURCES.md): `kprof
// ingest` then `kprof query DB explain` and `kprof query DB phases`, as a user runs them, compared
// with tests/data/analysis/golden/<name>.txt. Each golden file was read against the capture by hand
// once (the reasons are in the comments below); a change in what kprof says about a real trace
// shows up as a diff here. To accept a reviewed change: KPROF_UPDATE_GOLDEN=1 ctest -R
// GoldenCapture.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/analysis/outline/run_outline.hpp"
#include "core/base/error.hpp"
#include "core/hw/target.hpp"
#include "tests/analysis/metrics_cache_check.hpp"

namespace {

namespace fs = std::filesystem;

const std::string k_kprof = std::string(KPROF_BIN_DIR) + "/kprof";
const fs::path k_captures = fs::path(KPROF_TEST_DATA) / "captures";
const fs::path k_golden = fs::path(KPROF_TEST_DATA) / "analysis" / "golden";

struct Case {
  std::string name;                 // golden file stem
  std::vector<std::string> inputs;  // relative to tests/data/captures
  std::vector<std::string> queries = {"explain", "phases"};
  // More `kprof ingest` commands after the first, into the same database: their words are
  // capture paths (relative to tests/data/captures) or flags (--run NAME, --replace).
  std::vector<std::vector<std::string>> more_ingests = {};
  // Dispatch_Id ranges [first, last) to keep: the one input folder's agent_info and kernel_trace
  // files are copied to $TMP/windowed with every other kernel-trace row removed (a windowed
  // capture, made from a real one) and that folder is ingested instead.
  std::vector<std::pair<int64_t, int64_t>> keep_ids = {};
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `kprof ARGS`, returns "$ kprof ARGS\n<stdout+stderr>exit=N\n" with the temp dir and the
// captures path replaced by placeholders, so the text is the same on every machine.
std::string run(const fs::path& tmp, const std::string& shown, const std::string& args) {
  const fs::path out = tmp / "out.txt";
  const int rc = std::system((k_kprof + " " + args + " > " + out.string() + " 2>&1").c_str());
  std::string text = slurp(out);
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace_all(tmp.string(), "$TMP");
  replace_all(k_captures.string(), "$CAPTURES");
  replace_all(k_captures.lexically_normal().string(),
              "$CAPTURES");  // kprof ingest's absolute paths
  return "$ kprof " + shown + "\n" + text + "exit=" + std::to_string(WEXITSTATUS(rc)) + "\n";
}

// Copies `from`'s agent_info and kernel_trace CSV files to `to`, keeping the kernel-trace rows
// whose Dispatch_Id (the 6th field; the fields before it hold no comma) is in one of `keep`.
void cut_windows(const fs::path& from, const fs::path& to,
                 const std::vector<std::pair<int64_t, int64_t>>& keep) {
  fs::create_directories(to);
  for (const auto& e : fs::directory_iterator(from)) {
    const std::string name = e.path().filename().string();
    if (name.find("agent_info.csv") != std::string::npos) fs::copy_file(e.path(), to / name);
    if (name.find("kernel_trace.csv") == std::string::npos) continue;
    std::ifstream in(e.path());
    std::ofstream out(to / name);
    std::string line;
    std::getline(in, line);
    out << line << "\n";
    while (std::getline(in, line)) {
      size_t at = 0;
      for (int f = 0; f < 5; ++f) at = line.find(',', at) + 1;
      const int64_t id = std::stoll(line.substr(at));
      for (const auto& [a, b] : keep)
        if (id >= a && id < b) out << line << "\n";
    }
  }
}

// The stored join mapping of `path`, row for row (the unmatched in the order stored), without the
// time it was made.
std::string join_tables(const std::string& path) {
  SQLite::Database d(path);
  std::string out;
  for (const char* q :
       {"SELECT * FROM analysis_join ORDER BY 1, 2, 3",
        "SELECT * FROM analysis_unmatched ORDER BY rowid",
        "SELECT * FROM analysis_join_proofs ORDER BY 1",
        "SELECT * FROM analysis_join_files ORDER BY 1, 2",
        "SELECT counter_pass_id, trace_pass_id, counter_dispatches, trace_dispatches, "
        "trace_considered, matched, matched_share, filtered, streams FROM analysis_join_passes "
        "ORDER BY 1"}) {
    out += std::string(q) + "\n";
    SQLite::Statement s(d, q);
    while (s.executeStep()) {
      for (int i = 0; i < s.getColumnCount(); ++i) out += s.getColumn(i).getString() + "|";
      out += "\n";
    }
  }
  return out;
}

// A copy of `db` (VACUUM INTO: the WAL's pages too) without its stored joins and outline.
std::string copy_without_analysis(const std::string& db, const fs::path& to) {
  fs::remove(to);
  SQLite::Database(db).exec("VACUUM INTO '" + to.string() + "'");
  SQLite::Database(to.string(), SQLite::OPEN_READWRITE)
      .exec(
          "DELETE FROM analysis_join; DELETE FROM analysis_unmatched; DELETE FROM "
          "analysis_join_passes; DELETE FROM analysis_join_proofs; DELETE FROM "
          "analysis_join_files; DELETE FROM analysis_outline_segments; DELETE FROM "
          "analysis_outline_passes; DELETE FROM analysis_outline;");
  return to.string();
}

// A first export that must join counter passes joins them from the database, each
// sequence the join holds spilled past a few KiB (analysis::try_join_stored), without loading the
// capture. What it stores must be the in-memory join's mapping row for row (ensure_joins on the
// loaded capture: by id for the SQ8 root cause and the probes, aligned for the SQ8 component and
// the rocprofiler-sdk samples), and the export the bytes of one that joined in memory.
void check_bounded_join(const fs::path& tmp, const std::string& db, const fs::path& first_export) {
  namespace an = kprof::analysis;
  const std::string ref = copy_without_analysis(db, tmp / "ref.db");
  {
    kprof::store::CaptureDb rdb(ref, kprof::store::OpenMode::read_write);
    an::ensure_joins(rdb, an::load_capture(rdb, {}));
  }
  const std::string api = copy_without_analysis(db, tmp / "api.db");
  {
    kprof::store::CaptureDb adb(api, kprof::store::OpenMode::read_write);
    const auto rt = an::find_run_trace(adb, {});
    const auto counts = an::run_counts(adb, rt);
    size_t step = 0;
    (void)an::compute_outline_bounded(adb, rt, counts, 4096, &step);
    const auto joined =
        an::try_join_stored(adb, counts, an::join_jump_bound(step, counts.trace.dispatches), 4096);
    ASSERT_TRUE(joined.has_value());
    EXPECT_EQ(joined->size(), counts.counters.size());
  }
  EXPECT_EQ(join_tables(api), join_tables(ref)) << "the bounded join is not the in-memory one";
  const std::string cli = copy_without_analysis(db, tmp / "cli.db");
  ASSERT_EQ(
      std::system(("KPROF_SPILL_BYTES=4096 " + k_kprof + " export " + cli + " --perfetto " +
                   (tmp / "joined.json").string() + " > " + (tmp / "export.txt").string() + " 2>&1")
                      .c_str()),
      0)
      << slurp(tmp / "export.txt");
  EXPECT_EQ(join_tables(cli), join_tables(ref)) << "the first export's join is not in-memory's";
  EXPECT_TRUE(slurp(tmp / "joined.json") == slurp(first_export))
      << "the export that joined from the database differs";
}

// `kprof export --perfetto` stores the run's outline (core/analysis/outline/run_outline.hpp)
// and a later export reads it instead of loading the capture. The stored outline must be what the
// in-memory analysis finds now (phase detection on the loaded capture), and the export that reads
// it (joined counters streamed from the stored mapping) must write the same bytes as the one that
// computed it.
void check_stored_outline(const fs::path& tmp, const std::string& db) {
  const fs::path a = tmp / "computed.json", b = tmp / "stored.json";
  auto exp = [&](const fs::path& out, const std::string& env = "") {
    return std::system((env + k_kprof + " export " + db + " --perfetto " + out.string() + " > " +
                        (tmp / "export.txt").string() + " 2>&1")
                           .c_str());
  };
  if (exp(a) != 0) {
    EXPECT_NE(exp(b), 0) << "the second export did not refuse as the first did";
    return;  // no trace pass with dispatches: nothing outlined
  }
  kprof::store::CaptureDb cdb(db, kprof::store::OpenMode::read_only);
  const auto counts = kprof::analysis::run_counts(cdb, kprof::analysis::find_run_trace(cdb, {}));
  const auto stored = kprof::analysis::read_outline(cdb, counts);
  ASSERT_TRUE(stored.has_value()) << "the export did not store the outline of " << db;
  const auto cap = kprof::analysis::load_capture(cdb, {});
  const kprof::analysis::RunOutline in_memory = kprof::analysis::compute_outline(cap);
  EXPECT_TRUE(*stored == in_memory) << "the stored outline is not the in-memory analysis' ";
  // The bounded first export's outline (read from the database, its columns spilled in blocks of
  // 14 dispatches, so nearly every read crosses a block) is the in-memory analysis' too.
  EXPECT_TRUE(kprof::analysis::compute_outline_bounded(
                  cdb, kprof::analysis::find_run_trace(cdb, {}), counts, 4096) == in_memory)
      << "the bounded outline is not the in-memory analysis'";
  // The same through the CLI, spilling for real: with the stored outline deleted, a first export
  // whose spill vectors hold 4 KiB (blocks of 14 dispatches) writes the bytes the first export
  // wrote, and stores the outline again.
  auto drop_outline = [&] {
    SQLite::Database(db, SQLite::OPEN_READWRITE)
        .exec(
            "DELETE FROM analysis_outline_segments; DELETE FROM analysis_outline_passes; "
            "DELETE FROM analysis_outline;");
  };
  const fs::path c = tmp / "spilled.json";
  drop_outline();
  ASSERT_EQ(exp(c, "KPROF_SPILL_BYTES=4096 "), 0) << slurp(tmp / "export.txt");
  EXPECT_TRUE(slurp(a) == slurp(c)) << "the spilled first export differs";
  EXPECT_TRUE(kprof::analysis::read_outline(cdb, counts).has_value());
  // Where no spill file can be made, it fails, naming the folder and the fix, and stores nothing.
  if (cap.trace.dispatches.size() > 100) {
    drop_outline();
    EXPECT_EQ(WEXITSTATUS(exp(c, "KPROF_SPILL_BYTES=4096 TMPDIR=/nonexistent/kprof-golden ")), 1);
    const std::string said = slurp(tmp / "export.txt");
    EXPECT_NE(said.find("/nonexistent/kprof-golden"), std::string::npos) << said;
    EXPECT_NE(said.find("TMPDIR"), std::string::npos) << said;
    EXPECT_FALSE(kprof::analysis::read_outline(cdb, counts).has_value());
    ASSERT_EQ(exp(c), 0) << slurp(tmp / "export.txt");  // stores it again for what follows
  }
  // The export's metrics per slice (bound per counter set) are the query's (dispatch_metrics),
  // where the arch has a hardware file (none of today's real captures with counters: gfx1201).
  if (cap.counters.empty()) return;
  check_bounded_join(tmp, db, a);
  std::optional<kprof::hw::Target> target;
  try {
    target = kprof::hw::Target::load_arch(cap.arch);
  } catch (const kprof::Error&) {
    return;  // no hardware file for the arch: the export derives no metrics
  }
  kprof::analysis::test::expect_cache_matches_dispatch_metrics(
      *target, kprof::analysis::load_joined_counters(cdb, cap));
  EXPECT_GT(stored->segments.size(), 0u);
  ASSERT_EQ(exp(b), 0) << slurp(tmp / "export.txt");
  EXPECT_TRUE(slurp(a) == slurp(b)) << "the export from the stored outline differs";
}

class GoldenCapture : public ::testing::TestWithParam<Case> {};

TEST_P(GoldenCapture, ExplainAndPhasesSayWhatTheDataShows) {
  const Case& c = GetParam();
  const fs::path tmp =
      fs::temp_directory_path() / ("kprof_golden_" + c.name + "_" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const std::string db = (tmp / "c.db").string();
  std::string inputs, shown_inputs;
  for (const auto& i : c.inputs) {
    if (!c.keep_ids.empty()) {
      cut_windows(k_captures / i, tmp / "windowed", c.keep_ids);
      inputs += " " + (tmp / "windowed").string();
      shown_inputs += " $TMP/windowed";
      continue;
    }
    inputs += " " + (k_captures / i).string();
    shown_inputs += " $CAPTURES/" + i;
  }
  std::string text = c.inputs.empty()
                         ? std::string()
                         : run(tmp, "ingest c.db" + shown_inputs, "ingest " + db + inputs);
  for (const auto& words : c.more_ingests) {
    std::string args, shown;
    for (size_t i = 0; i < words.size(); ++i) {
      const bool literal = words[i].rfind("--", 0) == 0 || (i > 0 && words[i - 1] == "--run");
      args += " " + (literal ? words[i] : (k_captures / words[i]).string());
      shown += " " + (literal ? words[i] : "$CAPTURES/" + words[i]);
    }
    text += run(tmp, "ingest c.db" + shown, "ingest " + db + args);
  }
  for (const auto& q : c.queries) text += run(tmp, "query c.db " + q, "query " + db + " " + q);
  if (fs::exists(db)) check_stored_outline(tmp, db);
  fs::remove_all(tmp);

  const fs::path golden = k_golden / (c.name + ".txt");
  if (std::getenv("KPROF_UPDATE_GOLDEN") != nullptr) {
    fs::create_directories(k_golden);
    std::ofstream(golden, std::ios::binary) << text;
    GTEST_SKIP() << "wrote " << golden;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with KPROF_UPDATE_GOLDEN=1 once";
  if (text != slurp(golden)) {
    // A readable diff rather than two escaped strings.
    const fs::path actual = fs::temp_directory_path() / ("kprof_golden_" + c.name + ".actual");
    std::ofstream(actual, std::ios::binary) << text;
    const fs::path diff = actual.string() + ".diff";
    (void)std::system(
        ("diff -u " + golden.string() + " " + actual.string() + " > " + diff.string()).c_str());
    ADD_FAILURE() << "kprof's explanation of " << c.name << " changed (review the diff, then "
                  << "KPROF_UPDATE_GOLDEN=1):\n"
                  << slurp(diff);
  }
}

const std::string u = "uLLM-project/";

INSTANTIATE_TEST_SUITE_P(
    RealCaptures, GoldenCapture,
    ::testing::Values(
        // FlyDSL kernel tests on MI350X (gfx950): 45 dispatches of 19 kernels, no repetition.
        Case{"flydsl_flash_attn", {"flydsl-kernel-profiling/flash_attn_func/compute_viewer"}},
        // The same harness, 532 dispatches of 74 kernels: a test sweep, not a generation loop.
        Case{"flydsl_pa_mqa", {"flydsl-kernel-profiling/pa_mqa_logits_fp4/compute_viewer"}},
        // rocprofiler-sdk's documentation sample: a kernel trace and a counter collection side by
        // side, but from two different runs (pids, kernel ids, agents and times differ): two
        // runs; the newest holds counters only, and a trace view of it names the run with one.
        Case{"rocprofiler_sdk_docs",
             {"rocprofiler-sdk-docs"},
             {"explain", "explain --run 1", "phases --run 1", "passes --run 1", "counters"}},
        // Qwen3.5-9B AQ4 on a Radeon AI PRO R9700: 1,127 set-up dispatches, then 12 runs of 928
        // dispatches, one per roctx range of the capture's marker trace (2 warm-up, 10 measured
        // "cold_prefill" runs of the same case): 12 repeated steps, role not established.
        // Machine forms: phases with each phase's evidence (JSON), every statement about the
        // structure as fields (JSON), the one window (CSV, full precision).
        Case{"ullm_qwen35_aq4",
             {u + "2026-07-15/qwen35-9b-aq4-production-opt-v0.1/p3/"
                  "aq4-p3-diagnostic-rocprof-capture-v8"},
             {"explain", "phases", "phases --format json", "structure --format json",
              "windows --format csv"}},
        // A windowed trace, cut from that capture: Dispatch_Ids [2500, 5100),
        // [6000, 8400) and [10000, 12264) kept. Three windows with the ids missing before each;
        // whole steps only where a window holds one (runs start at 1128 + 928 k: 2 + 1 + 2), the
        // cut ones partial; no prefill.
        Case{"ullm_qwen35_aq4_windowed",
             {u + "2026-07-15/qwen35-9b-aq4-production-opt-v0.1/p3/"
                  "aq4-p3-diagnostic-rocprof-capture-v8"},
             {"explain", "windows --format csv", "structure --format json", "phases --format csv"},
             {},
             {{2500, 5100}, {6000, 8400}, {10000, 12264}}},
        // Gemma-4 attention profile with 128 prompt tokens (its rocprof stderr gives the
        // command): weight loading, then a KV-write + decode-attention loop (2 repeated steps of
        // 4610 dispatches, role not established), then a second loop of 4 × 2158 dispatches
        // (blocks of 534 plus one full-attention launch each). The second loop is said to be a
        // loop of its own (phase unknown), not irregular steps of the first. The structured
        // explain (CSV) gives one row per term with its evidence.
        Case{"ullm_gemma4_reader",
             {u + "2026-07-28/gemma4-reader-attribution-v0.1/raw/rocprof-n128"},
             {"explain", "phases", "explain --format csv"}},
        // Gemma-4 MoE generate: 5 copy kernels, HIP API, memory copies and allocations.
        Case{"ullm_gemma4_moe", {u + "2026-07-27/gemma4-moe-profile-v0.1/raw/moe-generate"}},
        // SQ8 decode-attention root cause: one invocation with trace and counters (pid 564735):
        // the trace is pass 0, the counters pass 1, joined by Dispatch_Id (the 106 decode
        // attention launches the kernel filter kept). Pairs of kernels alternate with no host
        // gap between them, so no steps are claimed. The metric sets' formulas are written for
        // gfx942; on this gfx1201 capture metric_sets says it has no hardware file to evaluate
        // them with, rather than evaluate them.
        Case{"ullm_sq8_rootcause",
             {u + "2026-07-26/sq8-decode-attention-rootcause/phase0-pmc-root"},
             {"explain", "phases", "passes", "counters", "metric_sets"}},
        // SQ8 component profile: two traces (-o component-m8 and component-m8-evicted) in one
        // folder and three counter captures below it: two runs, each with the counter captures of
        // its own prefix, aligned (other application runs: other pids and times). Run 2's two
        // counters are 0 on every dispatch: the counters view says that proves nothing.
        Case{"ullm_sq8_component",
             {u + "2026-07-10/sq8-optimized-component-v0.1/profiler"},
             {"explain --run 1", "phases --run 1", "passes --run 1", "counters --run 1",
              "explain --run 2", "phases --run 2", "passes --run 2", "counters --run 2"}},
        // Four separate probe captures in sibling folders: three with trace + counters (joined
        // by id; each trace is 16 launches of one probe kernel: a kernel benchmark, said so, no
        // steps), one with counters only (no trace: explain says so).
        Case{"ullm_sq8_probes",
             {u + "2026-07-26/sq8_0-attention-optimization-u-v0.1/pmc"},
             {"explain --run 1", "phases --run 1", "passes --run 1", "explain --run 2",
              "phases --run 2", "phases --run 3", "passes --run 3", "explain --run 4"}},
        // Two captures of a decode-attention run, neither with a kernel trace: stats and markers
        // (`-o sq8-attention-decode-default`), and counters (`-o sq8-attention-decode-pmc`), a run
        // each (another prefix is another capture); nothing to explain from, and it says why.
        Case{"ullm_sq8_phase1_decode", {u + "2026-07-26/sq8-r9700-attention-phase1-v0.1/decode"}},
        // A hand-made capture, file by file into one run: the kernel trace, then the
        // HIP API trace (it joins the trace pass, the 5 dispatches stay), the memory copies and
        // allocations; then the same kernel trace again (reloaded, nothing doubled), then another
        // capture's kernel trace (refused: it would replace the trace), then with --replace.
        Case{"ullm_gemma4_moe_file_by_file",
             {},
             {"passes"},
             {{u + "2026-07-27/gemma4-moe-profile-v0.1/raw/moe-generate/moe_kernel_trace.csv",
               "--run", "moe"},
              {u + "2026-07-27/gemma4-moe-profile-v0.1/raw/moe-generate/moe_hip_api_trace.csv",
               "--run", "moe"},
              {u + "2026-07-27/gemma4-moe-profile-v0.1/raw/moe-generate/moe_agent_info.csv",
               u + "2026-07-27/gemma4-moe-profile-v0.1/raw/moe-generate/"
                   "moe_memory_copy_trace.csv",
               u + "2026-07-27/gemma4-moe-profile-v0.1/raw/moe-generate/"
                   "moe_memory_allocation_trace.csv",
               "--run", "moe"},
              {u + "2026-07-27/gemma4-moe-profile-v0.1/raw/moe-generate/moe_kernel_trace.csv",
               "--run", "moe"},
              {u + "2026-07-10/sq8-optimized-component-v0.1/profiler/component-m8_kernel_trace.csv",
               "--run", "moe"},
              {u + "2026-07-10/sq8-optimized-component-v0.1/profiler/component-m8_kernel_trace.csv",
               "--run", "moe", "--replace"}}},
        // Omniperf's MI300X vcopy workload: rocprofv2 output, not a rocprofv3 format.
        Case{"omniperf_vcopy", {"omniperf/vcopy/MI300X_A1"}}),
    [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

}  // namespace
