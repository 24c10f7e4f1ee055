// `kprof export --perfetto` of the simulated Qwen3 run (ctest fixture report_sim_runs): the JSON
// parses, has the required fields, one slice per dispatch, nested slices per thread, the steps;
// the streamed export's slices say of each dispatch what the in-memory trace model says.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "core/analysis/metrics/metrics.hpp"
#include "core/analysis/outline/run_outline.hpp"
#include "core/analysis/outline/stored_results.hpp"
#include "core/analysis/views/session.hpp"
#include "core/report/perfetto.hpp"
#include "tests/analysis/backwards_steps.hpp"
#include "tests/report/tp_capture.hpp"
#include "tests/report/trace_check.hpp"

namespace kprof::report {
namespace {

namespace fs = std::filesystem;

const fs::path k_sim_db = fs::path(KPROF_REPORT_SIM_DIR) / "qwen3-64" / "qwen3-64.db";

// The simulated run's export, made once for the tests of this file.
const nlohmann::json& sim_trace() {
  static const nlohmann::json doc = [] {
    const fs::path dir =
        fs::temp_directory_path() / ("kprof_perfetto_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path out = dir / "trace.json";
    const std::string cmd = std::string(KPROF_BIN_DIR) + "/kprof export " + k_sim_db.string() +
                            " --perfetto " + out.string() + " > " + (dir / "out.txt").string();
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(out);
    auto parsed = nlohmann::json::parse(in, nullptr, false);
    fs::remove_all(dir);
    return parsed;
  }();
  return doc;
}

// The schema check itself: a well-formed document passes, and each required field missing (or of
// the wrong type) is reported, so a writer that dropped one would fail the export tests.
TEST(PerfettoExport, TraceCheckReportsEachMissingRequiredField) {
  const auto good = nlohmann::json::parse(R"({"traceEvents":[
    {"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"p"}},
    {"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"q"}},
    {"name":"k","ph":"X","pid":1,"tid":2,"ts":1.5,"dur":2.25,"args":{"family":"f"}},
    {"name":"k","ph":"X","pid":1,"tid":2,"ts":2.0,"dur":1.0,"args":{}}]})");
  const auto ok = test::check_trace(good);
  EXPECT_TRUE(ok.problems.empty()) << nlohmann::json(ok.problems).dump(1);
  EXPECT_EQ(ok.cat.at(""), 2);
  for (const char* field : {"name", "ph", "pid", "tid", "ts", "dur", "args"}) {
    auto bad = good;
    bad["traceEvents"][2].erase(field);
    EXPECT_FALSE(test::check_trace(bad).problems.empty()) << "without " << field;
  }
  auto bad = good;
  bad["traceEvents"][2]["pid"] = "1";
  EXPECT_FALSE(test::check_trace(bad).problems.empty()) << "a string pid";
  bad = good;
  bad["traceEvents"][3]["ts"] = 3.0;  // starts inside the first and ends after it
  bad["traceEvents"][3]["dur"] = 1.0;
  EXPECT_FALSE(test::check_trace(bad).problems.empty()) << "overlapping slices of one thread";
  bad = good;
  bad["traceEvents"].erase(1);  // thread 1/2 unnamed
  EXPECT_FALSE(test::check_trace(bad).problems.empty()) << "an unnamed thread";
}

// The checks of what Perfetto's importer would drop or misread, each shown to fail once: a
// negative ts, a pid or tid outside [0, 2^32), a process or thread name that is empty or missing,
// a NaN, and two slices of one thread that overlap by one nanosecond without nesting (while one
// that starts where another ends is disjoint).
TEST(PerfettoExport, TraceCheckReportsWhatPerfettoWouldDropOrMisread) {
  const auto good = nlohmann::json::parse(R"({"traceEvents":[
    {"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"p"}},
    {"name":"thread_name","ph":"M","pid":1,"tid":4294967295,"args":{"name":"q"}},
    {"name":"k","ph":"X","pid":1,"tid":4294967295,"ts":1.5,"dur":2.25,"args":{}},
    {"name":"k","ph":"X","pid":1,"tid":4294967295,"ts":2.0,"dur":1.75,"args":{}},
    {"name":"k","ph":"X","pid":1,"tid":4294967295,"ts":3.75,"dur":1,"args":{}}]})");
  const auto ok = test::check_trace(good);
  EXPECT_TRUE(ok.problems.empty()) << nlohmann::json(ok.problems).dump(1);
  auto fails = [&](const char* what, const std::function<void(nlohmann::json&)>& breaks,
                   const std::string& says) {
    auto bad = good;
    breaks(bad["traceEvents"]);
    const auto c = test::check_trace(bad);
    ASSERT_FALSE(c.problems.empty()) << what;
    EXPECT_NE(c.problems.front().find(says), std::string::npos)
        << what << ": " << c.problems.front();
  };
  fails(
      "a negative ts", [](auto& ev) { ev[2]["ts"] = -0.001; }, "negative ts");
  fails(
      "a negative pid", [](auto& ev) { ev[0]["pid"] = -1; }, "outside [0, 2^32)");
  fails(
      "a tid of 2^32", [](auto& ev) { ev[3]["tid"] = 4294967296ull; }, "outside [0, 2^32)");
  fails(
      "an empty process name", [](auto& ev) { ev[0]["args"]["name"] = ""; }, "non-empty");
  fails(
      "a thread name without args.name", [](auto& ev) { ev[1]["args"].erase("name"); },
      "non-empty");
  fails(
      "a NaN arg", [](auto& ev) { ev[2]["args"]["flops"] = std::nan(""); }, "NaN");
  fails(
      "an infinite dur", [](auto& ev) { ev[4]["dur"] = HUGE_VAL; }, "NaN or infinite");
  fails(
      "a slice one ns past the one enclosing it", [](auto& ev) { ev[3]["dur"] = 1.751; },
      "without nesting");
  // A document as text cannot carry them: nlohmann refuses the bare words as JSON does (RFC 8259
  // has no NaN or Infinity), so a trace that had them would fail every export test's parse.
  for (const char* word : {"NaN", "Infinity", "-Infinity"}) {
    const std::string text = std::string(R"({"traceEvents":[],"x":)") + word + "}";
    EXPECT_TRUE(nlohmann::json::parse(text, nullptr, false).is_discarded()) << word;
  }
}

// A step whose first dispatch by Dispatch_Id starts before the previous step's dispatches (a
// later-enqueued kernel on a quieter queue): the phase and step slices made of the outline's
// segments (analysis::outline_segments, for_each_enclosing) nest on the "phases and steps"
// thread. The segments as outline version 2 made them (each from its own first start) put the
// second step partly outside the phase, which the check reports.
TEST(PerfettoExport, EnclosingSlicesNestWhenAStepStartsBeforeThePreviousOne) {
  const analysis::PhaseModel pm = analysis::test::backwards_steps_model();
  PerfettoOutline o;
  o.main_pid = 7;
  o.base_ns = 50;  // the trace's first start
  auto enclosing = [&](const std::vector<analysis::OutlineSegment>& segs) {
    o.segments = segs;
    nlohmann::json ev = nlohmann::json::array();
    ev.push_back(
        {{"name", "process_name"}, {"ph", "M"}, {"pid", 7}, {"tid", 0}, {"args", {{"name", "p"}}}});
    ev.push_back({{"name", "thread_name"},
                  {"ph", "M"},
                  {"pid", 7},
                  {"tid", 1},
                  {"args", {{"name", "phases and steps"}}}});
    for_each_enclosing(o, [&](const EnclosingSlice& s) {
      ev.push_back({{"name", s.name},
                    {"ph", "X"},
                    {"pid", 7},
                    {"tid", 1},
                    {"cat", s.cat},
                    {"ts", static_cast<double>(s.start_ns) / 1000},
                    {"dur", static_cast<double>(s.dur_ns) / 1000},
                    {"args", nlohmann::json::parse(s.args)}});
    });
    return nlohmann::json{{"traceEvents", ev}};
  };
  const auto now = test::check_trace(enclosing(analysis::outline_segments(pm)));
  EXPECT_TRUE(now.problems.empty()) << nlohmann::json(now.problems).dump(1);
  EXPECT_EQ(now.cat.at("phase"), 1);
  EXPECT_EQ(now.cat.at("step"), 3);

  auto old = analysis::outline_segments(pm);
  // Version 2: each segment from its own first dispatch's start, cut at the next one's.
  old[0].end_ns = 50;  // before its own start: a slice of no duration at 100
  old[1].start_ns = 50;
  const auto then = test::check_trace(enclosing(old));
  ASSERT_FALSE(then.problems.empty());
  EXPECT_NE(then.problems.front().find("without nesting"), std::string::npos)
      << then.problems.front();
}

TEST(PerfettoExport, SimulatedRunHasOneSlicePerDispatchAndEveryStep) {
  const auto& doc = sim_trace();
  ASSERT_FALSE(doc.is_discarded());
  const auto c = test::check_trace(doc);
  EXPECT_TRUE(c.problems.empty()) << nlohmann::json(c.problems).dump(1);

  analysis::QuerySession s = analysis::QuerySession::open(k_sim_db, {});
  const auto& cap = s.capture();
  EXPECT_EQ(c.cat.at("dispatch"), static_cast<int64_t>(cap.trace.dispatches.size()));
  int64_t counter_dispatches = 0;
  for (const auto& p : cap.counters)
    counter_dispatches += static_cast<int64_t>(p.dispatches.size());
  EXPECT_EQ(c.cat.at("counter pass dispatch"), counter_dispatches);
  // 1 prefill + 63 decode steps, and the phases around them.
  EXPECT_EQ(c.cat.at("step"), 64);
  EXPECT_GE(c.cat.at("phase"), 2);
  EXPECT_TRUE(doc["otherData"]["simulated"].get<bool>());
  // Every claim `kprof query DB claims` makes, in otherData and as an instant event on the
  // "phases and steps" thread: the structure's (steps, phases, layers, windows) and each
  // join mapping's, with confidence, evidence and reason.
  const auto held = s.view("claims", {});
  ASSERT_TRUE(doc["otherData"]["claims"].is_array());
  ASSERT_EQ(doc["otherData"]["claims"].size(), held.rows.size());
  std::set<std::string> topics;
  for (size_t i = 0; i < held.rows.size(); ++i) {
    const auto& claim = doc["otherData"]["claims"][i];
    EXPECT_EQ(claim["topic"], cell_text(held.rows[i][0])) << claim.dump();
    EXPECT_EQ(claim["confidence"], cell_text(held.rows[i][3])) << claim.dump();
    const std::string conf = claim["confidence"];
    EXPECT_TRUE(conf == "high" || conf == "medium" || conf == "low" || conf == "unknown") << conf;
    if (conf == "unknown") {
      EXPECT_FALSE(claim["reason"].get<std::string>().empty());
    }
    topics.insert(claim["topic"].get<std::string>());
  }
  for (const char* t : {"steps", "join"}) EXPECT_TRUE(topics.count(t)) << t;
  size_t instants = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("cat", "") != "claim") continue;
    EXPECT_EQ(e["ph"], "i");
    EXPECT_EQ(e["tid"], 1);
    EXPECT_EQ(e["args"], doc["otherData"]["claims"][instants]) << e.dump();
    ++instants;
  }
  EXPECT_EQ(instants, held.rows.size());
  // A fused_moe_kernel decode dispatch carries its counters and derived metrics.
  bool found = false;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("cat", "") != "dispatch" || e["args"]["family"] != "fused_moe_kernel" ||
        e["args"]["phase"] != "decode")
      continue;
    EXPECT_TRUE(e["args"].contains("counters")) << e.dump();
    EXPECT_TRUE(e["args"].contains("flop_per_byte")) << e.dump();
    EXPECT_TRUE(e["args"]["simulated"].get<bool>());
    EXPECT_TRUE(e["args"].contains("step"));
    found = true;
    break;
  }
  EXPECT_TRUE(found);
}

