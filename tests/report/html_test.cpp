// Unit tests of the report's writer: escaping, the SIMULATED marking and the charts' marks, on a
// hand-made ReportModel (the integration tests build it from real and simulated captures).
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "core/report/html.hpp"
#include "core/report/html_report.hpp"
#include "core/report/svg_charts.hpp"

namespace kprof::report {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const std::string k_hostile = "void f<(ck::Sched)0, \"x\", 'y'>(int&, a<b>&&)";

ReportModel model(bool simulated) {
  ReportModel m;
  m.simulated = simulated;
  m.provenance.run_id = 7;
  m.provenance.simulated = simulated;
  m.provenance.passes.push_back(
      {0, "trace", "done", 1, {}, "rocprofv3 --kernel-trace -- 'a b'", "", {}});
  m.provenance.passes.push_back({1,
                                 "counters",
                                 "done",
                                 1,
                                 {"SQ_WAVES", "FETCH_SIZE"},
                                 "rocprofv3 --pmc SQ_WAVES",
                                 "",
                                 {{"SQ", 9, 8}}});
  m.families = {{k_hostile, 3e6, 75, 30}, {"other_family", 1e6, 25, 10}};
  m.families_total_ns = 4000000;
  m.timeline.found = true;
  m.timeline.phase = analysis::Phase::decode;
  m.timeline.step_number = 2;
  m.timeline.steps = 64;
  m.timeline.rows = {"layer 1", "layer 2"};
  m.timeline.slices = {{k_hostile, k_hostile, 0, 0, 5},
                       {"k2", "other_family", 0, 6, 2},
                       {k_hostile, k_hostile, 1, 0, 5}};
  m.timeline.step_us = 20;
  m.roofline.available = true;
  m.roofline.arch = "gfx942";
  m.roofline.hbm_bytes_per_s = 5.3e12;
  m.roofline.compute = {{"matrix BF16/FP16", 1.3e15}, {"vector FP32", 1.6e14}};
  m.roofline.points = {
      {"1", k_hostile, analysis::Phase::decode, 64, 2.0, 5e12, 5e12, false, false, k_hostile},
      {"1", k_hostile, analysis::Phase::prefill, 1, 300.0, 4e14, 1e12, true, false, k_hostile},
      {"2", "other_family", analysis::Phase::decode, 64, 10.0, 9e15, 1e15, false, true, "k2"}};
  m.metrics.columns = {"variant", "family", "tbps", "suspect"};
  m.metrics.rows = {{int64_t{1}, k_hostile, 1.0, Cell()},
                    {int64_t{2}, std::string("x"), 1000.0, std::string("tbps above the HBM peak")}};
  m.metrics_flags = {"", "tbps above the HBM peak"};
  return m;
}

std::string html(const ReportModel& m) {
  std::ostringstream o;
  write_html_report(o, m);
  return o.str();
}

TEST(ReportHtml, EscapesEveryKernelName) {
  EXPECT_EQ(
      escape(k_hostile),
      "void f&lt;(ck::Sched)0, &quot;x&quot;, &#39;y&#39;&gt;(int&amp;, a&lt;b&gt;&amp;&amp;)");
  const std::string page = html(model(false));
  EXPECT_EQ(page.find("a<b>"), std::string::npos);
  EXPECT_EQ(page.find("\"x\""), std::string::npos);
  EXPECT_NE(page.find(escape(k_hostile)), std::string::npos);
}

// A trace pass with several ranks gets a section of its own, marked SIMULATED like the others.
TEST(ReportHtml, RanksHaveASectionWhenThePassHasSeveral) {
  ReportModel m = model(true);
  Table ranks;
  ranks.title = "ranks of the trace pass";
  ranks.columns = {"rank", "agent", "exposed_ns"};
  ranks.rows = {{int64_t{0}, int64_t{1}, int64_t{220}}, {int64_t{1}, int64_t{2}, int64_t{190}}};
  m.ranks = ranks;
  m.rank_lanes.found = true;
  m.rank_lanes.rows = {"rank 0 (GPU agent 1)", "rank 1 (GPU agent 2)"};
  m.rank_lanes.slices = {{"ar", "ar", 1, 0.1, 0.05}};
  m.rank_lanes.step_us = 0.15;
  m.rank_lanes.layer_basis = "matched collective 1 of 1";
  const std::string page = html(m);
  EXPECT_EQ(count(page, "<section "), 8u);
  EXPECT_EQ(count(page, "class=\"simulated-banner\""), 9u);
  const size_t at = page.find("<section id=\"ranks\">");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">190</td>", at), std::string::npos);
  EXPECT_NE(page.find("One lane per rank on one time axis: matched collective 1 of 1", at),
            std::string::npos);
  EXPECT_NE(page.find("rank 1 (GPU agent 2)</text>", at), std::string::npos);
}

