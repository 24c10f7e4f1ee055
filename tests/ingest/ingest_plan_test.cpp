// Which runs and passes a folder of rocprofv3 outputs becomes (core/ingest/ingest_plan.hpp):
// separate captures stay separate runs whatever files they hold. Real files copied under other
// prefixes into a temp tree, the way several rocprofv3 invocations (`-o %pid%`) share one output
// folder.
#include "core/ingest/ingest_plan.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;
const fs::path k_caps = fs::path(KPROF_TEST_DATA) / "captures" / "uLLM-project";
const fs::path k_probe = k_caps /
                         "2026-07-26/sq8_0-attention-optimization-u-v0.1/pmc/probe-raw-sq/data/"
                         "homelab1-WRX80-Creator";
const fs::path k_component = k_caps / "2026-07-10/sq8-optimized-component-v0.1/profiler";

class IngestPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() /
             ("kprof_ingest_plan_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_root);
    fs::create_directories(m_root / "host");
  }
  void TearDown() override { fs::remove_all(m_root); }
  void copy(const fs::path& from, const std::string& name) {
    fs::copy_file(from, m_root / "host" / name);
  }
  fs::path m_root;
};

// Three stats-only captures (three processes' kernel and domain stats, no kernel trace) in one
// folder: three runs, each with its own files (they were one trace pass of one run).
TEST_F(IngestPlanTest, StatsOnlyCapturesAreSeparateRuns) {
  for (const char* pid : {"111", "222", "333"}) {
    copy(k_component / "component-m8_kernel_stats.csv", std::string(pid) + "_kernel_stats.csv");
    copy(k_component / "component-m8_domain_stats.csv", std::string(pid) + "_domain_stats.csv");
  }
  const IngestPlan plan = plan_ingest(discover({m_root.string()}), std::nullopt);
  ASSERT_EQ(plan.runs.size(), 3u);
  for (const auto& run : plan.runs) {
    ASSERT_EQ(run.passes.size(), 1u) << run.label;
    EXPECT_FALSE(run.passes[0].counters);
    ASSERT_EQ(run.passes[0].input.files.size(), 2u) << run.label;
    const std::string pid = run.label.substr(run.label.size() - 3);
    for (const auto& f : run.passes[0].input.files)
      EXPECT_EQ(fs::path(f.path).filename().string().substr(0, 3), pid) << run.label;
  }
}

// Two %pid% kernel traces in one folder: separate runs, as file names say nothing more, and the
// note says how to load them as one pass of two processes when they are one multi-process run.
// Kernel traces under named prefixes (not pids) get no such hint.
TEST_F(IngestPlanTest, PidTracesOfOneFolderAreSeparateRunsWithAHintForMultiProcessRuns) {
  for (const char* pid : {"4265", "4266"}) {
    copy(k_probe / "1323859_kernel_trace.csv", std::string(pid) + "_kernel_trace.csv");
    copy(k_probe / "1323859_agent_info.csv", std::string(pid) + "_agent_info.csv");
  }
  IngestPlan plan = plan_ingest(discover({m_root.string()}), std::nullopt);
  ASSERT_EQ(plan.runs.size(), 2u);
  std::string notes;
  for (const auto& n : plan.notes) notes += n + "\n";
  EXPECT_NE(notes.find("2 invocations wrote kernel traces"), std::string::npos) << notes;
  EXPECT_NE(notes.find("--pass-kind trace"), std::string::npos) << notes;
  // --pass-kind trace: the folder is one pass holding both processes' files.
  plan = plan_ingest(discover({m_root.string()}), store::PassKind::trace);
  ASSERT_EQ(plan.runs.size(), 1u);
  ASSERT_EQ(plan.runs[0].passes.size(), 1u);
  int traces = 0;
  for (const auto& f : plan.runs[0].passes[0].input.files)
    traces += f.format == Format::kernel_trace;
  EXPECT_EQ(traces, 2);

  fs::remove_all(m_root / "host");
  fs::create_directories(m_root / "host");
  for (const char* name : {"probe-a", "probe-b"}) {
    copy(k_probe / "1323859_kernel_trace.csv", std::string(name) + "_kernel_trace.csv");
    copy(k_probe / "1323859_agent_info.csv", std::string(name) + "_agent_info.csv");
  }
  plan = plan_ingest(discover({m_root.string()}), std::nullopt);
  notes.clear();
  for (const auto& n : plan.notes) notes += n + "\n";
  EXPECT_EQ(notes.find("--pass-kind trace"), std::string::npos) << notes;
}