// The export streams the dispatches from the store and finds family, variant, phase and step on
// its own (core/report/perfetto.cpp); here every slice is held against the query session's trace
// model and joined counters for the same dispatch, and each process's slices are in start order.
TEST(PerfettoExport, StreamedSlicesSayWhatTheTraceModelSays) {
  const auto& doc = sim_trace();
  ASSERT_FALSE(doc.is_discarded());
  analysis::QuerySession s = analysis::QuerySession::open(k_sim_db, {});
  const auto& cap = s.capture();
  const auto& m = s.model();
  const auto& joined = s.joined();
  const hw::Target* target = s.target();
  ASSERT_NE(target, nullptr);
  std::map<std::pair<int64_t, int64_t>, size_t> index;  // (pid, Dispatch_Id) -> dispatch
  for (size_t k = 0; k < cap.trace.dispatches.size(); ++k)
    index[{cap.trace.dispatches[k].pid, cap.trace.dispatches[k].dispatch_id}] = k;
  // Steps numbered as the report and the export number them: prefill, decode, step, irregular.
  std::vector<int64_t> number(m.phases.steps.size(), 0);
  int64_t n = 0;
  for (size_t i = 0; i < m.phases.steps.size(); ++i) {
    const auto p = m.phases.steps[i].phase;
    if (p == analysis::Phase::prefill || p == analysis::Phase::decode ||
        p == analysis::Phase::step || p == analysis::Phase::irregular)
      number[i] = ++n;
  }
  const std::vector<int> step_of = m.step_of_dispatches();
  std::map<int64_t, double> last_ts;  // per process
  size_t checked = 0, with_counters = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("cat", "") != "dispatch") continue;
    const auto& a = e["args"];
    const auto it = index.find({e["pid"].get<int64_t>(), a["dispatch_id"].get<int64_t>()});
    ASSERT_NE(it, index.end()) << e.dump();
    const size_t k = it->second;
    const auto& d = cap.trace.dispatches[k];
    const auto& v = m.variants[static_cast<size_t>(m.variant_of[k])];
    // The slice is named as people say the kernel, its family and variant; the args carry the
    // full name, and the name never starts with a demangled signature's return type.
    EXPECT_EQ(e["name"], v.family + " v" + std::to_string(v.index)) << e.dump();
    EXPECT_EQ(e["name"].get<std::string>().find("std::"), std::string::npos) << e.dump();
    EXPECT_EQ(a["kernel"], cap.names.name(d.name));
    EXPECT_EQ(a["family"], v.family) << e.dump();
    EXPECT_EQ(a["variant"], v.index) << e.dump();
    EXPECT_EQ(a["phase"], std::string(analysis::to_string(m.phase_of[k]))) << e.dump();
    if (step_of[k] >= 0 && number[static_cast<size_t>(step_of[k])] > 0) {
      EXPECT_EQ(a["step"], number[static_cast<size_t>(step_of[k])]) << e.dump();
    } else {
      EXPECT_FALSE(a.contains("step")) << e.dump();
    }
    const auto& samples = joined.by_dispatch[k];
    EXPECT_EQ(a.contains("counters"), !samples.empty()) << e.dump();
    if (!samples.empty()) {
      ++with_counters;
      nlohmann::json counters = nlohmann::json::object();
      for (const auto& c : samples) counters[joined.counters.name(c.counter)] = c.value;
      EXPECT_EQ(a["counters"], counters);
      const auto dm = analysis::dispatch_metrics(*target, joined, k);
      EXPECT_EQ(a.contains("flops"), dm.has_flops());
      if (dm.has_flops()) {
        EXPECT_EQ(a["flops"].get<double>(), dm.flops());
      }
    }
    const double ts = e["ts"].get<double>();
    const auto last = last_ts.find(d.pid);
    if (last != last_ts.end()) {
      EXPECT_GE(ts, last->second) << "out of start order: " << e.dump();
    }
    last_ts[d.pid] = ts;
    ++checked;
  }
  EXPECT_EQ(checked, cap.trace.dispatches.size());
  EXPECT_GT(with_counters, 0u);
}

