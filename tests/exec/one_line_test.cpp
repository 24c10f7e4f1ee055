// One-line profiling end to end with the real kprof and rocprofv3-sim: no runbook given, the
// runbook it stands for is written next to the database, its text is kept in the database, and
// `kprof runbook --from-args` prints the same runbook.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "core/exec/node/process_runner.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;

const std::string k_kprof = std::string(KPROF_BIN_DIR) + "/kprof";

struct Ran {
  int code = -1;
  std::string out;
};

Ran kprof_in(const fs::path& cwd, std::vector<std::string> args, const std::string& log) {
  LaunchSpec s;
  s.argv = {k_kprof};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.cwd = cwd;
  s.log_path = cwd / log;
  s.log_tail_bytes = 1 << 16;
  Ran r;
  r.code = run_process(s).exit_code;
  r.out = read_text(s.log_path);
  return r;
}

TEST(OneLine, RunsWithNoRunbookAndKeepsTheRunbookItStandsFor) {
  TempDir dir;
  const Ran r = kprof_in(dir.path(),
                         {"run", "--simulate", "--quiet", "--metric-set", "roofline", "--kernels",
                          "fused_moe", "--", "true"},
                         "run.log");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("runbook written to true.runbook.yaml"), std::string::npos) << r.out;
  // replay: auto: without --selected-regions the trace holds the warm-up's launches too, so every
  // fused-MoE variant reaches 30 launches of each of the 3 groups in one run: trace + ONE
  // rotated counter pass.
  EXPECT_NE(r.out.find("2/2 passes done; 1 kernels of interest (include_regex 'fused_moe')"),
            std::string::npos)
      << r.out;
  const std::string yaml = read_text(dir / "true.runbook.yaml");
  EXPECT_NE(yaml.find("metric_sets: [\"roofline\"]"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("include_regex: \"fused_moe\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("command: [\"true\"]"), std::string::npos) << yaml;

  SQLite::Database db((dir / "true.db").string());
  SQLite::Statement q(db, "SELECT name, runbook_text, simulated FROM runs");
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getString(), "true");
  EXPECT_EQ(q.getColumn(1).getString(), yaml);
  EXPECT_EQ(q.getColumn(2).getInt(), 1);

  // The runbook as `kprof runbook --from-args` prints it is the one `run` wrote and used.
  const Ran p = kprof_in(dir.path(),
                         {"runbook", "--from-args", "--simulate", "--metric-set", "roofline",
                          "--kernels", "fused_moe", "--", "true"},
                         "runbook.log");
  ASSERT_EQ(p.code, 0) << p.out;
  const auto body = [](const std::string& s) { return s.substr(s.find("schema_version")); };
  EXPECT_EQ(body(p.out), body(yaml));
  // and it validates as a runbook of its own
  EXPECT_EQ(kprof_in(dir.path(), {"validate", "--quiet", "true.runbook.yaml"}, "v.log").code, 0);
}

TEST(OneLine, RefusesARunbookAndAnApplicationTogether) {
  TempDir dir;
  const Ran r = kprof_in(dir.path(), {"run", "x.yaml", "--simulate", "--", "true"}, "run.log");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("give a runbook or an application after '--', not both"), std::string::npos)
      << r.out;
}

// --help teaches: usage forms with positionals, arguments apart from options, defaults, examples;
// `query` describes every view. The man pages are made from the same text.
TEST(Help, UsageArgumentsDefaultsExamples) {
  TempDir dir;
  const Ran q = kprof_in(dir.path(), {"query", "--help"}, "q.log");
  ASSERT_EQ(q.code, 0) << q.out;
  EXPECT_EQ(q.out.rfind("usage: kprof query DB <view> [FAMILY] [options]\n"
                        "       kprof query DB --sql \"SELECT ...\"\n",
                        0),
            0u)
      << q.out;
  EXPECT_EQ(q.out.find("kprof query kprof query"), std::string::npos);
  EXPECT_NE(q.out.find("\narguments:\n  DB "), std::string::npos) << q.out;
  EXPECT_EQ(q.out.find("--db"), std::string::npos) << q.out;  // a positional is not an option
  for (const char* view : {"top", "families", "variants", "phases", "explain", "counters",
                           "metrics", "roofline", "passes"})
    EXPECT_NE(q.out.find("\n  " + std::string(view) + " "), std::string::npos) << view;
  EXPECT_NE(q.out.find("examples:\n  kprof query"), std::string::npos);
  const Ran c = kprof_in(dir.path(), {"counters", "--help"}, "c.log");
  EXPECT_NE(c.out.find("--arch ARCH        target architecture (default: gfx942)"),
            std::string::npos)
      << c.out;
  const Ran r = kprof_in(dir.path(), {"run", "--help"}, "r.log");
  EXPECT_NE(r.out.find("--gpus LIST"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-- APP [ARGS...]"), std::string::npos) << r.out;
  const std::string man = read_text(fs::path(KPROF_BIN_DIR) / "../share/man/man1/kprof-query.1");
  EXPECT_NE(man.find(".SH EXAMPLES"), std::string::npos);
  EXPECT_NE(man.find("roofline  per family and phase"), std::string::npos);
}

}  // namespace
}  // namespace kprof::exec