// Four counter-only captures of unrelated processes: four runs of one counter pass each (they were
// passes 1-4 of one run).
TEST_F(IngestPlanTest, CounterOnlyCapturesAreSeparateRuns) {
  for (const char* pid : {"11", "22", "33", "44"}) {
    copy(k_probe / "1323859_counter_collection.csv", std::string(pid) + "_counter_collection.csv");
    copy(k_probe / "1323859_agent_info.csv", std::string(pid) + "_agent_info.csv");
  }
  const IngestPlan plan = plan_ingest(discover({m_root.string()}), std::nullopt);
  ASSERT_EQ(plan.runs.size(), 4u);
  for (const auto& run : plan.runs) {
    ASSERT_EQ(run.passes.size(), 1u) << run.label;
    EXPECT_TRUE(run.passes[0].counters);
  }
}

// The counters of the trace's own prefix stay with it; a stats-only capture of another process in
// the same folder is a run of its own.
TEST_F(IngestPlanTest, ATraceKeepsItsOwnCountersOnly) {
  copy(k_probe / "1323859_kernel_trace.csv", "1323859_kernel_trace.csv");
  copy(k_probe / "1323859_agent_info.csv", "1323859_agent_info.csv");
  copy(k_probe / "1323859_counter_collection.csv", "1323859_counter_collection.csv");
  copy(k_component / "component-m8_kernel_stats.csv", "999_kernel_stats.csv");
  const IngestPlan plan = plan_ingest(discover({m_root.string()}), std::nullopt);
  ASSERT_EQ(plan.runs.size(), 2u);
  EXPECT_EQ(plan.runs[0].passes.size(), 2u);  // trace + its counters
  ASSERT_EQ(plan.runs[1].passes.size(), 1u);
  EXPECT_EQ(fs::path(plan.runs[1].passes[0].input.files.at(0).path).filename(),
            "999_kernel_stats.csv");
}

// kernel_trace.csv and counter_collection.csv with no output prefix, of two processes (the SDK's
// documentation examples: thread 21228 on agent 2, and pid 15606 on "Agent 1" 9 days later; see
// tests/analysis/real_capture_truths_test.cpp): the same four kernels, but the counters name an
// agent the trace does not, so two runs, each one pass, and a note that says why.
TEST_F(IngestPlanTest, PrefixlessFilesOfTwoProcessesAreSeparateRuns) {
  const fs::path docs = fs::path(KPROF_TEST_DATA) / "captures" / "rocprofiler-sdk-docs";
  copy(docs / "kernel_trace.csv", "kernel_trace.csv");
  copy(docs / "counter_collection.csv", "counter_collection.csv");
  const IngestPlan plan = plan_ingest(discover({m_root.string()}), std::nullopt);
  ASSERT_EQ(plan.runs.size(), 2u);
  ASSERT_EQ(plan.runs[0].passes.size(), 1u);
  ASSERT_EQ(plan.runs[1].passes.size(), 1u);
  EXPECT_FALSE(plan.runs[0].passes[0].counters);
  EXPECT_TRUE(plan.runs[1].passes[0].counters);
  EXPECT_NE(plan.runs[0].label, plan.runs[1].label);  // run names must differ
  ASSERT_FALSE(plan.notes.empty());
  const std::string& note = plan.notes.front();
  for (const char* why : {"separate captures", "neither name has an output prefix", "pid 15606",
                          "agent 1", "the trace agent 2"})
    EXPECT_NE(note.find(why), std::string::npos) << why << " in: " << note;
}