// A private copy of a simulated run's database in a fresh folder, removed at the end, as a run
// that was never outlined: its stored outline rows are deleted. The stored-outline tests write
// analysis tables into it.
class SimRunCopy {
 public:
  explicit SimRunCopy(const std::string& run)
      : m_dir(fs::temp_directory_path() /
              ("kprof_perfetto_" + run + "_" + std::to_string(::getpid()))) {
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    fs::copy_file(fs::path(KPROF_REPORT_SIM_DIR) / run / (run + ".db"), db());
    SQLite::Database(db().string(), SQLite::OPEN_READWRITE)
        .exec(
            "DELETE FROM analysis_outline_segments; DELETE FROM analysis_outline_passes; "
            "DELETE FROM analysis_outline;");
  }
  ~SimRunCopy() { fs::remove_all(m_dir); }
  SimRunCopy(const SimRunCopy&) = delete;
  SimRunCopy& operator=(const SimRunCopy&) = delete;
  fs::path db() const { return m_dir / "c.db"; }
  // Whether the run's stored outline is current, as an export would find it.
  bool outline_stored() const {
    store::CaptureDb cdb(db(), store::OpenMode::read_only);
    const auto rt = analysis::find_run_trace(cdb, {});
    return analysis::read_outline(cdb, analysis::run_counts(cdb, rt)).has_value();
  }