TEST(ReportHtml, ShortensAtUtf8Boundaries) {
  EXPECT_EQ(shorten("abcdef", 10), "abcdef");
  EXPECT_EQ(shorten("abcdef", 4), "abc\u2026");
  // "é" is two bytes; a cut inside it backs up to before it.
  EXPECT_EQ(shorten("ab\xC3\xA9"
                    "def",
                    4),
            "ab\u2026");
}

TEST(ReportHtml, SimulatedRunSaysSoInEverySection) {
  const std::string page = html(model(true));
  const size_t sections = count(page, "<section ");
  EXPECT_EQ(sections, 7u);
  // One banner per section plus the page's own.
  EXPECT_EQ(count(page, "class=\"simulated-banner\""), sections + 1);
  EXPECT_NE(page.find("<title>kprof report: run 7 (SIMULATED)</title>"), std::string::npos);
  const std::string measured = html(model(false));
  EXPECT_EQ(count(measured, "SIMULATED"), 0u);
  EXPECT_NE(measured.find("Measured"), std::string::npos);
}

TEST(ReportHtml, SelfContained) {
  const std::string page = html(model(true));
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("href="), std::string::npos);
  // The only URL is the SVG namespace, which is a name, never fetched.
  std::regex url("https?://[^\"]*");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), url); it != std::sregex_iterator();
       ++it)
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
}

TEST(ReportHtml, ChartsHaveOneMarkPerValue) {
  const ReportModel m = model(true);
  const FamilyColours colours(m.families);
  EXPECT_EQ(count(families_svg(m.families, colours), "class=\"bar\""), 2u);
  EXPECT_EQ(count(timeline_svg(m.timeline, colours), "class=\"slice\""), 3u);
  const std::string roof = roofline_svg(m.roofline, colours);
  EXPECT_EQ(count(roof, "class=\"roof-point"), 3u);
  EXPECT_EQ(count(roof, "roof-point mixed"), 1u);
  EXPECT_EQ(count(roof, "above-peak"), 1u);
  EXPECT_EQ(count(roof, "class=\"roof compute\""), 2u);
  EXPECT_EQ(count(roof, "class=\"roof memory\""), 1u);
  // Prefill points are squares, others circles.
  EXPECT_EQ(count(roof, "<rect x="), 1u);
  EXPECT_EQ(count(roof, "<circle"), 2u);
}

