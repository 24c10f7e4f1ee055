// The built `kprof validate` as a real process: exit codes and the one-line stderr format
// `kprof: <file>:<line>:<col>: <what> (<hint>)`.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "core/base/text.hpp"
#include "tests/runbook/runbook_fixture.hpp"

namespace kprof::runbook::testing {
namespace {

namespace fs = std::filesystem;

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class ValidateCli : public RunbookTest {
 protected:
  Result run(const std::string& args) {
    const fs::path kprof = fs::path(KPROF_BIN_DIR) / "kprof";
    const std::string cmd = "'" + kprof.string() + "' validate " + args + " >'" +
                            (m_dir / "out").string() + "' 2>'" + (m_dir / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    Result r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(m_dir / "out");
    r.err = read_text(m_dir / "err");
    return r;
  }
  std::string write(const std::string& text) {
    std::ofstream(m_dir / "rb.yaml", std::ios::binary) << text;
    return "'" + (m_dir / "rb.yaml").string() + "'";
  }
};

TEST_F(ValidateCli, ErrorsExitTwoWithOneLineEach) {
  const Result r =
      run(write("schema_version: 2\nname: t\nworkload:\n  command: []\nprofiler:\n  pth: x\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  const std::string f = (m_dir / "rb.yaml").string();
  EXPECT_EQ(r.err,
            "kprof: " + f +
                ":1:17: schema_version: this kprof reads schema 1, not 2 (use a newer kprof, or "
                "rewrite the runbook for schema 1)\n"
                "kprof: " +
                f +
                ":4:12: workload.command: empty command (list the program and its arguments, "
                "e.g. [python3, app.py])\n"
                "kprof: " +
                f + ":6:3: unknown key 'profiler.pth' (did you mean 'path'?)\n");
  const std::regex line_format(R"(kprof: [^:]+:[0-9]+:[0-9]+: .+ \(.+\))");
  for (const auto& l : split(r.err, '\n')) {
    if (!l.empty()) {
      EXPECT_TRUE(std::regex_match(l, line_format)) << l;
    }
  }
}

TEST_F(ValidateCli, EveryBadDataFileExitsTwo) {
  for (const auto& f : fs::directory_iterator(fs::path(KPROF_TEST_DATA) / "runbooks" / "bad")) {
    if (f.path().extension() != ".yaml") continue;
    const Result r = run("'" + f.path().string() + "'");
    EXPECT_EQ(r.exit_code, 2) << f.path();
    EXPECT_EQ(r.err.rfind("kprof: " + f.path().string(), 0), 0u) << r.err;
  }
}

TEST_F(ValidateCli, ValidRunbookPrintsTheNormalisedView) {
  const Result r = run(write(k_minimal));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("# " + (m_dir / "rb.yaml").string() + " is valid (runbook schema 1)\n", 0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("\n  command: [app, --flag]                        # 4:12\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n  shell: false                                  # default\n"),
            std::string::npos);
  const Result quiet = run(write(k_minimal) + " --quiet");
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.out, "");
}

// Unknown metric sets and counters are the runbook's errors, each at its position with the near
// names (edit distance) or, with none near, where the known ones are.
TEST_F(ValidateCli, UnknownMetricSetsAndCountersAreErrorsWithTheNearestNames) {
  const Result r = run(write(std::string(k_minimal) +
                             "passes:\n  counters:\n    metric_sets: [memroy, memry, zzzzzzzzzz]\n"
                             "    counters: [SQ_WAVE, ZZZZZZZZZZ]\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  const std::string f = "kprof: " + (m_dir / "rb.yaml").string();
  EXPECT_NE(r.err.find(f + ":7:19: passes.counters.metric_sets: unknown metric set 'memroy' (did "
                           "you mean 'memory'?)\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(f + ":7:27: passes.counters.metric_sets: unknown metric set 'memry' (did "
                           "you mean 'memory'?)\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("unknown metric set 'zzzzzzzzzz' (the metric sets are compute, full, "
                       "memory, occupancy, roofline)\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(f + ":8:16: passes.counters.counters: unknown counter 'SQ_WAVE' for gfx942 "
                           "(did you mean 'SQ_WAVES'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("unknown counter 'ZZZZZZZZZZ' for gfx942 ('kprof counters' "
                       "lists the counters of gfx942)\n"),
            std::string::npos)
      << r.err;
}

// A misspelt option names the command's nearest one.
TEST_F(ValidateCli, AMisspeltOptionGetsDidYouMean) {
  const Result r = run(write(k_minimal) + " --quite");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "kprof: unrecognised option '--quite' (did you mean '--quiet'? see 'kprof validate "
            "--help')\n");
}

TEST_F(ValidateCli, UsageErrors) {
  const Result none = run("");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err, "kprof: no runbook given (write 'kprof validate path/to/runbook.yaml')\n");
  const Result two = run("a.yaml b.yaml");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_EQ(two.err, "kprof: too many arguments (see 'kprof validate --help')\n");
  const Result missing = run("'" + (m_dir / "nope.yaml").string() + "'");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err,
            "kprof: no such runbook '" + (m_dir / "nope.yaml").string() + "' (check the path)\n");
  const Result help = run("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.rfind("usage: kprof validate RUNBOOK [--quiet]\n", 0), 0u) << help.out;
}

}  // namespace
}  // namespace kprof::runbook::testing