 private:
  fs::path m_dir;
};

// The first export of a run computes its outline from the loaded capture and stores
// it; a later one reads it (O(steps) rows) and streams the joined counters from the stored mapping
// beside the rows. Both write the same bytes, on each simulated run (counters joined on all).
TEST(PerfettoExport, ExportFromTheStoredOutlineWritesTheSameBytes) {
  for (const char* run : {"qwen3-64", "qwen3-32"}) {
    SCOPED_TRACE(run);
    const SimRunCopy copy(run);
    const fs::path db = copy.db();
    std::ostringstream computed, stored;
    {
      auto e = PerfettoExport::open(db, {}, /*use_stored=*/false);
      EXPECT_FALSE(e.outline().from_store);
      e.write(computed);
    }
    auto e = PerfettoExport::open(db, {});
    ASSERT_TRUE(e.outline().from_store);
    EXPECT_TRUE(e.outline().stream_joined);
    EXPECT_TRUE(e.outline().joined_keys.empty());
    EXPECT_GT(e.outline().segments.size(), 30u);  // 32 or 64 steps
    const PerfettoSummary sum = e.write(stored);
    EXPECT_GT(sum.dispatch_slices, 0);
    EXPECT_TRUE(computed.str() == stored.str()) << "the export from the stored outline differs";
    EXPECT_NE(stored.str().find("\"counters\":{"), std::string::npos);
  }
}