// A roofline point is labelled as people say the kernel, its family and variant number, and its
// <title> holds the full demangled name, which a label would show from its return type on.
TEST(ReportHtml, RooflinePointsCarryShortNamesAndTheFullNameInTheirTitle) {
  ReportModel m = model(true);
  const std::string full =
      "std::enable_if<(4)==(4), void>::type vllm::paged_attention_v1_kernel<__hip_bfloat16, "
      "__hip_bfloat16, 128, 16, 128, (vllm::Fp8KVCacheDataType)0, false>(float*, int)";
  m.roofline.points = {{"20", "vllm::paged_attention_v1_kernel", analysis::Phase::prefill, 4, 2.0,
                        5e12, 5e12, false, false, full}};
  const std::string roof = roofline_svg(m.roofline, FamilyColours(m.families));
  const std::regex label("<text class=\"point-label\"[^>]*>([^<]*)</text>");
  const std::regex title("<g class=\"roof-point\"[^>]*><title>([^<]*)</title>");
  std::smatch ml, mt;
  ASSERT_TRUE(std::regex_search(roof, ml, label)) << roof;
  EXPECT_EQ(ml[1].str(), "vllm::paged_attention_v1_kernel v20");
  ASSERT_TRUE(std::regex_search(roof, mt, title)) << roof;
  EXPECT_NE(mt[1].str().find("vllm::paged_attention_v1_kernel v20 (prefill)"), std::string::npos)
      << mt[1].str();
  // The title is XML-escaped: (4)==(4) keeps its text, '<' and '>' become entities.
  EXPECT_NE(mt[1].str().find("kernel std::enable_if&lt;(4)==(4), void&gt;::type "
                             "vllm::paged_attention_v1_kernel&lt;__hip_bfloat16"),
            std::string::npos)
      << mt[1].str();
}

TEST(ReportHtml, FlagsFiguresAbovePeaksAndOversubscribedBlocks) {
  const std::string page = html(model(false));
  EXPECT_EQ(count(page, "<tr class=\"above-peak\">"), 1u);
  EXPECT_NE(page.find("<td>tbps above the HBM peak</td>"), std::string::npos);
  EXPECT_NE(page.find("<span class=\"flag\">SQ 9/8</span>"), std::string::npos);
}

// Every table's rows have as many cells as its header has columns: each figure sits under its
// own name (the flagged metrics table too).
TEST(ReportHtml, EveryRowHasOneCellPerHeader) {
  const std::string page = html(model(false));
  const std::regex table("<table[^>]*>([\\s\\S]*?)</table>");
  const std::regex row("<tr[^>]*>([\\s\\S]*?)</tr>");
  size_t tables = 0;
  for (std::sregex_iterator t(page.begin(), page.end(), table), end; t != end; ++t) {
    const std::string body = (*t)[1];
    size_t header = 0;
    for (std::sregex_iterator r(body.begin(), body.end(), row); r != end; ++r) {
      const std::string cells = (*r)[1];
      if (count(cells, "<th") > 0) {
        header = count(cells, "<th");
        continue;
      }
      EXPECT_EQ(count(cells, "<td"), header) << (*t)[0];
    }
    ++tables;
  }
  EXPECT_GE(tables, 3u);
}

// The explain and phases views end with the same structure summary; the page prints it once.
TEST(ReportHtml, TheStructureEvidenceAppearsOnce) {
  ReportModel m = model(false);
  const std::vector<std::string> notes = {
      "found: 63 decode steps", "evidence:", "  steps: 63 repeated steps (confidence high): ..."};
  m.explain.columns = m.phases.columns = {"family"};
  m.explain.notes = m.phases.notes = notes;
  EXPECT_EQ(count(html(m), "evidence:"), 1u);
  m.phases.notes = {"phase notes of its own"};
  const std::string page = html(m);
  EXPECT_EQ(count(page, "evidence:"), 1u);
  EXPECT_EQ(count(page, "phase notes of its own"), 1u);
}

TEST(ReportHtml, SaysWhyAChartIsMissing) {
  ReportModel m = model(false);
  m.timeline = {};
  m.timeline.why_not = "no regular step was established";
  m.roofline = {};
  m.roofline.why_not = "no hardware description for arch 'gfx1201'";
  const std::string page = html(m);
  EXPECT_NE(page.find("no regular step was established"), std::string::npos);
  EXPECT_NE(page.find("no hardware description for arch &#39;gfx1201&#39;"), std::string::npos);
  EXPECT_EQ(count(page, "class=\"slice\""), 0u);
}

}  // namespace
}  // namespace kprof::report
