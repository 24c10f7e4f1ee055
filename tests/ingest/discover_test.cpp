// Discovery of rocprofv3's output layout: <dir>/<hostname>/<pid>_<domain>.csv and pass_N/ folders
// (ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/output/output_config.cpp), with real
// capture files copied into a temp tree.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/base/error.hpp"
#include "core/ingest/discover.hpp"
#include "tests/ingest/vector_sink.hpp"

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;
const fs::path k_caps = fs::path(KPROF_TEST_DATA) / "captures";
const fs::path k_probe = k_caps /
                         "uLLM-project/2026-07-26/sq8_0-attention-optimization-u-v0.1/pmc/"
                         "probe-raw-sq/data/homelab1-WRX80-Creator";

class Discover : public ::testing::Test {
 protected:
  void SetUp() override {
    m_root =
        fs::temp_directory_path() /
        ("kprof_discover_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_root);
    fs::create_directories(m_root / "host");
    fs::create_directories(m_root / "pass_1" / "host");
    fs::create_directories(m_root / "pass_2" / "host");
    // Trace pass at the top, two processes in pass_1 (a forked child), one in pass_2.
    fs::copy_file(k_probe / "1323859_kernel_trace.csv",
                  m_root / "host" / "1323859_kernel_trace.csv");
    fs::copy_file(k_probe / "1323859_agent_info.csv", m_root / "host" / "1323859_agent_info.csv");
    fs::copy_file(k_probe / "1323859_counter_collection.csv",
                  m_root / "pass_1" / "host" / "1323859_counter_collection.csv");
    fs::copy_file(k_probe / "1323859_kernel_trace.csv",
                  m_root / "pass_1" / "host" / "777_kernel_trace.csv");
    fs::copy_file(k_probe / "1323859_agent_info.csv",
                  m_root / "pass_2" / "host" / "888_agent_info.csv");
    fs::copy_file(k_probe / "1323859_counter_collection.csv",
                  m_root / "pass_2" / "host" / "888_counter_collection.csv");
    std::ofstream(m_root / "pass_2" / "host" / "888_results.pftrace") << "{}";
  }
  void TearDown() override { fs::remove_all(m_root); }
  fs::path m_root;
};

TEST_F(Discover, FindsPassFoldersHostLevelAndPids) {
  Discovery d = discover({m_root.string()});
  ASSERT_EQ(d.passes.size(), 3u);
  EXPECT_EQ(d.passes[0].number, 0);
  EXPECT_EQ(d.passes[1].number, 1);
  EXPECT_EQ(d.passes[2].number, 2);
  EXPECT_EQ(d.passes[1].folder, (m_root / "pass_1").string());
  ASSERT_EQ(d.passes[0].files.size(), 2u);
  EXPECT_EQ(d.passes[0].files[0].format, Format::agent_info);  // agent_info first
  EXPECT_EQ(d.passes[0].files[1].format, Format::kernel_trace);
  EXPECT_EQ(d.passes[0].files[1].pid, 1323859);
  EXPECT_EQ(infer_pass_kind(d.passes[0]), "trace");
  EXPECT_EQ(infer_pass_kind(d.passes[1]), "counters");
  ASSERT_EQ(d.skipped.size(), 1u);
  EXPECT_EQ(fs::path(d.skipped[0]).filename(), "888_results.pftrace");

  // Multi-process pass: each file keeps its own pid.
  test::VectorSink sink;
  auto results = read_pass(d.passes[1], sink, {});
  ASSERT_EQ(results.size(), 2u);
  std::set<int64_t> pids;
  for (const auto& r : sink.dispatches) pids.insert(r.pid);
  EXPECT_EQ(pids, (std::set<int64_t>{777, 1323859}));
  EXPECT_EQ(results[0].kind, "kernel_trace");
  EXPECT_EQ(results[0].rows_read, 16);
  EXPECT_EQ(results[1].rows_read, 32);
}

TEST_F(Discover, NamedFilesAndErrors) {
  Discovery d = discover({(m_root / "pass_2" / "host" / "888_counter_collection.csv").string()});
  ASSERT_EQ(d.passes.size(), 1u);
  EXPECT_EQ(d.passes[0].number, 2);
  EXPECT_EQ(d.passes[0].files[0].pid, 888);

  try {
    discover({(m_root / "nope").string()});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics()[0].line(), (m_root / "nope").string() +
                                             ": no such file or directory (give a rocprofv3 "
                                             "output directory or file)");
  }
  fs::create_directories(m_root / "empty");
  EXPECT_THROW(discover({(m_root / "empty").string()}), Error);
  // A named file that is nothing kprof reads is an error, not silently skipped.
  EXPECT_THROW(discover({(m_root / "pass_2" / "host" / "888_results.pftrace").string()}), Error);
}

// A FIFO or /dev/zero named as a capture was reported as "no such file" (and a FIFO
// inside a folder could block a reader). Each is named for what it is, at once.
TEST_F(Discover, AFifoOrADeviceIsNamedForWhatItIs) {
  const fs::path fifo = m_root / "1_kernel_trace.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto error_of = [](const std::string& path) {
    try {
      discover({path});
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      return e.diagnostics().at(0).line();
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error_of(fifo.string()), "capture file '" + fifo.string() +
                                         "' is a FIFO, not a regular file (name a regular file)");
  const fs::path zero = m_root / "2_kernel_trace.csv";
  fs::create_symlink("/dev/zero", zero);
  EXPECT_EQ(error_of(zero.string()), "capture file '" + zero.string() +
                                         "' is a character device, not a regular file (name a "
                                         "regular file)");
  // In a folder, both are passed over like any file kprof does not read; the real ones load.
  Discovery d = discover({m_root.string()});
  for (const auto& pass : d.passes)
    for (const auto& f : pass.files) EXPECT_NE(fs::path(f.path).parent_path(), m_root) << f.path;
}

TEST_F(Discover, GpuRelativeAgentIdsResolveThroughAgentInfo) {
  // --agent-index type-relative writes "GPU N": GPU 1 is the second GPU of agent_info.csv
  // (logical node 2 in this capture's host: CPU 0, GPU 1 gfx1030, GPU 2 gfx1201, GPU 3 gfx1030).
  std::ifstream in(m_root / "host" / "1323859_kernel_trace.csv");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t at; (at = text.find("\"Agent 2\"")) != std::string::npos;)
    text.replace(at, 9, "\"GPU 1\"");
  std::ofstream(m_root / "host" / "1323859_kernel_trace.csv") << text;
  Discovery d = discover({(m_root / "host").string()});
  test::VectorSink sink;
  read_pass(d.passes[0], sink, {});
  ASSERT_EQ(sink.dispatches.size(), 16u);
  for (const auto& r : sink.dispatches) EXPECT_EQ(r.agent, 2);
  // Without agent_info the id cannot be resolved: every row is bad, so the file is broken.
  fs::remove(m_root / "host" / "1323859_agent_info.csv");
  d = discover({(m_root / "host").string()});
  EXPECT_THROW(read_pass(d.passes[0], sink, {}), Error);
}

}  // namespace
}  // namespace kprof::ingest