// Each slice's args are written as text (perfetto.cpp), byte for byte what nlohmann's dump wrote
// before: keys sorted, its string escapes, its float formatting (Grisu2 with ".0" on whole
// numbers). Parsing an event's args and dumping them again must give the same bytes, on every
// event of the simulated run (counters, derived FLOPs and bytes, kernel names with <, >, quotes).
TEST(PerfettoExport, SliceArgsAreWhatNlohmannsDumpWrites) {
  const SimRunCopy copy("qwen3-64");
  std::ostringstream out;
  PerfettoExport::open(copy.db(), {}).write(out);
  std::istringstream lines(out.str());
  size_t events = 0, with_counters = 0;
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find("\"args\":");
    if (line.rfind("{\"name\":", 0) != 0 || at == std::string::npos) continue;
    std::string args = line.substr(at + 7);
    if (!args.empty() && args.back() == ',') args.pop_back();
    ASSERT_FALSE(args.empty());
    ASSERT_EQ(args.back(), '}') << line;  // the event's own closing brace: args come last
    args.pop_back();
    const auto parsed = nlohmann::json::parse(args, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << line;
    ASSERT_EQ(parsed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), args) << line;
    ++events;
    with_counters += parsed.contains("counters");
  }
  EXPECT_GT(events, 50000u);
  EXPECT_GT(with_counters, 1000u);
}

