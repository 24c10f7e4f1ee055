// CSV in the three quoting shapes that reach kprof (core/sim/capture.hpp, CsvQuoting): rocprofv3's
// own (strings quoted, numbers bare), every field quoted (csv.QUOTE_ALL re-writes) and minimal
// quoting (only fields holding a comma; pandas' default). The double writes the same capture in
// each; `kprof ingest` must load the same rows from all three.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include "tests/sim/sim_harness.hpp"

namespace kprof::sim::testing {
namespace {

std::vector<std::string> rows(const fs::path& db, const std::string& sql) {
  SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(d, sql);
  std::vector<std::string> out;
  while (q.executeStep()) {
    std::string line;
    for (int c = 0; c < q.getColumnCount(); ++c) line += q.getColumn(c).getString() + "|";
    out.push_back(line);
  }
  return out;
}

TEST(SimCsvQuoting, IngestReadsEveryShapeToTheSameRows) {
  TempDir t;
  std::map<std::string, fs::path> dbs;
  for (const std::string quoting : {"rocprofv3", "all", "minimal"}) {
    const fs::path dir = t.path / quoting;
    fs::create_directories(dir);
    for (const auto& [name, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"trace", {"--kernel-trace", "--stats"}}, {"counters", {"--pmc", "SQ_WAVES"}}}) {
      std::vector<std::string> a = args;
      a.insert(a.end(), {"-f", "csv", "-d", name, "-o", "x", "--", "true"});
      const auto r = run_sim(dir, a,
                             {{"ROCPROF_SIM_CSV_QUOTING", quoting},
                              {"ROCPROF_SIM_MODEL", "doc-vector-ops"},
                              {"ROCPROF_SIM_SEED", "3"},
                              {"ROCPROF_SIM_CLOCK_BASE_NS", "1000000000"}});
      ASSERT_EQ(r.exit_code(), 0) << r.err;
    }
    const std::string first = read_file(dir / "trace" / "x_kernel_trace.csv");
    const std::string row = first.substr(first.find('\n') + 1, 40);
    const std::map<std::string, std::string> starts{
        {"all", "\"KERNEL_DISPATCH\",\"Agent 1\",\"1\","},
        {"minimal", "KERNEL_DISPATCH,Agent 1,1,"},
        {"rocprofv3", "\"KERNEL_DISPATCH\",\"Agent 1\",1,"}};
    EXPECT_EQ(row.rfind(starts.at(quoting), 0), 0u) << row;
    dbs[quoting] = dir / "c.db";
    const std::string cmd = (fs::path(KPROF_BIN_DIR) / "kprof").string() + " ingest " +
                            dbs[quoting].string() + " " + (dir / "trace").string() + " " +
                            (dir / "counters").string() + " > " + (dir / "ingest.out").string() +
                            " 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << read_file(dir / "ingest.out");
  }
  // Everything but the process and thread ids (each run is a new process).
  const std::string dispatches =
      "SELECT p.ordinal, d.dispatch_id, d.kernel_id, d.correlation_id, d.agent, d.start_ns, "
      "d.end_ns, d.grid_x, d.grid_y, d.grid_z, d.wg_x, d.lds, d.vgpr, s.value FROM dispatches d "
      "JOIN passes p ON p.id = d.pass_id JOIN strings s ON s.id = d.kernel_name_id ORDER BY 1, 2";
  const std::string counters =
      "SELECT p.ordinal, c.dispatch_id, s.value, c.value FROM counter_values c JOIN passes p ON "
      "p.id = c.pass_id JOIN strings s ON s.id = c.counter_id ORDER BY 1, 2, 3";
  const std::string stats =
      "SELECT s.value, k.calls, k.total_ns, k.average_ns, k.percentage, k.min_ns, k.max_ns FROM "
      "kernel_stats k JOIN strings s ON s.id = k.name_id ORDER BY 1";
  for (const auto& sql : {dispatches, counters, stats}) {
    const auto want = rows(dbs["rocprofv3"], sql);
    EXPECT_GE(want.size(), 4u);
    EXPECT_EQ(rows(dbs["all"], sql), want) << sql;
    EXPECT_EQ(rows(dbs["minimal"], sql), want) << sql;
  }
}

}  // namespace
}  // namespace kprof::sim::testing