// One process's trace and counters under a prefix `-o` chose (copies of 1323859's files: the same
// thread, agent and times): one run, the counters its counter pass.
TEST_F(IngestPlanTest, NamedPrefixFilesOfOneProcessStayOneRun) {
  copy(k_probe / "1323859_kernel_trace.csv", "results_kernel_trace.csv");
  copy(k_probe / "1323859_counter_collection.csv", "results_counter_collection.csv");
  copy(k_probe / "1323859_agent_info.csv", "results_agent_info.csv");
  const IngestPlan plan = plan_ingest(discover({m_root.string()}), std::nullopt);
  ASSERT_EQ(plan.runs.size(), 1u);
  ASSERT_EQ(plan.runs[0].passes.size(), 2u);
  EXPECT_TRUE(plan.runs[0].passes[1].counters);
}

// Copies a CSV file, each line rewritten by `edit` (told whether it is the header), its fields
// split at commas (the probe's rows quote no commas).
void copy_rows(const fs::path& from, const fs::path& to,
               const std::function<void(std::vector<std::string>&, bool header)>& edit) {
  std::ifstream in(from);
  std::ofstream out(to);
  std::string line;
  for (bool header = true; std::getline(in, line); header = false) {
    std::vector<std::string> fields;
    for (size_t at = 0;;) {
      const size_t comma = line.find(',', at);
      fields.push_back(line.substr(at, comma - at));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    edit(fields, header);
    for (size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << fields[i];
    out << "\n";
  }
}

// `rocprofv3 --kernel-trace -d out -o results -- app`, then `rocprofv3 --pmc ... -d out -o results
// -- app`: the second process has other threads and runs after the trace (1323859's counters with
// Thread_Id 1400000 and timestamps 10^12 ns later), on the same agent, counting the same kernel.
// One program run twice: one run, the counters its counter pass, which the join aligns.
TEST_F(IngestPlanTest, RerunOfOneProgramUnderOnePrefixStaysOneRun) {
  copy(k_probe / "1323859_kernel_trace.csv", "results_kernel_trace.csv");
  copy(k_probe / "1323859_agent_info.csv", "results_agent_info.csv");
  // counter_collection.csv columns: 5 Thread_Id, 17 Start_Timestamp, 18 End_Timestamp.
  copy_rows(k_probe / "1323859_counter_collection.csv",
            m_root / "host" / "results_counter_collection.csv",
            [](std::vector<std::string>& f, bool header) {
              if (header) return;
              f.at(5) = "1400000";
              for (size_t i : {17, 18})
                f.at(i) = std::to_string(std::stoll(f.at(i)) + 1000000000000);
            });
  const IngestPlan plan = plan_ingest(discover({m_root.string()}), std::nullopt);
  ASSERT_EQ(plan.runs.size(), 1u);
  ASSERT_EQ(plan.runs[0].passes.size(), 2u);
  EXPECT_FALSE(plan.runs[0].passes[0].counters);
  EXPECT_TRUE(plan.runs[0].passes[1].counters);
  ASSERT_FALSE(plan.notes.empty());
  const std::string& note = plan.notes.front();
  for (const char* why : {"prefix 'results'", "one program", "join aligns"})
    EXPECT_NE(note.find(why), std::string::npos) << why << " in: " << note;
}

// Counters of another program under the trace's prefix (1323859's counters, their kernel renamed):
// the same agent, but the trace launched none of the counted kernels: two runs.
TEST_F(IngestPlanTest, CountersOfOtherKernelsUnderOnePrefixAreSeparateRuns) {
  copy(k_probe / "1323859_kernel_trace.csv", "results_kernel_trace.csv");
  copy(k_probe / "1323859_agent_info.csv", "results_agent_info.csv");
  // counter_collection.csv column 8 is Kernel_Name.
  copy_rows(k_probe / "1323859_counter_collection.csv",
            m_root / "host" / "results_counter_collection.csv",
            [](std::vector<std::string>& f, bool header) {
              if (!header) f.at(8) = "\"other_program_kernel\"";
            });
  const IngestPlan plan = plan_ingest(discover({m_root.string()}), std::nullopt);
  ASSERT_EQ(plan.runs.size(), 2u);
  ASSERT_FALSE(plan.notes.empty());
  EXPECT_NE(plan.notes.front().find("none of the counted kernels"), std::string::npos)
      << plan.notes.front();
}

// The trace of the counters' own program is read only until it has shown their agents and one of
// their kernels: 1323859's trace stops at its first dispatch (one agent, one kernel throughout).
TEST_F(IngestPlanTest, TheTraceIsReadOnlyUntilItMatchesTheCounters) {
  const InputFile trace{(k_probe / "1323859_kernel_trace.csv").string(), Format::kernel_trace,
                        std::nullopt, false};
  const InputFile counters{(k_probe / "1323859_counter_collection.csv").string(),
                           Format::counter_collection, std::nullopt, false};
  const CaptureStamp counted = read_stamp(counters, {});
  ASSERT_GT(counted.dispatches, 0);
  EXPECT_TRUE(counted.complete);
  const CaptureStamp whole = read_stamp(trace, {});
  const CaptureStamp part = read_stamp(trace, {}, {counted});
  EXPECT_TRUE(whole.complete);
  EXPECT_FALSE(part.complete);
  EXPECT_EQ(part.dispatches, 1);
  EXPECT_GT(whole.dispatches, 1);
}

// A kernel trace without the optional Thread_Id column (csv_columns.hpp) and the counters of the
// same process under one `-o` prefix: one run.
TEST_F(IngestPlanTest, ATraceWithoutThreadIdsStaysOneRunWithItsCounters) {
  // kernel_trace.csv column 4 is Thread_Id.
  copy_rows(k_probe / "1323859_kernel_trace.csv", m_root / "host" / "results_kernel_trace.csv",
            [](std::vector<std::string>& f, bool) { f.erase(f.begin() + 4); });
  {
    std::ifstream in(m_root / "host" / "results_kernel_trace.csv");
    std::string header;
    std::getline(in, header);
    ASSERT_EQ(header.find("Thread_Id"), std::string::npos) << header;
  }
  copy(k_probe / "1323859_counter_collection.csv", "results_counter_collection.csv");
  copy(k_probe / "1323859_agent_info.csv", "results_agent_info.csv");
  const IngestPlan plan = plan_ingest(discover({m_root.string()}), std::nullopt);
  ASSERT_EQ(plan.runs.size(), 1u);
  ASSERT_EQ(plan.runs[0].passes.size(), 2u);
  EXPECT_TRUE(plan.runs[0].passes[1].counters);
}

// A header-only file in a searched folder is left out with a note; the rest of the folder is read.
TEST_F(IngestPlanTest, AHeaderOnlyFileIsSkippedWithANote) {
  copy(k_probe / "1323859_kernel_trace.csv", "1323859_kernel_trace.csv");
  {
    std::ifstream in(k_component / "component-m8_kernel_stats.csv");
    std::string header;
    std::getline(in, header);
    std::ofstream(m_root / "host" / "1323859_kernel_stats.csv") << header << "\n";
  }
  const Discovery found = discover({m_root.string()});
  ASSERT_EQ(found.passes.size(), 1u);
  ASSERT_EQ(found.passes[0].files.size(), 1u);
  EXPECT_EQ(found.passes[0].files[0].format, Format::kernel_trace);
  ASSERT_EQ(found.notes.size(), 1u);
  EXPECT_NE(found.notes[0].find("1323859_kernel_stats.csv: a header and no rows"),
            std::string::npos)
      << found.notes[0];
}

}  // namespace
}  // namespace kprof::ingest
