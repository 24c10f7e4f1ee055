// Per-kernel statistics where rocprofv3 gives none though --stats was asked: with rocpd output
// (the newest launcher says --stats has no effect there) and where kprof cuts a trace to its
// region at ingest (a release without a region switch: the tool's whole-run statistics are
// dropped). They are computed from the kernel trace kept and recorded as a file of kind
// kernel_stats_from_trace. On the rocprofv3 test double: every figure simulated.
#include <gtest/gtest.h>

#include "tests/exec/kprof_cli.hpp"
#include "tests/exec/region_ops_model.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::run_kprof;
using testing::TempDir;
using testing::write_file;

std::string sql(const fs::path& dir, const fs::path& db, const std::string& query) {
  const auto r = run_kprof(dir, {"query", db.string(), "--sql", query, "--format", "csv"});
  EXPECT_EQ(r.code, 0) << r.text;
  return r.text;
}

std::string run(const TempDir& dir, const std::string& format, const std::string& release) {
  const fs::path rb = dir.path() / (format + release + ".yaml");
  write_file(rb,
             "schema_version: 1\nname: s\nworkload:\n  command: [\"true\"]\nprofiler:\n  "
             "output_format: " +
                 format +
                 "\n  selected_regions: true\ntarget:\n  arch: gfx942\npasses:\n  trace:\n"
                 "    enabled: true\n    stats: true\ndatabase: " +
                 format + release + ".db\nsim:\n  model: " +
                 testing::write_region_ops_model(dir.path()) + "\n  seed: 3\n");
  const auto r = run_kprof(dir.path(), {"run", rb.string(), "--simulate", "--quiet"},
                           {{"ROCPROF_SIM_VERSION", release}});
  EXPECT_EQ(r.code, 0) << r.text;
  return (dir.path() / (format + release + ".db")).string();
}

const char* k_stats =
    "SELECT s.value AS name, calls, total_ns, min_ns, max_ns FROM kernel_stats k JOIN strings s "
    "ON s.id = k.name_id ORDER BY name";

TEST(TraceStats, RocpdOutputGetsThemFromTheTraceAndSaysSo) {
  TempDir dir;
  const auto db = run(dir, "rocpd", "7.13");
  const std::string stats = sql(dir.path(), db, k_stats);
  EXPECT_NE(stats.find("name,calls,total_ns,min_ns,max_ns\n"
                       "\"add_kernel(float*, int)\",3,150000,50000,50000\n"
                       "\"div_kernel(float*, int)\",3,150000,50000,50000\n"
                       "\"mul_kernel(float*, int)\",3,150000,50000,50000\n"
                       "\"sub_kernel(float*, int)\",3,150000,50000,50000\n"),
            std::string::npos)
      << stats;
  const std::string kinds = sql(
      dir.path(), db, "SELECT kind, rows_read FROM ingest_stats WHERE kind LIKE 'kernel_stats%'");
  EXPECT_NE(kinds.find("kind,rows_read\nkernel_stats_from_trace,4\n"), std::string::npos) << kinds;
  // The percentages add up to the whole trace, as rocprofv3's do.
  const std::string pct =
      sql(dir.path(), db, "SELECT round(sum(percentage)) AS p FROM kernel_stats");
  EXPECT_NE(pct.find("p\n100\n"), std::string::npos) << pct;
}

// 6.4 traces from the start (no region switch): the tool's stats count the warm-up `add`, the
// region cut drops them, and the ones computed from the cut trace count the region's three.
TEST(TraceStats, ATraceCutAtItsMarkersGetsTheRegionsStatistics) {
  TempDir dir;
  const auto db = run(dir, "csv", "6.4");
  EXPECT_NE(sql(dir.path(), db, k_stats).find("\"add_kernel(float*, int)\",3,150000"),
            std::string::npos);
  const std::string kinds =
      sql(dir.path(), db,
          "SELECT kind FROM ingest_stats WHERE kind LIKE 'kernel_stats%' ORDER BY kind");
  EXPECT_NE(kinds.find("kind\nkernel_stats\nkernel_stats_from_trace\n"), std::string::npos)
      << kinds;
}

}  // namespace
}  // namespace kprof::exec
