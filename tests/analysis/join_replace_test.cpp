// A stored counter join after `kprof ingest --replace`: the pass keeps its id and, from a re-run of
// the same workload, its dispatch count, but its dispatch ids are new. The join must be made again
// (before, equal counts kept the old mapping: `passes` said 4 of 4 matched while `counters` found
// no joined value). Real processes: rocprofv3-sim for the captures, kprof for ingest and query.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kprof::analysis {
namespace {

namespace fs = std::filesystem;

struct Ran {
  int code = -1;
  std::string out;
};

Ran sh(const std::string& cmd, const fs::path& log) {
  const int rc = std::system((cmd + " > " + log.string() + " 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, s.str()};
}

// Rewrites a counter_collection.csv as a re-run would write it: every Dispatch_Id and
// Correlation_Id moved by `shift`, and SQ_INSTS_VALU's value replaced.
void rerun_ids(const fs::path& csv, int shift, const std::string& valu) {
  std::ifstream in(csv);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  in.close();
  std::ofstream out(csv, std::ios::trunc);
  out << lines.at(0) << "\n";  // header: Correlation_Id,Dispatch_Id first (rocprofv3 order)
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string l = lines[i];
    const size_t a = l.find(','), b = l.find(',', a + 1);
    l = std::to_string(std::stoll(l.substr(0, a)) + shift) + "," +
        std::to_string(std::stoll(l.substr(a + 1, b - a - 1)) + shift) + l.substr(b);
    if (l.find("\"SQ_INSTS_VALU\"") != std::string::npos) {
      const size_t v = l.find("\"SQ_INSTS_VALU\",") + 16, e = l.find(',', v);
      l = l.substr(0, v) + valu + l.substr(e);
    }
    out << l << "\n";
  }
}

TEST(JoinAfterReplace, AReingestedPassWithAsManyDispatchesIsJoinedAgain) {
  const fs::path dir =
      fs::temp_directory_path() / ("kprof_join_replace_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string sim = "ROCPROF_SIM_MODEL=" KPROF_SOURCE_DIR
                          "/configs/sim/doc-vector-ops.yaml " +
                          std::string(KPROF_BIN_DIR) + "/rocprofv3-sim";
  const std::string kprof = std::string(KPROF_BIN_DIR) + "/kprof";
  const fs::path log = dir / "log";
  ASSERT_EQ(
      sh(sim + " --kernel-trace -f csv -d " + (dir / "trace").string() + " -o t -- true", log).code,
      0);
  ASSERT_EQ(sh(sim + " --pmc SQ_WAVES SQ_INSTS_VALU -f csv -d " + (dir / "pass_1").string() +
                   " -o c -- true",
               log)
                .code,
            0);
  const std::string db = (dir / "k.db").string();
  ASSERT_EQ(sh(kprof + " ingest " + db + " " + (dir / "trace").string() + " " +
                   (dir / "pass_1").string() + " --run r",
               log)
                .code,
            0);
  const Ran first = sh(kprof + " query " + db + " counters --format csv", log);
  ASSERT_EQ(first.code, 0) << first.out;
  EXPECT_NE(first.out.find("SQ_INSTS_VALU,1,4,663552"), std::string::npos) << first.out;

  rerun_ids(dir / "pass_1" / "c_counter_collection.csv", 100, "111111.000000");
  // The re-ingest finds the stored join stale (the pass's files changed) and joins it again.
  const Ran reingest =
      sh(kprof + " ingest " + db + " " + (dir / "pass_1").string() + " --run r --replace", log);
  ASSERT_EQ(reingest.code, 0) << reingest.out;
  EXPECT_NE(reingest.out.find("run 1: stored for queries: the counter join of 1 pass"),
            std::string::npos)
      << reingest.out;
  const Ran again = sh(kprof + " query " + db + " counters --format csv", log);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("SQ_INSTS_VALU,1,4,111111"), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find("663552"), std::string::npos) << again.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kprof::analysis
