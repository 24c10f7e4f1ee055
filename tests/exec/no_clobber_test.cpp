// Runs never clobber each other or the user's edits: two runbooks with one `name:` in one folder
// keep every captured file, a captures folder serves one database (another is refused with the
// reason, and nothing is written), and the one-line form leaves an edited runbook as it is. Real
// kprof runs of the rocprofv3 test double.
#include <gtest/gtest.h>

#include <map>

#include "core/exec/node/captures_owner.hpp"
#include "tests/exec/kprof_cli.hpp"
#include "tests/exec/test_util.hpp"

namespace kprof::exec {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

// Every regular file under `dir` and its bytes.
std::map<std::string, std::string> files_under(const fs::path& dir) {
  std::map<std::string, std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = read_text(e.path());
  return out;
}

class NoClobber : public ::testing::Test {
 protected:
  void SetUp() override { write_script(dir / "work.sh", "exit 0\n"); }
  // A runbook named `small` of the test double's small model, with `more` appended.
  fs::path runbook(const std::string& file, const std::string& more) {
    write_file(dir / file, "schema_version: 1\nname: small\nworkload:\n  command: [\"" +
                               (dir / "work.sh").string() +
                               "\"]\ntarget:\n  arch: gfx942\npasses:\n  trace:\n    enabled: "
                               "true\nsim:\n  model: doc-vector-ops\n  seed: 7\n" +
                               more);
    return dir / file;
  }
  testing::KprofOut run(const fs::path& rb) {
    return testing::run_kprof(dir.path(), {"run", rb.string(), "--simulate", "--quiet"});
  }
  TempDir dir;
};

TEST_F(NoClobber, TwoRunbooksWithOneNameKeepEveryFile) {
  const auto a = runbook("a.yaml", "database: a.db\n");
  const auto b = runbook("b.yaml", "database: b.db\n");
  ASSERT_EQ(run(a).code, 0);
  const auto a_files = files_under(dir / "a-captures");
  ASSERT_FALSE(a_files.empty());
  ASSERT_EQ(run(b).code, 0);
  EXPECT_EQ(files_under(dir / "a-captures"), a_files);
  EXPECT_FALSE(files_under(dir / "b-captures").empty());
  EXPECT_EQ(captures_owner(dir / "a-captures"), dir / "a.db");
}

TEST_F(NoClobber, ACapturesFolderServesOneDatabase) {
  const auto a = runbook("a.yaml", "database: a.db\ncaptures: shared\n");
  const auto b = runbook("b.yaml", "database: b.db\ncaptures: shared\n");
  ASSERT_EQ(run(a).code, 0);
  const auto a_files = files_under(dir / "shared");
  const auto r = run(b);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("captures folder '" + (dir / "shared").string() +
                        "' belongs to database '" + (dir / "a.db").string() + "'"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("--db"), std::string::npos) << r.text;
  EXPECT_EQ(files_under(dir / "shared"), a_files);
  EXPECT_FALSE(fs::exists(dir / "b.db"));
  // the same database again is its owner's next run
  EXPECT_EQ(run(a).code, 0);
}

TEST_F(NoClobber, TheOneLineFormKeepsAnEditedRunbook) {
  const std::vector<std::string> one_line = {
      "run", "--simulate", "--quiet", "--db", (dir / "true.db").string(), "--", "true"};
  const std::string edited = "# mine\nschema_version: 1\nname: true\n";
  write_file(dir / "true.runbook.yaml", edited);
  const auto r = testing::run_kprof(dir.path(), one_line);
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("differs from the runbook this command line stands for"), std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("--name"), std::string::npos) << r.text;
  EXPECT_EQ(read_text(dir / "true.runbook.yaml"), edited);
  EXPECT_FALSE(fs::exists(dir / "true.db"));
}

}  // namespace
}  // namespace kprof::exec