// The first export of a run whose counter join is missing stores the join and streams the counters
// from it (never holding them all); only when it cannot store it (another writer holds the lock)
// does it hold the joined counters in memory. Both write the same bytes.
TEST(PerfettoExport, TheFirstExportStreamsTheCountersOfTheJoinItStored) {
  const SimRunCopy copy("qwen3-32");
  auto drop_joins = [&] {
    SQLite::Database(copy.db().string(), SQLite::OPEN_READWRITE)
        .exec(
            "DELETE FROM analysis_join; DELETE FROM analysis_unmatched; DELETE FROM "
            "analysis_join_passes; DELETE FROM analysis_join_proofs; "
            "DELETE FROM analysis_join_files;");
  };
  drop_joins();
  std::ostringstream held, streamed;
  {
    SQLite::Database writer(copy.db().string(), SQLite::OPEN_READWRITE);
    writer.exec("BEGIN IMMEDIATE");
    auto e = PerfettoExport::open(copy.db(), {});
    EXPECT_FALSE(e.outline().stream_joined);
    EXPECT_FALSE(e.outline().joined_keys.empty());
    EXPECT_FALSE(e.outline().joins_computed.empty());
    e.write(held);
    writer.exec("ROLLBACK");
  }
  {
    auto e = PerfettoExport::open(copy.db(), {});
    EXPECT_FALSE(e.outline().from_store);
    EXPECT_FALSE(e.outline().joins_computed.empty());
    EXPECT_TRUE(e.outline().stream_joined);
    EXPECT_TRUE(e.outline().joined_keys.empty());
    e.write(streamed);
  }
  EXPECT_NE(streamed.str().find("\"counters\":{"), std::string::npos);
  EXPECT_TRUE(held.str() == streamed.str()) << "held and streamed counters differ";
}

// A query session (a query, `kprof report`) never writes; the outline the loading command stores
// (analysis::store_results: `kprof run`, `ingest`, `resume`) serves even the first export of that
// run, which writes what an export computing it writes.
TEST(PerfettoExport, TheOutlineStoredAfterLoadingServesTheFirstExport) {
  const SimRunCopy copy("qwen3-32");
  EXPECT_FALSE(copy.outline_stored());
  {
    auto session = analysis::QuerySession::open(copy.db(), {});
    EXPECT_FALSE(session.view("phases", {}).rows.empty());
  }
  EXPECT_FALSE(copy.outline_stored());
  {
    store::CaptureDb rw(copy.db());
    analysis::store_results(rw, 1);
  }
  EXPECT_TRUE(copy.outline_stored());
  std::ostringstream computed, stored;
  {
    auto e = PerfettoExport::open(copy.db(), {});
    EXPECT_TRUE(e.outline().from_store);
    e.write(stored);
  }
  PerfettoExport::open(copy.db(), {}, /*use_stored=*/false).write(computed);
  EXPECT_TRUE(computed.str() == stored.str()) << "the export from the kept outline differs";
}

