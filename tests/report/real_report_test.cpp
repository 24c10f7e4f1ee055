// Golden tests of the report and the Perfetto export on real captures (tests/data/captures, see
// tests/data/SOURCES.md): `kprof ingest`, then `kprof report` and `kprof export --perfetto` as a
// user runs them, and a digest of what they show (charts' marks, what is missing and why, flags)
// compared with tests/data/report/golden/<name>.txt. The HTML of one capture with C++ template
// names is also rendered in headless Chromium. To accept a reviewed change:
// KPROF_UPDATE_GOLDEN=1 ctest -R RealReport.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/report/report_model.hpp"
#include "tests/report/browser.hpp"
#include "tests/report/trace_check.hpp"

namespace kprof::report {
namespace {

namespace fs = std::filesystem;

const fs::path k_captures = fs::path(KPROF_TEST_DATA) / "captures";
const fs::path k_golden = fs::path(KPROF_TEST_DATA) / "report" / "golden";

struct Case {
  std::string name;
  std::string input;  // relative to tests/data/captures
  bool browser = false;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run(const std::string& args, const fs::path& log) {
  const int rc = std::system(
      (std::string(KPROF_BIN_DIR) + "/kprof " + args + " > " + log.string() + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string digest(const ReportModel& m) {
  std::ostringstream o;
  o << "figures: " << (m.simulated ? "SIMULATED" : "measured") << "\n";
  o << "agent: " << m.provenance.arch << " (" << m.provenance.product << ")\n";
  o << "families chart: " << m.families.size() << " bars\n";
  for (size_t i = 0; i < m.families.size() && i < 5; ++i)
    o << "  " << m.families[i].label << " " << format_number(m.families[i].share_pct) << "% "
      << m.families[i].launches << " launches\n";
  const auto& tl = m.timeline;
  if (tl.found)
    o << "timeline: step " << tl.step_number << " of " << tl.steps << " ("
      << analysis::to_string(tl.phase) << "), " << tl.rows.size() << " rows, " << tl.slices.size()
      << " slices; " << tl.layer_basis << "\n";
  else
    o << "timeline: none: " << tl.why_not << "\n";
  const auto& r = m.roofline;
  if (r.available) {
    size_t mixed = 0, above = 0;
    for (const auto& p : r.points) {
      mixed += p.mixed;
      above += p.above_peak;
    }
    o << "roofline: " << r.arch << ", " << r.points.size() << " points (" << mixed << " mixed, "
      << above << " above a peak), " << r.rows_without_counters
      << " variant-phase rows without FLOP and byte counters" << (r.why_not.empty() ? "" : "; ")
      << r.why_not << "\n";
  } else {
    o << "roofline: none: " << r.why_not << "\n";
  }
  size_t flagged = 0;
  for (const auto& f : m.metrics_flags) flagged += !f.empty();
  o << "metrics: " << m.metrics.rows.size() << " rows, " << flagged << " flagged above a peak\n";
  o << "passes: " << m.provenance.passes.size() << "\n";
  return o.str();
}

class RealReport : public ::testing::TestWithParam<Case> {};

TEST_P(RealReport, ReportAndTraceSayWhatTheDataShows) {
  const Case& c = GetParam();
  const fs::path tmp = fs::temp_directory_path() /
                       ("kprof_real_report_" + c.name + "_" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const std::string db = (tmp / "c.db").string();
  ASSERT_EQ(run("ingest " + db + " " + (k_captures / c.input).string(), tmp / "ingest.log"), 0)
      << slurp(tmp / "ingest.log");
  const fs::path html = tmp / "report.html", trace = tmp / "trace.json";
  const int report_rc = run("report " + db + " -o " + html.string(), tmp / "report.log");
  std::string text;
  if (report_rc != 0) {
    // A capture the report cannot show (no trace pass): the refusal is the golden text, and the
    // export refuses the same way.
    text = "report: exit " + std::to_string(report_rc) + ": " + slurp(tmp / "report.log");
    const int export_rc = run("export " + db + " --perfetto " + trace.string(), tmp / "export.log");
    text += "export: exit " + std::to_string(export_rc) + ": " + slurp(tmp / "export.log");
    EXPECT_FALSE(fs::exists(html));
    EXPECT_FALSE(fs::exists(trace));
  } else {
    ASSERT_EQ(run("export " + db + " --perfetto " + trace.string(), tmp / "export.log"), 0)
        << slurp(tmp / "export.log");

    text = digest(build_report_model(db, {}));
    std::ifstream in(trace);
    const auto doc = nlohmann::json::parse(in);
    const auto tc = test::check_trace(doc);
    EXPECT_TRUE(tc.problems.empty()) << nlohmann::json(tc.problems).dump(1);
    text += "perfetto: " + std::to_string(tc.processes) + " processes, " +
            std::to_string(tc.threads) + " threads;";
    for (const auto& [cat, n] : tc.cat) text += " " + cat + " " + std::to_string(n);
    text += "\n";
    // Every kernel name reaches the page escaped: no raw '<' of a template in the HTML's text.
    const std::string page = slurp(html);
    EXPECT_EQ(page.find("<c10::"), std::string::npos);
    EXPECT_EQ(page.find("<__hip"), std::string::npos);

    if (c.browser) {
      const auto r = test::render(html, tmp);
      ASSERT_FALSE(r.check.is_null());
      EXPECT_TRUE(r.check["errors"].empty()) << r.check["errors"].dump(1);
      EXPECT_EQ(r.console, "") << r.console;
      EXPECT_TRUE(r.check["overflow"].empty()) << r.check["overflow"].dump(1);
      EXPECT_EQ(r.check["banners"], 0);
      text += "browser: " + std::to_string(r.check["sections"].get<int>()) + " sections, " +
              std::to_string(r.check["bars"].get<int>()) + " bars, " +
              std::to_string(r.check["slices"].get<int>()) + " slices, " +
              std::to_string(r.check["points"].get<int>()) + " roofline points\n";
    }
  }
  fs::remove_all(tmp);

  const fs::path golden = k_golden / (c.name + ".txt");
  if (std::getenv("KPROF_UPDATE_GOLDEN") != nullptr) {
    fs::create_directories(k_golden);
    std::ofstream(golden, std::ios::binary) << text;
    GTEST_SKIP() << "wrote " << golden;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with KPROF_UPDATE_GOLDEN=1 once";
  EXPECT_EQ(text, slurp(golden)) << "review, then KPROF_UPDATE_GOLDEN=1 ctest -R RealReport";
}

const std::string u = "uLLM-project/";

INSTANTIATE_TEST_SUITE_P(
    Captures, RealReport,
    ::testing::Values(
        // rocprofiler-sdk's documentation sample: counters without a kernel trace, which the
        // report refuses with the reason.
        Case{"rocprofiler_sdk_docs", "rocprofiler-sdk-docs"},
        // Qwen3.5-9B on a Radeon AI PRO R9700: 12 repeated steps of 928 dispatches, role not
        // established; long templated kernel names. Rendered in Chromium.
        Case{"ullm_qwen35_aq4",
             u + "2026-07-15/qwen35-9b-aq4-production-opt-v0.1/p3/"
                 "aq4-p3-diagnostic-rocprof-capture-v8",
             true},
        // Gemma-4 attention profile: weight loading, then an attention benchmark loop; a step with
        // no layers, drawn as one row (its label once overflowed the chart). Rendered.
        Case{"ullm_gemma4_reader", u + "2026-07-28/gemma4-reader-attribution-v0.1/raw/rocprof-n128",
             true},
        // FlyDSL kernel test sweep on MI350X: no repetition, so no steps. Rendered.
        // SQ8 decode attention root cause: a counter pass of the trace's own invocation, joined
        // by Dispatch_Id; on the counter pass's own process track. Rendered.
        Case{"ullm_sq8_rootcause", u + "2026-07-26/sq8-decode-attention-rootcause/phase0-pmc-root",
             true},
        // A folder of two invocations (without and with eviction) and their counter passes:
        // ingested as two runs; the report shows the latest (with eviction, 2 counter passes).
        Case{"ullm_sq8_component", u + "2026-07-10/sq8-optimized-component-v0.1/profiler", true},
        // Marker, copy and stats files but no kernel trace (it was over 4 MiB), and a counter
        // capture of another prefix: two runs; the latest (counters only) is refused.
        Case{"ullm_sq8_phase1_no_kernel_trace",
             u + "2026-07-26/sq8-r9700-attention-phase1-v0.1/decode"},
        // PyTorch + FlyDSL flash attention on MI350X: "at::native::(anonymous namespace)::..."
        // kernels, whose family was once "at::native::". Rendered.
        Case{"flydsl_flash_attn", "flydsl-kernel-profiling/flash_attn_func/compute_viewer", true},
        Case{"flydsl_pa_mqa", "flydsl-kernel-profiling/pa_mqa_logits_fp4/compute_viewer", true}),
    [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

}  // namespace
}  // namespace kprof::report