// The stored outline is used only while it is current: a pass re-ingested under the same id (its
// ingest_stats row changes, even with as many rows) or with another number of rows is outlined
// again, and the new outline is stored.
TEST(PerfettoExport, StoredOutlineIsFoundAgainAfterAReingest) {
  const SimRunCopy copy("qwen3-32");
  const fs::path db = copy.db();
  auto stored = [&] { return copy.outline_stored(); };
  auto sql = [&](const std::string& s) {
    store::CaptureDb cdb(db, store::OpenMode::read_write);
    cdb.sql().exec(s);
  };
  const std::string trace_pass = "(SELECT id FROM passes WHERE ordinal = 0)";
  EXPECT_FALSE(PerfettoExport::open(db, {}).outline().from_store);
  EXPECT_TRUE(stored());
  EXPECT_TRUE(PerfettoExport::open(db, {}).outline().from_store);
  // As many rows, loaded again.
  sql("UPDATE ingest_stats SET loaded_ms = loaded_ms + 1 WHERE pass_id = " + trace_pass);
  EXPECT_FALSE(stored());
  EXPECT_FALSE(PerfettoExport::open(db, {}).outline().from_store);
  EXPECT_TRUE(stored());
  // One row fewer.
  sql("DELETE FROM dispatch_rows WHERE pass_id = " + trace_pass +
      " AND dispatch_id = (SELECT max(dispatch_id) FROM dispatch_rows WHERE pass_id = " +
      trace_pass + ")");
  EXPECT_FALSE(stored());
  EXPECT_FALSE(PerfettoExport::open(db, {}).outline().from_store);
  EXPECT_TRUE(stored());
  EXPECT_TRUE(PerfettoExport::open(db, {}).outline().from_store);
}

// While another connection holds the write lock (a `kprof run` or `kprof ingest` loading rows),
// the export never waits: it writes from the outline it found (in bounded memory: the run's join
// is stored), stores nothing, and says that the next export finds it again.
TEST(PerfettoExport, OutlineIsNotStoredWhileAnotherWriterHoldsTheLock) {
  const SimRunCopy copy("qwen3-32");
  const fs::path db = copy.db();
  {
    SQLite::Database writer(db.string(), SQLite::OPEN_READWRITE);
    writer.exec("BEGIN IMMEDIATE");
    auto e = PerfettoExport::open(db, {});
    EXPECT_FALSE(e.outline().from_store);
    bool said = false;
    for (const auto& n : e.notes())
      said |= n.find("next export finds them again") != std::string::npos;
    EXPECT_TRUE(said);
    writer.exec("ROLLBACK");
  }
  EXPECT_FALSE(copy.outline_stored());
}

// A trace pass with two ranks (tests/report/tp_capture.hpp: pid 101 on agent 1, pid 102 on
// agent 2): each process track names its rank and GPU agent.
TEST(PerfettoExport, EachRankOfATensorParallelPassIsNamedOnItsProcessTrack) {
  const fs::path dir =
      fs::temp_directory_path() / ("kprof_perfetto_tp_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path db_path = dir / "tp.db";
  test::write_two_rank_db(db_path, 30);
  std::ostringstream out;
  PerfettoExport::open(db_path, {}).write(out);
  fs::remove_all(dir);
  const auto doc = nlohmann::json::parse(out.str());
  std::map<int64_t, std::string> names;  // pid -> process_name
  for (const auto& e : doc["traceEvents"])
    if (e["name"] == "process_name") names[e["pid"].get<int64_t>()] = e["args"]["name"];
  EXPECT_EQ(names[101], "rank 0 (GPU agent 1), process 101 trace pass");
  EXPECT_EQ(names[102], "rank 1 (GPU agent 2), process 102 trace pass");
}

}  // namespace
}  // namespace kprof::report
